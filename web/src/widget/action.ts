/**
 * One submission per user action. An action guarded here
 * - sends at most one request at a time: it is busy (its button disabled and showing a busy label) from the
 *   tap until the answer, and at least HOLD_MS, so the second tap of a double tap lands on a disabled button;
 * - gives each action one Idempotency-Key: a booking's attempts all carry it (the API client retries while the
 *   outcome is unknown, and the action says so), and so does a resend of the same request after a failure, so
 *   a booking that did reach the service is answered again instead of booked twice; a changed request or a new
 *   action after a success gets a fresh one;
 * - after a 429, stays busy for the wait the service named, counting down on the button.
 * `actionGuard` holds the rules and tells a view what to show (the booking view renders it from its state);
 * `guardSubmit` is that view for a plain form whose button and notice it changes directly.
 */
import { ApiError, type RequestOptions, type RetryNotice } from './api.js';
import { newIdempotencyKey } from '../kit/ids.js';
import { type KeyedAction, retryText } from '../kit/messages.js';
import { showError, showInfo } from './notice.js';

export const HOLD_MS = 800;

/** A problem with what was typed, shown without calling the service. */
export class FormProblem extends Error {}

export interface Prepared {
  /** Identifies the request (method, path and body) for reusing its key on a retry. */
  signature: string;
  /** Sends it; a booking passes `options` (its Idempotency-Key and retry notices) to the API client. */
  send(options: RequestOptions): Promise<void>;
}

/** What the guard shows while it works. */
export interface ActionView {
  /** The button's label while busy ("Booking…", "Retrying (2 of 4)…", "Wait 3 s"), or null when idle again. */
  busy(label: string | null): void;
  /** The booking is sent again (its last attempt's outcome is unknown). */
  retrying(notice: RetryNotice): void;
  failed(err: unknown): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The guard of one form: call the answer with a `prepare` on each submit. */
export function actionGuard(view: ActionView, busyLabel: string): (prepare: () => Prepared) => Promise<void> {
  let busy = false;
  let pending: { signature: string; key: string } | null = null;
  return async (prepare) => {
    if (busy) return;
    let prepared: Prepared;
    try {
      prepared = prepare();
    } catch (problem) {
      view.failed(problem instanceof FormProblem ? new ApiError(400, { error: problem.message, code: 'form', details: {} }) : problem);
      return;
    }
    if (!pending || pending.signature !== prepared.signature) pending = { signature: prepared.signature, key: newIdempotencyKey('widget') };
    busy = true;
    view.busy(busyLabel);
    const started = Date.now();
    let wait = 0;
    try {
      await prepared.send({
        idempotencyKey: pending.key,
        onRetry: (notice) => {
          view.busy(`Retrying (${notice.attempt} of ${notice.attempts})…`);
          view.retrying(notice);
        },
      });
      pending = null; // done: the next action is a new one
    } catch (err) {
      view.failed(err);
      if (err instanceof ApiError && err.status === 429) wait = err.retryAfter ?? 60;
    } finally {
      await sleep(Math.max(0, HOLD_MS - (Date.now() - started)));
      for (let left = wait; left > 0; left -= 1) {
        view.busy(`Wait ${left} s`);
        await sleep(1000);
      }
      view.busy(null);
      busy = false;
    }
  };
}

/** A plain form's guard: its button shows the busy labels, `notice` the errors and retries (of a booking, or of what `action` says). */
export function guardSubmit(
  form: HTMLFormElement,
  button: HTMLButtonElement,
  busyLabel: string,
  notice: HTMLElement,
  prepare: () => Prepared,
  action: KeyedAction = 'booking',
): void {
  const idleLabel = button.textContent ?? '';
  const run = actionGuard(
    {
      busy(label) {
        button.disabled = label !== null;
        button.textContent = label ?? idleLabel;
        if (label === null) form.removeAttribute('aria-busy');
        else form.setAttribute('aria-busy', 'true');
      },
      retrying: (retry) => showInfo(notice, retryText(retry, action)),
      failed: (err) => showError(notice, err),
    },
    busyLabel,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(prepare);
  });
}
