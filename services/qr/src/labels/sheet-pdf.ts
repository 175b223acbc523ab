/**
 * Label sheets as PDF, the format that prints page by page at true size: the same A4 grid and label geometry
 * as the SVG sheet, drawn by pdfkit with the label font embedded (from the `dejavu-fonts-ttf` package). Each
 * label also links to its scan URL, so clicking it on screen does what scanning it does.
 *
 * pdfkit is loaded on the first sheet, not at start: loading it was about a quarter of the service's start-up
 * CPU (docs/operations/benchmarks.md, "Start-up"), and most QR processes never print a sheet.
 */
import type PDFDocumentClass from 'pdfkit';
import { LABEL_FONT_FILE, fitInCell, labelLayout, LABELS_PER_PAGE, sheetCell } from './layout';

const PT_PER_MM = 72 / 25.4;

/** Labels for `labels` (url and code each, in order), `LABELS_PER_PAGE` an A4 page. */
export function sheetPdf(labels: { url: string; code: string }[]): Promise<Buffer> {
  // Node keeps the module once required: only the first sheet loads it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start (above)
  const PDFDocument = require('pdfkit') as typeof PDFDocumentClass;
  const doc = new PDFDocument({
    size: 'A4',
    margin: 0,
    autoFirstPage: false,
    info: { Title: `QR code labels (${labels.length})`, Creator: 'pi-inventory' },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont('label', LABEL_FONT_FILE);

  labels.forEach(({ url, code }, i) => {
    if (i % LABELS_PER_PAGE === 0) doc.addPage();
    const label = labelLayout(url, code);
    const cell = sheetCell(i);
    doc
      .save()
      .lineWidth(0.2 * PT_PER_MM)
      .dash(PT_PER_MM, { space: PT_PER_MM })
      .strokeColor('#cccccc')
      .rect(cell.x * PT_PER_MM, cell.y * PT_PER_MM, cell.width * PT_PER_MM, cell.height * PT_PER_MM)
      .stroke()
      .restore();

    const at = fitInCell(label, cell);
    const unit = at.scale * PT_PER_MM;
    const left = at.x * PT_PER_MM;
    const top = at.y * PT_PER_MM;
    for (const [x, y, n] of label.runs) doc.rect(left + x * unit, top + y * unit, n * unit, unit);
    doc.fillColor('#000000').fill();
    doc
      .font('label')
      .fontSize(label.fontSize * unit)
      .text(code, left, top + label.baseline * unit, { width: label.width * unit, align: 'center', lineBreak: false, baseline: 'alphabetic' });
    doc.link(left, top, label.width * unit, label.height * unit, url);
  });
  doc.end();
  return done;
}
