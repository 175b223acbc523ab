/**
 * One submission per user action. A form guarded here
 * - sends at most one request at a time: its button is disabled (and the form marked busy) from the tap until
 *   the answer, and at least HOLD_MS, so the second tap of a double tap lands on a disabled button;
 * - gives each action one Idempotency-Key: a retry of the same request after a failure (network, 5xx, 429)
 *   reuses it, so a booking that did reach the service is answered again instead of booked twice; a changed
 *   request or a new action after a success gets a fresh one;
 * - after a 429, keeps the button disabled for the wait the service named, counting down on the button.
 * The button's label comes back from `data-label` when set (a form whose action changes sets it).
 */
import { ApiError, newIdempotencyKey } from './api.js';
import { showError } from './notice.js';

export const HOLD_MS = 800;

/** A problem with what was typed, shown without calling the service. */
export class FormProblem extends Error {}

export interface Prepared {
  /** Identifies the request (method, path and body) for reusing its key on a retry. */
  signature: string;
  send(idempotencyKey: string): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function guardSubmit(form: HTMLFormElement, button: HTMLButtonElement, busyLabel: string, notice: HTMLElement, prepare: () => Prepared): void {
  let busy = false;
  let pending: { signature: string; key: string } | null = null;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (busy) return;
    let prepared: Prepared;
    try {
      prepared = prepare();
    } catch (problem) {
      showError(notice, problem instanceof FormProblem ? new ApiError(400, 'form', problem.message) : problem);
      return;
    }
    if (!pending || pending.signature !== prepared.signature) pending = { signature: prepared.signature, key: newIdempotencyKey() };
    const idleLabel = button.textContent ?? '';
    busy = true;
    button.disabled = true;
    button.textContent = busyLabel;
    form.setAttribute('aria-busy', 'true');
    const started = Date.now();
    let wait = 0;
    try {
      await prepared.send(pending.key);
      pending = null; // done: the next action is a new one
    } catch (err) {
      showError(notice, err);
      if (err instanceof ApiError && err.status === 429) wait = err.retryAfter ?? 60;
    } finally {
      await sleep(Math.max(0, HOLD_MS - (Date.now() - started)));
      for (let left = wait; left > 0; left -= 1) {
        button.textContent = `Wait ${left} s`;
        await sleep(1000);
      }
      button.textContent = button.dataset.label || idleLabel;
      button.disabled = false;
      form.removeAttribute('aria-busy');
      busy = false;
    }
  });
}
