/**
 * The fallback decoder (docs/api/barcodes-and-camera.md): zxing-js (@zxing/library) reading one camera frame
 * for our QR labels and product barcodes. This module is only ever loaded by a dynamic `import()` when Scan is
 * pressed in a browser without `BarcodeDetector`: esbuild puts it (and zxing) in a chunk of its own, so the
 * widget's main script stays light.
 */
import { BarcodeFormat, BinaryBitmap, DecodeHintType, HybridBinarizer, MultiFormatReader, RGBLuminanceSource } from '@zxing/library';
import type { FrameDecoder } from './decoder.js';

const FORMAT_NAMES = new Map<BarcodeFormat, string>([
  [BarcodeFormat.QR_CODE, 'qr_code'],
  [BarcodeFormat.EAN_13, 'ean_13'],
  [BarcodeFormat.EAN_8, 'ean_8'],
  [BarcodeFormat.UPC_A, 'upc_a'],
  [BarcodeFormat.CODE_128, 'code_128'],
]);

export function zxingDecoder(): FrameDecoder {
  const hints = new Map<DecodeHintType, unknown>([
    [DecodeHintType.POSSIBLE_FORMATS, [...FORMAT_NAMES.keys()]],
    [DecodeHintType.TRY_HARDER, true],
  ]);
  const reader = new MultiFormatReader();
  reader.setHints(hints);
  // eslint-disable-next-line @typescript-eslint/require-await -- a FrameDecoder answers a promise (BarcodeDetector is async); zxing decodes at once
  return async (frame) => {
    const { data, width, height } = frame;
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
