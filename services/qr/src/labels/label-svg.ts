/** Labels as SVG: one label, or an A4 sheet of many with its pages stacked top to bottom. */
import { LABEL_FONT_FAMILY, LabelLayout, SHEET, fitInCell, labelLayout, sheetCell } from './layout';

/** Width of one label printed from its own SVG (the sheet scales labels to its cells). */
export const LABEL_WIDTH_MM = 50;

/** Numbers in the SVG: at most three decimals. */
const fmt = (n: number) => String(Math.round(n * 1000) / 1000);

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A label's elements, in module units from its top left corner. */
function labelElements(label: LabelLayout): string {
  const d = label.runs.map(([x, y, n]) => `M${x} ${y}h${n}v1h-${n}z`).join('');
  return (
    `<rect width="${label.width}" height="${fmt(label.height)}" fill="#fff"/>` +
    `<path d="${d}" fill="#000" shape-rendering="crispEdges"/>` +
    `<text x="${label.width / 2}" y="${fmt(label.baseline)}" text-anchor="middle" font-family="'${LABEL_FONT_FAMILY}', monospace" ` +
    `font-weight="bold" font-size="${fmt(label.fontSize)}" fill="#000">${escapeXml(label.code)}</text>`
  );
}

/** A label as a standalone SVG document, `LABEL_WIDTH_MM` wide. */
export function labelDocument(label: LabelLayout): string {
  const mm = LABEL_WIDTH_MM / label.width;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${fmt(label.width * mm)}mm" height="${fmt(label.height * mm)}mm" ` +
    `viewBox="0 0 ${label.width} ${fmt(label.height)}">` +
    `<title>QR code ${escapeXml(label.code)}</title>${labelElements(label)}</svg>\n`
  );
}

/** The label of `code`, whose symbol encodes `url`, as an SVG document. */
export function labelSvg(url: string, code: string): string {
  return labelDocument(labelLayout(url, code));
}

/** Labels for `labels` (url and code each, in order) on A4 pages, as one SVG document in mm. */
export function sheetSvg(labels: { url: string; code: string }[]): string {
  const pages = Math.max(1, Math.ceil(labels.length / (SHEET.columns * SHEET.rows)));
  const height = pages * SHEET.pageHeight;
  let body = `<rect width="${SHEET.pageWidth}" height="${height}" fill="#fff"/>`;
  for (let page = 1; page < pages; page++) {
    const y = page * SHEET.pageHeight;
    body += `<line x1="0" x2="${SHEET.pageWidth}" y1="${y}" y2="${y}" stroke="#ddd" stroke-width="0.2"/>`;
  }
  labels.forEach(({ url, code }, i) => {
    const label = labelLayout(url, code);
    const cell = sheetCell(i);
    const top = cell.page * SHEET.pageHeight;
    const at = fitInCell(label, cell);
    body +=
      `<rect x="${fmt(cell.x)}" y="${fmt(top + cell.y)}" width="${fmt(cell.width)}" height="${fmt(cell.height)}" ` +
      `fill="none" stroke="#ccc" stroke-width="0.2" stroke-dasharray="1 1"/>` +
      `<g transform="translate(${fmt(at.x)} ${fmt(top + at.y)}) scale(${Math.round(at.scale * 1e5) / 1e5})">${labelElements(label)}</g>`;
  });
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SHEET.pageWidth}mm" height="${height}mm" viewBox="0 0 ${SHEET.pageWidth} ${height}">` +
    `<title>QR code labels (${labels.length})</title>${body}</svg>\n`
  );
}
