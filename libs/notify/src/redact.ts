/** Keeping secrets out of what delivery attempts store and log (errors, answers of receivers and SMTP servers). */

const REDACTED = '[redacted]';

/** Replaces every occurrence of each non-empty secret, in order. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join(REDACTED);
  return out;
}

/**
 * For text that was cut: a tail that is the start of a secret (4 characters or more) is redacted too, so a
 * secret split by the cut cannot leak in part.
 */
export function redactCutTail(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret) continue;
    for (let k = Math.min(secret.length - 1, out.length); k >= 4; k--) {
      if (out.endsWith(secret.slice(0, k))) {
        out = out.slice(0, out.length - k) + REDACTED;
        break;
      }
    }
  }
  return out;
}
