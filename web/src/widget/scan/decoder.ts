/**
 * Which decoder reads the camera's frames (docs/api/barcodes-and-camera.md): the browser's own
 * `BarcodeDetector` where it exists and knows our formats (Chrome on Android and macOS, Safari), otherwise
 * zxing-js with jsQR (script-readers.ts), fetched only now (a dynamic import: its own chunk, never part of the
 * widget's main script).
 */

/** What a frame showed: the text and the symbology (`qr_code`, `ean_13`, `ean_8`, `upc_a`, `code_128`). */
export interface Read {
  text: string;
  format: string;
}

export type FrameDecoder = (frame: ImageData) => Promise<Read | null>;

/** The formats the widget reads: our QR labels and product barcodes. */
export const FORMATS = ['qr_code', 'ean_13', 'ean_8', 'upc_a', 'code_128'];

interface DetectedBarcode {
  rawValue: string;
  format: string;
}
interface BarcodeDetectorLike {
  detect(source: ImageData): Promise<DetectedBarcode[]>;
}
interface BarcodeDetectorClass {
  new (options: { formats: string[] }): BarcodeDetectorLike;
  getSupportedFormats(): Promise<string[]>;
}

async function nativeDecoder(): Promise<FrameDecoder | null> {
  const Detector = (globalThis as { BarcodeDetector?: BarcodeDetectorClass }).BarcodeDetector;
  if (!Detector) return null;
  try {
    const supported = await Detector.getSupportedFormats();
    const formats = FORMATS.filter((f) => supported.includes(f));
    if (!formats.includes('qr_code')) return null;
    const detector = new Detector({ formats });
    return async (frame) => {
      const [found] = await detector.detect(frame);
      return found ? { text: found.rawValue, format: found.format } : null;
    };
  } catch {
    return null; // present but unusable (no platform support behind it)
  }
}

/** The decoder and its name (`BarcodeDetector` or `zxing+jsqr`), for the page to say what reads. */
export async function loadDecoder(): Promise<{ decode: FrameDecoder; name: string }> {
  const native = await nativeDecoder();
  if (native) return { decode: native, name: 'BarcodeDetector' };
  const { scriptDecoder } = await import('./script-readers.js');
  return { decode: scriptDecoder(), name: 'zxing+jsqr' };
}
