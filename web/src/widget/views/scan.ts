/**
 * Scan (`#/scan`, docs/api/barcodes-and-camera.md): the phone's camera reads one of our QR labels or a product
 * barcode (EAN-13, EAN-8, UPC-A, Code 128), and the widget jumps to what it names: a product (by its
 * barcode), the product of a linked item, the work orders, or a new code to link. A code or barcode can also be
 * typed. The decoder is loaded only now (scan/decoder.ts); the camera stops when the screen is left. A refused
 * or missing camera is said in words, with what to do.
 */
import type { Ctx } from '../context.js';
import { ApiError } from '../api.js';
import { type Child, field, fill, h } from '../../kit/dom.js';
import { errorText } from '../messages.js';
import { showError, showInfo } from '../notice.js';
import { loadDecoder } from '../scan/decoder.js';
import { type Scanned, scannedFrom } from '../scan/scanned.js';
import type { ProductList, QrInfo } from '../types.js';

/** Frames are read this often, scaled down to at most this width (enough for a label filling part of the view). */
const FRAME_INTERVAL_MS = 200;
const FRAME_MAX_WIDTH = 960;

/** What to tell people when the camera cannot start, by the error's name (MediaDevices.getUserMedia). */
function cameraProblem(err: unknown): { title: string; text: string } {
  const name = err instanceof DOMException || err instanceof Error ? err.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError') {
    return {
      title: 'Camera access was refused.',
      text:
        'Allow the camera for this site in your browser (the camera icon in the address bar, or the site settings), then press “Try again”. ' +
        'On a website that embeds this widget, that page must also allow the camera.',
    };
  }
  if (name === 'NotFoundError' || name === 'OverconstrainedError' || name === 'DevicesNotFoundError') {
    return { title: 'No camera was found.', text: 'This device has no camera the browser can use. Type the code or the barcode below instead.' };
  }
  if (name === 'NotReadableError' || name === 'AbortError') {
    return { title: 'The camera is busy.', text: 'Another app or tab is using the camera. Close it, then press “Try again”.' };
  }
  return { title: 'The camera could not start.', text: `${err instanceof Error ? err.message : String(err)} Type the code or the barcode below instead.` };
}

/** Goes to what `scanned` names, or says why it cannot. */
async function open(ctx: Ctx, scanned: Scanned, box: HTMLElement): Promise<void> {
  if (scanned.kind === 'unknown') {
    showInfo(box, `“${scanned.text.slice(0, 80)}” is not one of our QR codes nor a product barcode.`);
    return;
  }
  if (scanned.kind === 'barcode') {
    showInfo(box, `Looking up barcode ${scanned.gtin}…`);
    const list = await ctx.api.get<ProductList>('', { barcode: scanned.gtin });
    const [product] = [...list.products, ...list.poly_products];
    if (!product) {
      showInfo(box, `No product has the barcode ${scanned.gtin}.`);
      return;
    }
    ctx.announce(`Found ${product.name}.`);
    window.location.hash = `#/products/${product.id}`;
    return;
  }
  showInfo(box, `Looking up code ${scanned.code}…`);
  let info: QrInfo;
  try {
    info = await ctx.api.get<QrInfo>('qr_info/', { code: scanned.code });
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 403)) {
      showInfo(box, `Code ${scanned.code} is not one of this company’s codes.`);
      return;
    }
    throw err;
  }
  if (info.status === 'VIRGIN') {
    // A new code: linking it is the QR screen's business. A scan session stays on the code it was opened
    // with (its key is that code's), so another new code is only named there.
    if (ctx.mode === 'scan' && ctx.qr && ctx.qr.code !== info.code) {
      showInfo(box, `Code ${info.code} is new and not linked yet. Link it from the dashboard, or scan it with the phone’s camera app.`);
      return;
    }
    ctx.setQr(info);
    window.location.hash = '#/qr';
    return;
  }
  ctx.announce(`Code ${info.code}.`);
  window.location.hash = info.target_type === 'WORK_ORDER' || !info.product_model_id ? '#/work-orders' : `#/products/${info.product_model_id}`;
}

export function scanView(ctx: Ctx, view: HTMLElement): void {
  const status = h('div', { class: 'scan-status' });
  const result = h('div', { class: 'scan-result' });
  const video = h('video', { class: 'scan-video', muted: true, playsinline: true, autoplay: true, 'aria-label': 'Camera view', hidden: true });
  video.muted = true;
  const retry = h('button', { type: 'button', class: 'secondary', hidden: true, on: { click: () => void start() } }, 'Try again');

  const input = h('input', { type: 'text', name: 'scan_text', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off', inputmode: 'text' });
  const typed = h(
    'form',
    { class: 'scan-typed', on: { submit: (e: Event) => (e.preventDefault(), void resolve(input.value)) } },
    field('Or type a code or barcode', input, 'The code printed under a QR label, or the digits under a barcode.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'secondary' }, 'Find')),
  );
  view.append(
    h('h2', { tabindex: '-1' }, 'Scan'),
    h('p', { class: 'hint' }, 'Point the camera at a QR label or a product barcode (EAN-13, EAN-8, UPC-A or Code 128).'),
    status,
    retry,
    video,
    result,
    typed,
  );

  let stream: MediaStream | null = null;
  let timer = 0;
  let stopped = false;
  function stopCamera(): void {
    window.clearTimeout(timer);
    for (const track of stream?.getTracks() ?? []) track.stop();
    stream = null;
    video.srcObject = null;
    video.hidden = true;
  }
  const leave = () => {
    stopped = true;
    stopCamera();
  };
  window.addEventListener('hashchange', leave, { once: true });

  async function resolve(text: string): Promise<void> {
    try {
      await open(ctx, scannedFrom(text), result);
    } catch (err) {
      showError(result, err);
    }
  }

  function say(...content: Child[]): void {
    fill(status, h('p', { class: 'notice', role: 'status' }, ...content));
  }

  async function start(): Promise<void> {
    retry.hidden = true;
    retry.textContent = 'Try again';
    fill(result);
    stopCamera();
    if (!navigator.mediaDevices?.getUserMedia) {
      fill(
        status,
        h(
          'p',
          { class: 'notice notice-error', role: 'alert' },
          h('strong', {}, 'No camera is available here.'),
          ' The browser offers none to this page (it needs HTTPS). Type the code or the barcode below instead.',
        ),
      );
      return;
    }
    // The picture has its place from now on, so the form below it stays put when the camera starts.
    video.hidden = false;
    say('Starting the camera…');
    let decode: Awaited<ReturnType<typeof loadDecoder>>;
    try {
      const [media, decoder] = await Promise.all([
        navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: 'environment' } }, audio: false }),
        loadDecoder(),
      ]);
      stream = media;
      decode = decoder;
    } catch (err) {
      video.hidden = true;
      const problem = err instanceof ApiError ? { title: 'The scanner could not start.', text: errorText(err) } : cameraProblem(err);
      fill(status, h('p', { class: 'notice notice-error camera-problem', role: 'alert' }, h('strong', {}, problem.title), ' ', problem.text));
      retry.hidden = false;
      return;
    }
    if (stopped) return stopCamera();
    video.srcObject = stream;
    await video.play().catch(() => undefined);
    say('Point the camera at a QR label or a barcode.');
    view.dataset.decoder = decode.name;
    const canvas = document.createElement('canvas');
    const context = canvas.getContext('2d', { willReadFrequently: true })!;
    const tick = async () => {
      if (stopped || !stream) return;
      if (video.readyState >= 2 && video.videoWidth > 0) {
        const scale = Math.min(1, FRAME_MAX_WIDTH / video.videoWidth);
        canvas.width = Math.round(video.videoWidth * scale);
        canvas.height = Math.round(video.videoHeight * scale);
        context.drawImage(video, 0, 0, canvas.width, canvas.height);
        const read = await decode.decode(context.getImageData(0, 0, canvas.width, canvas.height)).catch(() => null);
        if (read && !stopped) {
          stopCamera();
          say(`Read ${read.format.replace('_', '-').toUpperCase()}: ${read.text}`);
          retry.textContent = 'Scan another';
          retry.hidden = false;
          return resolve(read.text);
        }
      }
      timer = window.setTimeout(() => void tick(), FRAME_INTERVAL_MS);
    };
    void tick();
  }
  void start();
}
