/**
 * The scan session of one tab: the scan key from `exchange_token/`, its expiry and the scanned code, in
 * sessionStorage (gone when the tab closes; never in localStorage, a cookie or a URL). The embedded widget
 * keeps its key in memory only and never uses this.
 */
import type { ExchangeAnswer, QrInfo } from './types.js';

const STORAGE_KEY = 'pi-inventory-widget.session';

export interface ScanSession {
  apiKey: string;
  expiresAt: string;
  qr: QrInfo;
  /** What the scan may do and who signed in (docs/api/scanning.md); absent in sessions saved by older pages. */
  scan?: ExchangeAnswer['scan'];
}

function storage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined; // storage disabled: the key then lives in memory only
  }
}

export function saveSession(session: ScanSession): void {
  try {
    storage()?.setItem(STORAGE_KEY, JSON.stringify(session));
  } catch {
    /* quota or privacy mode: memory only */
  }
}

/** The tab's session, unless absent, malformed or expired (then it is removed). */
export function loadSession(): ScanSession | undefined {
  const raw = storage()?.getItem(STORAGE_KEY);
  if (!raw) return undefined;
  try {
    const session = JSON.parse(raw) as ScanSession;
    if (typeof session.apiKey === 'string' && typeof session.expiresAt === 'string' && session.qr && new Date(session.expiresAt).getTime() > Date.now()) {
      return session;
    }
  } catch {
    /* fall through */
  }
  clearSession();
  return undefined;
}

export function clearSession(): void {
  storage()?.removeItem(STORAGE_KEY);
}
