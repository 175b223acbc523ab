/**
 * The widget SDK, served as `/widget/sdk.js`: a classic script (no imports, no exports) that an embedding
 * site loads from the inventory service and calls as
 *
 *     <div id="stock"></div>
 *     <script src="https://inventory.example.com/widget/sdk.js"></script>
 *     <script>InventoryWidget.mount('#stock', { apiKey: 'pik_…' }).catch((err) => console.error(err.code, err.message));</script>
 *
 * The handshake, which keeps the key out of every URL:
 * 1. The SDK, running in the embedding page, calls `GET /api/v1/widget/locations/` with the key in the
 *    `X-API-Key` header. The browser sends the page's `Origin`, and the gateway refuses a key whose
 *    `allowed_domains` do not include it (403 `origin_not_allowed`; a refusal carries no CORS header, so the
 *    browser shows the SDK only a failed request). On any refusal the SDK mounts nothing: it shows the reason
 *    in the element and rejects with an `Error` whose `code` names it.
 * 2. Only then does it create the iframe on `/widget/?embed=1`, sandboxed (`allow-scripts allow-same-origin
 *    allow-forms`) with `referrerpolicy="strict-origin-when-cross-origin"` and `allow="camera"` (the widget's
 *    Scan reads QR labels and barcodes with the camera; a cross-origin iframe gets it only when allowed).
 * 3. The widget posts `{source: 'pi-inventory-widget', type: 'ready'}` to its parent; the SDK answers with
 *    `{source: 'pi-inventory-widget', type: 'key', apiKey}`, posted to the service's exact origin and only to
 *    the iframe it created. The widget keeps the key in memory only. A key message without that `source` (or
 *    otherwise malformed) is answered with an `error` of code `invalid_handshake` and shown in the widget
 *    (docs/api/widget-embedding.md).
 * 4. The widget posts `loaded` (the promise resolves), `error` (it rejects, or `onError` is called later) and
 *    `resize` (the iframe follows the content's height unless a fixed `height` was given).
 */

interface InventoryWidgetOptions {
  /** The company API key (a widget key: `read`, and `write` for bookings). */
  apiKey: string;
  /** A fixed iframe height (any CSS length). Default: the height of the widget's content. */
  height?: string;
  /** The smallest height when following the content, in pixels (default 320). */
  minHeight?: number;
  /** The inventory service's address; default: where sdk.js was loaded from. */
  baseUrl?: string;
  /** The iframe's accessible title (default "Inventory"). */
  title?: string;
  /** Errors after the widget loaded (for instance the key was revoked meanwhile). */
  onError?: (error: InventoryWidgetError) => void;
  /** How long to wait for the widget to load, in milliseconds (default 20000). */
  timeoutMs?: number;
}

interface InventoryWidgetError extends Error {
  /**
   * `origin_not_allowed`, `authentication_failed`, `permission_denied`, `rate_limited`, `key_refused` (the key
   * is invalid or this origin is not allowed: the browser does not tell which), `unreachable`, `timeout`,
   * `bad_options`, or a code the widget reported.
   */
  code: string;
  status?: number;
}

interface InventoryWidgetHandle {
  iframe: HTMLIFrameElement;
  element: HTMLElement;
  /** Removes the iframe and stops listening to it. */
  unmount(): void;
}

interface InventoryWidgetApi {
  version: string;
  /** Where the widget is loaded from (the service's address), when sdk.js could tell. */
  baseUrl: string | undefined;
  mount(target: HTMLElement | string, options: InventoryWidgetOptions): Promise<InventoryWidgetHandle>;
}

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- merges into the global Window (this file is a script, not a module)
interface Window {
  InventoryWidget: InventoryWidgetApi;
}

(() => {
  const CHANNEL = 'pi-inventory-widget';
  const SANDBOX = 'allow-scripts allow-same-origin allow-forms';
  const REFERRER_POLICY = 'strict-origin-when-cross-origin';
  /** The widget's Scan uses the camera: a cross-origin iframe may only with this permission policy. */
  const ALLOW = 'camera';

  if (window.InventoryWidget) return; // loaded twice: keep the first

  /** The service's address: sdk.js lives at `<base>/widget/sdk.js`. */
  const script = document.currentScript as HTMLScriptElement | null;
  const scriptBase = script?.src ? new URL('../', script.src).href.replace(/\/$/, '') : undefined;

  function widgetError(code: string, message: string, status?: number): InventoryWidgetError {
    const error = new Error(message) as InventoryWidgetError;
    error.name = 'InventoryWidgetError';
    error.code = code;
    if (status !== undefined) error.status = status;
    return error;
  }

  /** A message in the element (styled through the CSSOM, which a strict CSP of the page allows). */
  function showMessage(element: HTMLElement, text: string, isError: boolean): void {
    const p = document.createElement('p');
    p.className = isError ? 'inventory-widget-error' : 'inventory-widget-status';
    p.setAttribute('role', isError ? 'alert' : 'status');
    p.textContent = text;
    p.style.margin = '0';
    p.style.padding = '12px 14px';
    p.style.borderRadius = '6px';
    p.style.font = '16px/1.4 system-ui, sans-serif';
    p.style.background = isError ? '#fce8e6' : '#eef1f4';
    p.style.color = isError ? '#a50e0e' : '#1b1f24';
    element.replaceChildren(p);
  }

  async function reachable(base: string): Promise<boolean> {
    try {
      // `/widget/…` answers cross-origin (no-cors) reads; no key is sent.
      await fetch(`${base}/widget/sdk.js`, { mode: 'no-cors', cache: 'no-store', credentials: 'omit' });
      return true;
    } catch {
      return false;
    }
  }

  /** Step 1: the gateway checks the key and this page's Origin against the key's `allowed_domains`. */
  async function checkKey(base: string, apiKey: string): Promise<void> {
    const origin = window.location.origin;
    let res: Response;
    try {
      res = await fetch(`${base}/api/v1/widget/locations/`, {
        headers: { 'X-API-Key': apiKey, Accept: 'application/json' },
        mode: 'cors',
        credentials: 'omit',
        cache: 'no-store',
        referrerPolicy: REFERRER_POLICY,
      });
    } catch {
      if (!(await reachable(base))) throw widgetError('unreachable', `The inventory service at ${base} cannot be reached.`);
      throw widgetError(
        'key_refused',
        `The inventory service refused this API key for ${origin}: the key is not valid, or ${origin} is not in its allowed domains.`,
      );
    }
    if (res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return;
    }
    let body: { code?: string; error?: string; retry_after?: number } = {};
    try {
      const answer: unknown = await res.json();
      if (answer && typeof answer === 'object') body = answer;
    } catch {
      /* not ours */
    }
    if (res.status === 403 && body.code === 'origin_not_allowed') {
      throw widgetError('origin_not_allowed', `This API key may not be used on ${origin}: it is not in the key's allowed domains.`, 403);
    }
    if (res.status === 401) throw widgetError('authentication_failed', body.error ?? 'The API key is not valid.', 401);
    if (res.status === 403) throw widgetError(body.code ?? 'permission_denied', body.error ?? 'The API key may not read the inventory.', 403);
    if (res.status === 429) throw widgetError('rate_limited', `Too many requests: try again in ${body.retry_after ?? 60} s.`, 429);
    throw widgetError(body.code ?? 'key_check_failed', body.error ?? `The inventory service answered ${res.status}.`, res.status);
  }

  async function mount(target: HTMLElement | string, options: InventoryWidgetOptions): Promise<InventoryWidgetHandle> {
    const element = typeof target === 'string' ? document.querySelector(target) : target;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a script may pass anything here; its text names it
    if (!(element instanceof HTMLElement)) throw widgetError('bad_options', `InventoryWidget.mount: no element ${String(target)}.`);
    const fail = (error: InventoryWidgetError): never => {
      showMessage(element, `The inventory widget cannot be shown. ${error.message}`, true);
      throw error;
    };
    if (!options || typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      return fail(widgetError('bad_options', 'InventoryWidget.mount needs { apiKey }.'));
    }
    const apiKey = options.apiKey.trim();
    let base: string;
    try {
      const given = options.baseUrl ?? scriptBase;
      if (!given) throw new Error('unknown');
      base = new URL(given, window.location.href).href.replace(/\/$/, '');
    } catch {
      return fail(widgetError('bad_options', 'Cannot tell where the inventory service is: pass { baseUrl }.'));
    }
    const serviceOrigin = new URL(base).origin;
    const minHeight = options.minHeight ?? 320;

    showMessage(element, 'Loading the inventory…', false);
    try {
      await checkKey(base, apiKey);
    } catch (error) {
      return fail(error as InventoryWidgetError);
    }

    const iframe = document.createElement('iframe');
    iframe.setAttribute('sandbox', SANDBOX);
    iframe.setAttribute('referrerpolicy', REFERRER_POLICY);
    iframe.setAttribute('allow', ALLOW);
    iframe.title = options.title ?? 'Inventory';
    iframe.src = `${base}/widget/?embed=1`;
    iframe.style.display = 'block';
    iframe.style.width = '100%';
    iframe.style.border = '0';
    iframe.style.height = options.height ?? `${minHeight}px`;

    return new Promise<InventoryWidgetHandle>((resolve, reject) => {
      let settled = false;
      const onMessage = (event: MessageEvent) => {
        if (event.source !== iframe.contentWindow || event.origin !== serviceOrigin) return;
        const data = event.data as { source?: unknown; type?: unknown; height?: unknown; code?: unknown; message?: unknown; status?: unknown } | null;
        if (!data || data.source !== CHANNEL) return;
        if (data.type === 'ready') {
          iframe.contentWindow?.postMessage({ source: CHANNEL, type: 'key', apiKey }, serviceOrigin);
        } else if (data.type === 'resize' && options.height === undefined && typeof data.height === 'number') {
          iframe.style.height = `${Math.max(minHeight, Math.ceil(data.height))}px`;
        } else if (data.type === 'loaded' && !settled) {
          settled = true;
          window.clearTimeout(timer);
          resolve(handle);
        } else if (data.type === 'error') {
          const error = widgetError(
            typeof data.code === 'string' ? data.code : 'widget_error',
            typeof data.message === 'string' ? data.message : 'The widget failed.',
            typeof data.status === 'number' ? data.status : undefined,
          );
          if (settled) {
            options.onError?.(error);
            return;
          }
          settled = true;
          window.clearTimeout(timer);
          handle.unmount();
          showMessage(element, `The inventory widget cannot be shown. ${error.message}`, true);
          reject(error);
        }
      };
      const handle: InventoryWidgetHandle = {
        iframe,
        element,
        unmount() {
          window.removeEventListener('message', onMessage);
          iframe.remove();
        },
      };
      const timer = window.setTimeout(() => {
        if (settled) return;
        settled = true;
        handle.unmount();
        const error = widgetError('timeout', 'The widget did not load in time.');
        showMessage(element, `The inventory widget cannot be shown. ${error.message}`, true);
        reject(error);
      }, options.timeoutMs ?? 20_000);
      window.addEventListener('message', onMessage);
      element.replaceChildren(iframe);
    });
  }

  window.InventoryWidget = Object.freeze({ version: '1', baseUrl: scriptBase, mount });
})();
