/**
 * The widget's entry point (`/widget/`). Two ways in:
 * - from a QR scan, `/widget/?token=<one-time token>`: the token is removed from the address bar first thing,
 *   exchanged once (`exchange_token/`) for a scan key, which is kept in this tab's sessionStorage only;
 * - embedded by sdk.js, `/widget/?embed=1` in an iframe: the widget tells its parent it is ready, and takes the
 *   key from the parent's `postMessage` (memory only), then reports back `loaded` or `error` and its height.
 * The key only ever travels in the `X-API-Key` header.
 */
import { ApiError, WidgetApi, exchangeToken } from './api.js';
import { showScreen, startApp } from './app.js';
import { type Child, h } from '../kit/dom.js';
import { embeddedIn, errorText, waitText } from './messages.js';
import { ScanSession, clearSession, loadSession, saveSession } from './session.js';
import { needsSignIn, showSignIn, signedInNote } from './sign-in.js';
import type { Location } from './types.js';

/** The `source` of every message between the widget and sdk.js. */
const CHANNEL = 'pi-inventory-widget';
const KEY_WAIT_MS = 15_000;

// First: the one-time token leaves the address bar (and so the history, bookmarks and screenshots).
const params = new URLSearchParams(window.location.search);
const token = params.get('token');
if (token !== null) {
  params.delete('token');
  const query = params.toString();
  history.replaceState(history.state, '', `${window.location.pathname}${query ? `?${query}` : ''}${window.location.hash}`);
}

function scanAgain(): HTMLParagraphElement {
  return h('p', { class: 'scan-again' }, h('strong', {}, 'Scan the QR code again'), ' with your phone’s camera to get a new link.');
}

function startScan(session: ScanSession, skipSignIn = false): void {
  if (!skipSignIn && needsSignIn(session))
    return showSignIn(
      session,
      (next) => startScan(next),
      () => startScan(session, true),
    );
  const api = new WidgetApi(session.apiKey);
  let current = session;
  const ended = (reason: Child) => {
    clearSession();
    showScreen('Your session has ended', [reason, scanAgain()]);
  };
  const expiresIn = new Date(session.expiresAt).getTime() - Date.now();
  const timer = window.setTimeout(() => ended('The key of this scan has expired.'), Math.min(Math.max(expiresIn, 0), 2 ** 31 - 1));
  startApp({
    api,
    mode: 'scan',
    qr: session.qr,
    onUnauthorized: (err) => {
      window.clearTimeout(timer);
      ended(err.message);
    },
    onQrChange: (qr) => {
      current = { ...current, qr };
      saveSession(current);
    },
  });
  const note = signedInNote(session);
  if (note) document.getElementById('company')?.after(note);
}

function tokenProblem(err: unknown): void {
  const previous = loadSession();
  const resume = previous
    ? h('button', { type: 'button', class: 'secondary', on: { click: () => startScan(previous) } }, `Continue with code ${previous.qr.code}`)
    : null;
  if (err instanceof ApiError) {
    if (err.code === 'token_used') {
      return showScreen(
        'This link was already used',
        ['A QR link opens the widget once, and this one has been opened before (perhaps in another tab or on another phone).', scanAgain()],
        resume,
      );
    }
    if (err.status === 410) return showScreen('This link has expired', ['A QR link is valid for about ten minutes after the scan.', scanAgain()], resume);
    if (err.status === 400)
      return showScreen('This link is not valid', ['The address is incomplete, or it was not made by this inventory service.', scanAgain()], resume);
    if (err.status === 429) return showScreen('Too many scans', [`Please wait ${waitText(err.retryAfter ?? 60)}, then scan the code again.`], resume);
    if (err.code === 'widget_key_unavailable') {
      return showScreen('The widget is not available', [err.message, 'Ask your administrator to create or restore the company’s widget key.']);
    }
  }
  showScreen('The widget could not open', [errorText(err), scanAgain()], resume);
}

async function bootScan(): Promise<void> {
  if (token !== null) {
    showScreen('Opening…', 'Checking the scanned code.');
    let session: ScanSession;
    try {
      const answer = await exchangeToken(token);
      session = { apiKey: answer.api_key, expiresAt: answer.expires_at, qr: answer.qr, scan: answer.scan };
    } catch (err) {
      return tokenProblem(err);
    }
    saveSession(session);
    return startScan(session);
  }
  const session = loadSession();
  if (session) return startScan(session);
  showScreen('Scan a QR code', [
    'Point your phone’s camera at an inventory QR code label: it opens this widget for that code.',
    'Websites embed the widget with the SDK, /widget/sdk.js.',
  ]);
}

function bootEmbedded(): void {
  document.documentElement.classList.add('embedded');
  if (window.parent === window) {
    showScreen('Nothing to show here', 'This address is meant to be opened by the inventory widget SDK inside another page.');
    return;
  }
  let embedder: string | null = null;
  const post = (message: Record<string, unknown>) => {
    if (embedder) window.parent.postMessage({ source: CHANNEL, ...message }, embedder);
  };
  const waiting = window.setTimeout(() => {
    if (!embedder)
      showScreen('No key received', 'The embedding page did not hand over an API key. Mount the widget with InventoryWidget.mount(element, { apiKey }).');
  }, KEY_WAIT_MS);

  const onMessage = async (event: MessageEvent): Promise<void> => {
    // Only the embedding page, only once.
    if (event.source !== window.parent || embedder !== null) return;
    const handshake = readHandshake(event.data);
    if (handshake === null) return; // not a message for the widget (other scripts of the page post too)
    if ('problem' in handshake) {
      // A hand-made iframe's key message that is not quite right: said in the widget and answered to its sender.
      window.clearTimeout(waiting);
      showScreen('The key message is not valid', [
        `The embedding page sent a key message, but ${handshake.field} ${handshake.problem}.`,
        h(
          'p',
          {},
          'Send ',
          h('code', {}, `{ source: '${CHANNEL}', type: 'key', apiKey: '<API key>' }`),
          ' with postMessage, or mount the widget with the SDK (/widget/sdk.js).',
        ),
      ]);
      const reply = {
        source: CHANNEL,
        type: 'error',
        code: 'invalid_handshake',
        status: 400,
        message: `Invalid key message: ${handshake.field} ${handshake.problem}.`,
        details: { [handshake.field]: handshake.problem },
      };
      window.parent.postMessage(reply, event.origin === 'null' ? '*' : event.origin);
      return;
    }
    embedder = event.origin;
    embeddedIn(embedder);
    window.clearTimeout(waiting);
    watchHeight(post);
    const api = new WidgetApi(handshake.apiKey, embedder);
    let locations: Location[];
    try {
      // A cheap check of the key before anything is shown; the answer fills the locations cache.
      locations = (await api.get<{ locations: Location[] }>('locations/')).locations;
    } catch (err) {
      const code = err instanceof ApiError ? err.code : 'error';
      showScreen('The widget cannot open', errorText(err));
      post({ type: 'error', code, message: err instanceof Error ? err.message : String(err), status: err instanceof ApiError ? err.status : 0 });
      return;
    }
    startApp({
      api,
      mode: 'embed',
      qr: null,
      locations,
      onUnauthorized: (err) => {
        showScreen('The key was refused', errorText(err));
        post({ type: 'error', code: err.code, message: err.message, status: err.status });
      },
      onFirstRender: () => post({ type: 'loaded' }),
    });
  };
  window.addEventListener('message', (event: MessageEvent) => void onMessage(event));
  showScreen('Connecting…', 'Waiting for the page to hand over its key.');
  window.parent.postMessage({ source: CHANNEL, type: 'ready', version: 1 }, '*');
}

/**
 * The embedding page's key message (docs/api/widget-embedding.md): `{source: 'pi-inventory-widget', type: 'key',
 * apiKey}`. Null for a message that is not meant for the widget at all (no `source` of ours, no `type: 'key'`,
 * no `apiKey`); a message that is meant for it but malformed names the field at fault.
 */
function readHandshake(data: unknown): { apiKey: string } | { field: string; problem: string } | null {
  if (!data || typeof data !== 'object') return null;
  const message = data as { source?: unknown; type?: unknown; apiKey?: unknown };
  if (message.source !== CHANNEL && message.type !== 'key' && !('apiKey' in message)) return null;
  if (message.source !== CHANNEL)
    return { field: 'source', problem: message.source === undefined ? `is missing (it must be '${CHANNEL}')` : `must be '${CHANNEL}'` };
  if (message.type !== 'key') return message.type === 'ready' || message.type === 'resize' ? null : { field: 'type', problem: "must be 'key'" };
  if (typeof message.apiKey !== 'string' || message.apiKey.trim() === '') return { field: 'apiKey', problem: 'must be the API key, a non-empty string' };
  return { apiKey: message.apiKey.trim() };
}

/** Tells the embedding page the height of the content, so that sdk.js can size the iframe to it. */
function watchHeight(post: (message: Record<string, unknown>) => void): void {
  const app = document.querySelector('.app') ?? document.body;
  let last = 0;
  const report = () => {
    const height = Math.ceil(app.getBoundingClientRect().height);
    if (height !== last) {
      last = height;
      post({ type: 'resize', height });
    }
  };
  new ResizeObserver(report).observe(app);
  report();
}

if (params.get('embed') === '1') bootEmbedded();
else void bootScan();
