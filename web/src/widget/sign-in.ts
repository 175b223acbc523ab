/**
 * Signing in inside a scanned widget (docs/api/scanning.md). A scan's key reaches only its code's target; a
 * company that chose the `staff` scan policy books only once a user of the company signed in, and a VIRGIN
 * code is linked only by a signed-in user. `sign_in/` answers a new scan key that names the user (the old one
 * stops working), kept in the tab's session like the first.
 */
import { ApiError, WidgetApi } from './api.js';
import { showScreen } from './app.js';
import { field, h } from '../kit/dom.js';
import { errorText } from './messages.js';
import { type ScanSession, saveSession } from './session.js';
import type { Answer } from '../kit/api-types.js';

type SignInAnswer = Answer<'signInToScan'>;

/** The session must sign in before the widget is of use: to book under `staff`, to link a VIRGIN code. */
export function needsSignIn(session: ScanSession): boolean {
  if (!session.scan || session.scan.signed_in_user) return false;
  return session.scan.policy === 'staff' || session.qr.status === 'VIRGIN';
}

/** Why the user is asked to sign in, in words. */
function reason(session: ScanSession): string {
  return session.qr.status === 'VIRGIN'
    ? 'This code is not linked yet. Sign in as a user of the company to link it to a product, an item or a work order.'
    : 'Booking stock from this code needs a user of the company. Sign in to book; you can also just look at the stock.';
}

/**
 * The sign-in screen. `onSignedIn` gets the new session (saved already); `onSkip` goes on without signing in
 * (the widget then shows, and refuses what needs a user).
 */
export function showSignIn(session: ScanSession, onSignedIn: (session: ScanSession) => void, onSkip: () => void): void {
  const username = h('input', { type: 'text', name: 'username', autocomplete: 'username', required: true, maxlength: '150' });
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true, maxlength: '128' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const notice = h('div', { class: 'form-notice' });
  const form = h(
    'form',
    { class: 'sign-in', novalidate: false },
    field('Username', username),
    field('Password', password),
    notice,
    h('div', { class: 'actions' }, submit),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (submit.disabled) return;
    submit.disabled = true;
    submit.textContent = 'Signing in…';
    notice.replaceChildren();
    new WidgetApi(session.apiKey)
      .post<SignInAnswer>('sign_in/', { username: username.value, password: password.value })
      .then((answer) => {
        const next: ScanSession = { ...session, apiKey: answer.api_key, expiresAt: answer.expires_at ?? session.expiresAt, scan: answer.scan };
        saveSession(next);
        onSignedIn(next);
      })
      .catch((err: unknown) => {
        submit.disabled = false;
        submit.textContent = 'Sign in';
        password.value = '';
        const text =
          err instanceof ApiError && err.status === 401 && err.code === 'authentication_failed'
            ? 'Wrong username or password, or not a user of this company.'
            : errorText(err);
        notice.replaceChildren(h('p', { class: 'notice notice-error', role: 'alert' }, text));
      });
  });
  const skip = h(
    'button',
    { type: 'button', class: 'secondary', on: { click: onSkip } },
    session.qr.status === 'VIRGIN' ? 'Continue without signing in' : 'Just look at the stock',
  );
  showScreen('Sign in', [reason(session), form], skip);
}

/** A line naming the signed-in user, for the widget's header. */
export function signedInNote(session: ScanSession): HTMLElement | null {
  const user = session.scan?.signed_in_user;
  return user ? h('p', { class: 'muted signed-in' }, `Signed in as ${user.username}`) : null;
}
