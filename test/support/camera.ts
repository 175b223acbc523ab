/**
 * A fake camera for the scanning suite: pictures drawn here (a QR label with the qrcode package the QR
 * service prints with, an EAN-13 from support/barcodes.ts) written as a Y4M video, which Chromium plays as its
 * camera with `--use-fake-device-for-media-stream --use-file-for-fake-video-capture=<file>`.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import QRCode from 'qrcode';
import { Browser, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, FULL_CHROMIUM_PATH } from '@pi/tools/dist/test/chromium';
import { ean13Modules } from './barcodes';
import { ROOT } from './processes';

export const FRAME_WIDTH = 640;
export const FRAME_HEIGHT = 480;

/** A grey picture (one byte of luminance per pixel), white to start with. */
export interface Picture {
  width: number;
  height: number;
  luma: Uint8Array;
}

/** A white picture: a camera that sees no code. */
export function blankPicture(): Picture {
  return { width: FRAME_WIDTH, height: FRAME_HEIGHT, luma: new Uint8Array(FRAME_WIDTH * FRAME_HEIGHT).fill(255) };
}

function fillRect(p: Picture, x: number, y: number, w: number, h: number, value: number): void {
  for (let row = y; row < y + h; row++) p.luma.fill(value, row * p.width + x, row * p.width + x + w);
}

/** A QR label encoding `text`, centred, as black modules on white (with its quiet zone). */
export function qrPicture(text: string): Picture {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = qr.modules.size;
  const scale = Math.floor(Math.min(FRAME_WIDTH, FRAME_HEIGHT) / (size + 8));
  const p = blankPicture();
  const left = Math.floor((FRAME_WIDTH - size * scale) / 2);
  const top = Math.floor((FRAME_HEIGHT - size * scale) / 2);
  for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) if (qr.modules.get(r, c)) fillRect(p, left + c * scale, top + r * scale, scale, scale, 0);
  return p;
}

/** A printed label of `code`: the symbol of the code's public address (any host: the widget reads the path). */
export const labelPicture = (code: string): Picture => qrPicture(`http://localhost:8000/go/${code}/`);

/** The bars of an EAN-13, centred, 4 pixels a module, with quiet zones on both sides. */
export function ean13Picture(ean: string): Picture {
  const modules = ean13Modules(ean);
  const scale = 4;
  const p = blankPicture();
  const left = Math.floor((FRAME_WIDTH - modules.length * scale) / 2);
  const top = 90;
  for (let i = 0; i < modules.length; i++) if (modules[i] === '1') fillRect(p, left + i * scale, top, scale, 300, 0);
  return p;
}

/** The little of zxing-js (a dependency of the pages, web/package.json) that `zxingFindsQr` uses. */
interface Zxing {
  QRCodeReader: new () => { decode(bitmap: unknown, hints: Map<unknown, unknown>): { getText(): string } };
  BinaryBitmap: new (binarizer: unknown) => unknown;
  HybridBinarizer: new (source: unknown) => unknown;
  RGBLuminanceSource: new (luminance: Uint8ClampedArray, width: number, height: number) => unknown;
  DecodeHintType: { TRY_HARDER: unknown };
}

/**
 * Whether zxing-js's QR reader alone (the first reader of the widget's scan chunk,
 * web/src/widget/scan/script-readers.ts) finds the QR symbol in `picture`. Its detector misses some symbols
 * whatever their size (about one of our labels in twenty), which the chunk's second reader, jsQR, reads: the
 * scanning suite shows one of those to the camera.
 */
export function zxingFindsQr(picture: Picture): boolean {
  const zxing = createRequire(path.join(ROOT, 'web/package.json'))('@zxing/library') as Zxing;
  const source = new zxing.RGBLuminanceSource(new Uint8ClampedArray(picture.luma), picture.width, picture.height);
  try {
    new zxing.QRCodeReader().decode(new zxing.BinaryBitmap(new zxing.HybridBinarizer(source)), new Map([[zxing.DecodeHintType.TRY_HARDER, true]]));
    return true;
  } catch {
    return false;
  }
}

/** `picture` as a Y4M video (4:2:0, grey: the colour planes neutral) of a few identical frames; answers its path. */
export function writeY4m(picture: Picture, name: string): string {
  const { width, height, luma } = picture;
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), Buffer.from(luma), chroma]);
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-camera-')), `${name}.y4m`);
  fs.writeFileSync(file, Buffer.concat([header, frame, frame, frame]));
  return file;
}

/**
 * Chromium whose camera shows `videoFile` (permission granted without a prompt), or, with `refuse`, Chromium
 * whose permission prompts are all denied. Refusing takes the full browser (`FULL_CHROMIUM_PATH`): the headless
 * shell has no permission prompt, so there a camera not granted answers NotSupportedError, never the
 * NotAllowedError of a person who said no.
 */
export function launchWithCamera(options: { videoFile?: string; refuse?: boolean }): Promise<Browser> {
  const args = [...CHROMIUM_ARGS, '--use-fake-device-for-media-stream'];
  if (options.videoFile) args.push(`--use-file-for-fake-video-capture=${options.videoFile}`);
  args.push(options.refuse ? '--deny-permission-prompts' : '--use-fake-ui-for-media-stream');
  return chromium.launch({ executablePath: options.refuse ? FULL_CHROMIUM_PATH : CHROMIUM_PATH, headless: true, args });
}
