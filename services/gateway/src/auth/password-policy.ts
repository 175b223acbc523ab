/**
 * How strong a new password must be (docs/api/authentication.md "Passwords"): besides 8–128 characters (the joi schema), an
 * estimate of how many guesses it takes, by zxcvbn-ts with its common and English dictionaries (leaked
 * passwords, words, names, keyboard patterns, dates, repeats, sequences), must reach MIN_PASSWORD_SCORE.
 * What the account is called (username, email and its local part, company name) counts as known to an
 * attacker. Applied wherever a password is set: registration, user creation, a password change and
 * `npm run admin -- create-company`; logins are never refused for an old, weaker password.
 *
 * Score 3 means about 10^8 guesses or more ("safely unguessable: moderate protection from an offline
 * slow-hash attack"). Our hashes are scrypt at 2^16 and logins are throttled to 10 a minute, so 3 is the
 * usual minimum for such a system; 4 would refuse many passphrases people can remember.
 */
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { ValidationError } from '@pi/common';

export const MIN_PASSWORD_SCORE = 3;

/**
 * How much of a password the estimate reads, and how many l33t readings (`4`→`a`, `0`→`o`, …) of it it tries.
 * zxcvbn-ts's defaults (256 characters, 100 readings) let one 128-character password of digits and symbols
 * cost the gateway 1.3–1.5 s of CPU, on an unauthenticated endpoint, and an ordinary 19-character one about
 * 100 ms; with these, at most about 100 ms and 15–20 ms. The scores of the samples in the unit test are the
 * same either way. Reading only the first 64 characters can only refuse more: a password must be strong in
 * its first 64.
 */
export const ESTIMATED_LENGTH = 64;
const L33T_READINGS = 20;

let estimator: ZxcvbnFactory | undefined;

/**
 * Loaded and built on first use, not at start: the dictionaries are megabytes of JSON to load and rank, and
 * most processes that import this module (every gateway start, the admin CLI's other commands) never need them.
 */
function zxcvbn(): ZxcvbnFactory {
  if (!estimator) {
    /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, not at start (above) */
    const { ZxcvbnFactory: Factory } = require('@zxcvbn-ts/core') as typeof import('@zxcvbn-ts/core');
    const common = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
    const english = require('@zxcvbn-ts/language-en') as typeof import('@zxcvbn-ts/language-en');
    /* eslint-enable @typescript-eslint/no-require-imports */
    estimator = new Factory({
      translations: english.translations,
      graphs: common.adjacencyGraphs,
      dictionary: { ...common.dictionary, ...english.dictionary },
      maxLength: ESTIMATED_LENGTH,
      l33tMaxSubstitutions: L33T_READINGS,
    });
  }
  return estimator;
}

/** What the account is called: an attacker knows it, so a password made of it is weak. */
export interface PasswordContext {
  username?: string | null;
  email?: string | null;
  companyName?: string | null;
}

function knownWords(context: PasswordContext): string[] {
  const words = [context.username, context.email, context.email?.split('@')[0], context.companyName];
  return words.filter((w): w is string => typeof w === 'string' && w.trim() !== '').map((w) => w.trim().toLowerCase());
}

/** Why a password is too weak, in words a person understands; undefined when it is strong enough. */
export function passwordWeakness(password: string, context: PasswordContext = {}): string | undefined {
  const known = knownWords(context);
  const lower = password.trim().toLowerCase();
  if (known.includes(lower)) return "is too easy to guess: it is the account's own name. Choose something unrelated to it.";
  const result = zxcvbn().check(password, known);
  if (result.score >= MIN_PASSWORD_SCORE) return undefined;
  const advice = [result.feedback.warning, ...result.feedback.suggestions].filter(Boolean).join(' ');
  return `is too easy to guess: ${advice || 'use a longer password, or a few uncommon words.'}`;
}

/** 400 `validation_error` naming `password` when it is too weak. */
export function assertStrongPassword(password: string, context: PasswordContext = {}): void {
  const weakness = passwordWeakness(password, context);
  if (weakness) throw new ValidationError({ password: `password ${weakness}` }, 'The password is too weak.');
}
