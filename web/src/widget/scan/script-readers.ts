/**
 * The fallback decoder (docs/api/barcodes-and-camera.md, "Decoding"), for browsers without `BarcodeDetector`:
 * zxing-js (@zxing/library) reads product barcodes and QR labels in a camera frame, and jsQR reads the QR
 * labels zxing-js does not find. Its QR detector takes a wrong finder pattern in some symbols, whatever their
 * size or position (zxing/zxing#1763): about one of our labels in twenty, always the same ones, so a steady
 * camera on such a label never read it. This module is only ever loaded by a dynamic `import()` when Scan is
 * pressed: esbuild puts it (with both libraries) in a chunk of its own, so the widget's main script stays light.
 */
import { BarcodeFormat, BinaryBitmap, DecodeHintType, HybridBinarizer, MultiFormatReader, RGBLuminanceSource } from '@zxing/library';
import jsQR from 'jsqr';
import type { FrameDecoder, Read } from './decoder.js';

const FORMAT_NAMES = new Map<BarcodeFormat, string>([
  [BarcodeFormat.QR_CODE, 'qr_code'],
  [BarcodeFormat.EAN_13, 'ean_13'],
  [BarcodeFormat.EAN_8, 'ean_8'],
  [BarcodeFormat.UPC_A, 'upc_a'],
  [BarcodeFormat.CODE_128, 'code_128'],
]);

function zxingReader(): (frame: ImageData) => Read | null {
  const hints = new Map<DecodeHintType, unknown>([
    [DecodeHintType.POSSIBLE_FORMATS, [...FORMAT_NAMES.keys()]],
    [DecodeHintType.TRY_HARDER, true],
  ]);
  const reader = new MultiFormatReader();
  reader.setHints(hints);
  return ({ data, width, height }) => {
    // Luminance of each pixel (ITU-R 601 weights), which is what zxing reads.
    const luminance = new Uint8ClampedArray(width * height);
    for (let i = 0, p = 0; p < luminance.length; i += 4, p++) luminance[p] = (data[i] * 299 + data[i + 1] * 587 + data[i + 2] * 114) / 1000;
    try {
      const result = reader.decodeWithState(new BinaryBitmap(new HybridBinarizer(new RGBLuminanceSource(luminance, width, height))));
      return { text: result.getText(), format: FORMAT_NAMES.get(result.getBarcodeFormat()) ?? 'unknown' };
    } catch {
      return null; // nothing readable in this frame (zxing throws NotFound, Checksum and Format exceptions)
    } finally {
      reader.reset();
    }
  };
}

/** A QR symbol in the frame by jsQR, dark on light only as our labels are printed (trying both is twice the work). */
function jsQrReader(frame: ImageData): Read | null {
  const found = jsQR(frame.data, frame.width, frame.height, { inversionAttempts: 'dontInvert' });
  return found ? { text: found.data, format: 'qr_code' } : null;
}

export function scriptDecoder(): FrameDecoder {
  const zxing = zxingReader();
  // eslint-disable-next-line @typescript-eslint/require-await -- a FrameDecoder answers a promise (BarcodeDetector is async); these decode at once
  return async (frame) => zxing(frame) ?? jsQrReader(frame);
}
