/**
 * PNG labels: the SVG label rendered by resvg, so both formats are the same drawing. The font comes from the
 * `dejavu-fonts-ttf` package and system fonts are never loaded, so the text renders the same on a machine
 * without any fonts installed.
 */
import { renderAsync } from '@resvg/resvg-js';
import { labelDocument } from './label-svg';
import { LABEL_FONT_FAMILY, LABEL_FONT_FILE, labelLayout } from './layout';

/** Pixels per QR module: whole pixels keep modules crisp; 12 makes even the smallest label ~350 px wide. */
export const PNG_PIXELS_PER_MODULE = 12;

/**
 * Renders an SVG to PNG `width` pixels wide, on white, with the label font only. Runs on libuv's thread
 * pool, so a render does not hold up other requests.
 */
export async function rasterizeSvg(svg: string, width: number): Promise<Buffer> {
  const image = await renderAsync(svg, {
    fitTo: { mode: 'width', value: width },
    background: '#ffffff',
    font: {
      loadSystemFonts: false,
      fontFiles: [LABEL_FONT_FILE],
      defaultFontFamily: LABEL_FONT_FAMILY,
      monospaceFamily: LABEL_FONT_FAMILY,
    },
    logLevel: 'off',
  });
  return image.asPng();
}

/** The label of `code`, whose symbol encodes `url`, as a PNG: `PNG_PIXELS_PER_MODULE` pixels per module. */
export function labelPng(url: string, code: string): Promise<Buffer> {
  const label = labelLayout(url, code);
  return rasterizeSvg(labelDocument(label), label.width * PNG_PIXELS_PER_MODULE);
}
