/**
 * The geometry of a printable QR label, shared by the SVG, PNG and PDF outputs: the symbol of a code's scan
 * URL inside its quiet zone, and the code in large monospace text below it, so that a person can read a label
 * whose symbol no longer scans. Measured in module units (one unit = one QR module), so modules land on whole
 * pixels when a label is rendered at a whole number of pixels per module. Also where labels go on A4 sheets.
 */
import QRCode from 'qrcode';

/** M recovers ~15% damage: the usual choice for URLs on printed labels, keeping modules large. */
export const ERROR_CORRECTION = 'M';
/** The blank margin the QR standard asks for around the symbol, in modules. */
export const QUIET_ZONE = 4;
/** The family the text is set in; renderers load it from the `dejavu-fonts-ttf` package, never the system. */
export const LABEL_FONT_FAMILY = 'DejaVu Sans Mono';
/** The TrueType file of that family, in bold (shipped inside the npm package, no download). */
export const LABEL_FONT_FILE = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansMono-Bold.ttf');

/** Advance width of a DejaVu Sans Mono glyph, in em (1233/2048). */
const GLYPH_ADVANCE_EM = 0.602;
/** Largest text size, in modules; long codes get smaller text so that they fit the symbol's width. */
const MAX_FONT_SIZE = 4.8;

/** One label, in module units. */
export interface LabelLayout {
  code: string;
  /** Width of the label: the symbol's side with its quiet zones. */
  width: number;
  height: number;
  /** Dark modules as horizontal runs `[x, y, length]`, quiet zone included in x and y. */
  runs: [number, number, number][];
  /** The text: centred on the label, baseline at `baseline`. */
  fontSize: number;
  baseline: number;
}

/** The label of `code`, whose symbol encodes `url`. */
export function labelLayout(url: string, code: string): LabelLayout {
  const { size, data } = QRCode.create(url, { errorCorrectionLevel: ERROR_CORRECTION }).modules;
  const runs: [number, number, number][] = [];
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size;) {
      if (!data[row * size + col]) {
        col++;
        continue;
      }
      let run = 1;
      while (col + run < size && data[row * size + col + run]) run++;
      runs.push([col + QUIET_ZONE, row + QUIET_ZONE, run]);
      col += run;
    }
  }
  const width = size + 2 * QUIET_ZONE;
  const fontSize = Math.min(MAX_FONT_SIZE, (width - 2) / (code.length * GLYPH_ADVANCE_EM));
  // Ascenders and the dots of i and j reach ~0.8 em above the baseline: the text starts below the quiet zone.
  const baseline = width + fontSize;
  return { code, width, height: baseline + 0.3 * fontSize + 2, runs, fontSize, baseline };
}

/** A4 sheets in mm: 4 × 5 labels a page, each in a cell outlined as a cutting guide. */
export const SHEET = { pageWidth: 210, pageHeight: 297, margin: 10, columns: 4, rows: 5, padding: 2.5 } as const;
export const LABELS_PER_PAGE = SHEET.columns * SHEET.rows;
/** Most labels on one sheet request (10 pages). */
export const MAX_SHEET_LABELS = 200;

/** The cell of the `index`-th label of a sheet: its page, and its box in mm from that page's top left corner. */
export function sheetCell(index: number) {
  const width = (SHEET.pageWidth - 2 * SHEET.margin) / SHEET.columns;
  const height = (SHEET.pageHeight - 2 * SHEET.margin) / SHEET.rows;
  const slot = index % LABELS_PER_PAGE;
  return {
    page: Math.floor(index / LABELS_PER_PAGE),
    x: SHEET.margin + (slot % SHEET.columns) * width,
    y: SHEET.margin + Math.floor(slot / SHEET.columns) * height,
    width,
    height,
  };
}

/** Where a label of `layout`'s proportions sits inside `cell` (padded, centred, scaled to fit), in mm. */
export function fitInCell(layout: LabelLayout, cell: { x: number; y: number; width: number; height: number }) {
  const p = SHEET.padding;
  const scale = Math.min((cell.width - 2 * p) / layout.width, (cell.height - 2 * p) / layout.height);
  return {
    x: cell.x + (cell.width - layout.width * scale) / 2,
    y: cell.y + (cell.height - layout.height * scale) / 2,
    scale,
  };
}
