/**
 * Printable QR labels through the gateway: the PNG and SVG label of one code, the A4 sheet of many, and
 * company isolation. Symbols are decoded back to their URL with jsQR, as a phone would read them; SVGs are
 * rendered to pixels with the service's own renderer (fonts from npm, never the system's).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { rasterizeSvg } from '@pi/qr/dist/src/labels/label-png';
import { SHEET, sheetCell } from '@pi/qr/dist/src/labels/layout';
import { get } from '../../support/api';
import { expectAccessDenied, expectErrorShape, expectNotFound, expectValidationError } from '../../support/assertions';
import { TestCompany, buildCompany, generateCodes } from '../../support/builders';
import { system } from '../../support/hooks';

const scanUrlOf = (code: string) => `http://localhost:8000/go/${code}/`;
/** A well-formed code that no company has (generated ones are 12 characters). */
const nowhere = () => `nowhere_${randomBytes(6).toString('hex')}`;

/** GET with the raw bytes of the answer (the JSON client reads text, which spoils PNGs). */
async function fetchBytes(path: string, token: string) {
  const res = await fetch(`${system().url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** A decoded PNG, with its pixels' darkness and crops. */
class Picture {
  constructor(
    readonly width: number,
    readonly height: number,
    readonly rgba: Buffer,
  ) {}

  static fromPng(bytes: Buffer) {
    const png = PNG.sync.read(bytes);
    return new Picture(png.width, png.height, png.data);
  }

  isDark(x: number, y: number): boolean {
    const i = (y * this.width + x) * 4;
    return 0.299 * this.rgba[i] + 0.587 * this.rgba[i + 1] + 0.114 * this.rgba[i + 2] < 128;
  }

  /** The dark pixels of a rectangle [x0, x1) × [y0, y1): how many, and which columns hold any. */
  darkIn(x0: number, y0: number, x1: number, y1: number) {
    let count = 0;
    let left = Infinity;
    let right = -Infinity;
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        if (!this.isDark(x, y)) continue;
        count++;
        left = Math.min(left, x);
        right = Math.max(right, x);
      }
    }
    return { count, left, right };
  }

  crop(x: number, y: number, width: number, height: number): Picture {
    const out = Buffer.alloc(width * height * 4);
    for (let row = 0; row < height; row++) this.rgba.copy(out, row * width * 4, ((y + row) * this.width + x) * 4, ((y + row) * this.width + x + width) * 4);
    return new Picture(width, height, out);
  }

  /** What a QR reader finds in the picture. */
  decode() {
    return jsQR(new Uint8ClampedArray(this.rgba.buffer, this.rgba.byteOffset, this.rgba.length), this.width, this.height);
  }
}

describe('QR code labels: GET /api/v1/qr-codes/{code}/label.png|.svg and labels.svg|.pdf', () => {
  let company: TestCompany;
  let codes: string[];

  before(async () => {
    company = await buildCompany();
    codes = await generateCodes(company, 2);
  });

  it("answers a PNG label whose symbol decodes to the code's scan URL, with a quiet zone and the code in text below", async () => {
    const [code] = codes;
    const res = await fetchBytes(`/api/v1/qr-codes/${code}/label.png`, company.token);
    expect(res.status, res.bytes.toString()).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/png');
    expect(res.headers.get('cache-control')).to.equal('private, max-age=300');
    const picture = Picture.fromPng(res.bytes);
    expect(picture.width).to.be.at.least(300);

    const found = picture.decode();
    expect(found, 'a QR symbol in the PNG').to.not.equal(null);
    expect(found!.data).to.equal(scanUrlOf(code));

    // The symbol with its quiet zone is the square on top: 4 blank modules on every side of it.
    const side = picture.width;
    const modules = 17 + 4 * found!.version + 8;
    const pixelsPerModule = side / modules;
    const quiet = Math.floor(4 * pixelsPerModule);
    expect(picture.darkIn(0, 0, side, quiet).count, 'top quiet zone').to.equal(0);
    expect(picture.darkIn(0, 0, quiet, side).count, 'left quiet zone').to.equal(0);
    expect(picture.darkIn(side - quiet, 0, side, side).count, 'right quiet zone').to.equal(0);
    expect(picture.darkIn(0, side - quiet, side, side).count, 'bottom quiet zone').to.equal(0);
    expect(picture.darkIn(quiet, quiet, side - quiet, side - quiet).count, 'modules').to.be.greaterThan(0);

    // Below the square there is only the code's text: dark, readable-sized, spread across and centred.
    expect(picture.height - side, 'room for the text').to.be.at.least(0.1 * side);
    const text = picture.darkIn(0, side, picture.width, picture.height);
    const band = picture.width * (picture.height - side);
    expect(text.count / band, 'ink in the text area').to.be.within(0.05, 0.6);
    expect(text.right - text.left, 'text width').to.be.at.least(0.6 * picture.width);
    expect(Math.abs(text.left - (picture.width - 1 - text.right)), 'text centred').to.be.at.most(0.05 * picture.width);

    // Another code's label differs exactly where its text differs, not only in the symbol.
    const other = Picture.fromPng((await fetchBytes(`/api/v1/qr-codes/${codes[1]}/label.png`, company.token)).bytes);
    expect(other.crop(0, side, side, picture.height - side).rgba.equals(picture.crop(0, side, side, picture.height - side).rgba)).to.equal(false);
  });

  it('answers an SVG label: the code as monospace text under a symbol that renders and decodes to the scan URL', async () => {
    const [code] = codes;
    const res = await get(`/api/v1/qr-codes/${code}/label.svg`, { token: company.token });
    expect(res.status, String(res.body)).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    expect(res.headers.get('cache-control')).to.equal('private, max-age=300');
    const svg: string = res.body;
    expect(svg).to.match(/^<\?xml[^>]*>\s*<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).to.match(new RegExp(`<text [^>]*font-family="[^"]*monospace"[^>]*>${code}</text>`));
    expect(svg).to.not.include('<script');

    const picture = Picture.fromPng(await rasterizeSvg(svg, 600));
    expect(picture.decode()?.data).to.equal(scanUrlOf(code));
    expect(picture.darkIn(0, picture.width, picture.width, picture.height).count, 'rendered text').to.be.greaterThan(0);
  });

  it('prints an A4 sheet holding every requested code in order, once each, whose labels decode on page 1 and page 2', async () => {
    const many = await generateCodes(company, 22);
    const asked = [...many, many[0]];
    const res = await get(`/api/v1/qr-codes/labels.svg?codes=${asked.join(',')}`, { token: company.token });
    expect(res.status, String(res.body)).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    const svg: string = res.body;
    expect(svg).to.include('width="210mm"');
    const texts = [...svg.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(texts).to.deep.equal(many);

    const pagePixels = 1240; // 150 dpi across A4
    const picture = Picture.fromPng(await rasterizeSvg(svg, pagePixels));
    const pxPerMm = pagePixels / 210;
    expect(picture.height / picture.width).to.be.closeTo((2 * SHEET.pageHeight) / SHEET.pageWidth, 0.01);
    for (const index of [0, 21]) {
      const cell = sheetCell(index);
      const top = cell.page * SHEET.pageHeight + cell.y;
      const label = picture.crop(Math.round(cell.x * pxPerMm), Math.round(top * pxPerMm), Math.floor(cell.width * pxPerMm), Math.floor(cell.height * pxPerMm));
      expect(label.decode()?.data, `label ${index}`).to.equal(scanUrlOf(many[index]));
    }
    expect(sheetCell(21).page).to.equal(1);
  });

  it('prints the same sheet as an A4 PDF, a page per 20 labels, each label linking to its scan URL in order', async () => {
    const many = await generateCodes(company, 21);
    const res = await fetchBytes(`/api/v1/qr-codes/labels.pdf?codes=${many.join(',')}`, company.token);
    expect(res.status, res.bytes.toString()).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pdf');
    expect(res.headers.get('cache-control')).to.equal('private, max-age=300');
    const pdf = res.bytes.toString('latin1');
    expect(pdf.startsWith('%PDF-')).to.equal(true);
    expect(pdf.trimEnd().endsWith('%%EOF')).to.equal(true);
    expect(pdf.match(/\/Type \/Page\b(?!s)/g), 'pages').to.have.length(2);
    expect(pdf.match(/\/MediaBox \[0 0 595\.28 841\.89\]/g), 'A4 pages').to.have.length(2);
    const links = [...pdf.matchAll(/\/URI \(([^)]*)\)/g)].map((m) => m[1]);
    expect(links).to.deep.equal(many.map(scanUrlOf));
    expect(pdf)
      .to.include('/FontName /')
      .and.match(/\/FontFile2 \d+ 0 R/);
  });

  it("prints the sheet of the company's codes in a status (newest first) instead of a list, and 404 when there are none", async () => {
    const own = await buildCompany();
    const virgin = await generateCodes(own, 3);
    const res = await get('/api/v1/qr-codes/labels.svg?status=VIRGIN', { token: own.token });
    expect(res.status, String(res.body)).to.equal(200);
    const texts = [...String(res.body).matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(texts).to.have.members(virgin);

    expectNotFound(await get('/api/v1/qr-codes/labels.svg?status=LOCKED', { token: own.token }));
    expectNotFound(await get('/api/v1/qr-codes/labels.svg?status=VIRGIN&page=2', { token: own.token }));
  });

  it('answers 403 access_denied to another company for a label (SVG and PNG) and for a sheet holding one of its codes', async () => {
    const other = await buildCompany();
    const [theirs] = await generateCodes(other, 1);
    const [code] = codes;
    expectAccessDenied(await get(`/api/v1/qr-codes/${code}/label.svg`, { token: other.token }), [company.id, company.name]);
    expectAccessDenied(await get(`/api/v1/qr-codes/${code}/label.png`, { token: other.token }), [company.id, company.name]);
    expectAccessDenied(await get(`/api/v1/qr-codes/labels.svg?codes=${theirs},${code}`, { token: other.token }), [company.id, company.name]);
    expectAccessDenied(await get(`/api/v1/qr-codes/labels.pdf?codes=${code}`, { token: other.token }), [company.id, company.name]);
    // Its own sheet still prints.
    expect((await get(`/api/v1/qr-codes/labels.svg?codes=${theirs}`, { token: other.token })).status).to.equal(200);
  });

  it('answers 401 without credentials and 404 not_found for a code that exists nowhere, alone or on a sheet', async () => {
    expectErrorShape(await get(`/api/v1/qr-codes/${codes[0]}/label.png`), 401, 'authentication_failed');
    expectNotFound(await get(`/api/v1/qr-codes/${nowhere()}/label.svg`, { token: company.token }));
    expectNotFound(await get(`/api/v1/qr-codes/${nowhere()}/label.png`, { token: company.token }));
    expectNotFound(await get(`/api/v1/qr-codes/labels.svg?codes=${codes[0]},${nowhere()}`, { token: company.token }));
    expectNotFound(await get(`/api/v1/qr-codes/labels.pdf?codes=${nowhere()}`, { token: company.token }));
  });

  it('answers 400 naming code for a malformed code, and naming codes when it is missing, empty, malformed or over 200', async () => {
    for (const bad of ['abc', 'x'.repeat(65), 'has.dot.in.it', '%20spaced%20out']) {
      expectValidationError(await get(`/api/v1/qr-codes/${bad}/label.svg`, { token: company.token }), 'code');
      expectValidationError(await get(`/api/v1/qr-codes/${bad}/label.png`, { token: company.token }), 'code');
    }
    const sheet = (query: string) => get(`/api/v1/qr-codes/labels.svg${query}`, { token: company.token });
    const wellFormed = Array.from({ length: 201 }, () => nowhere());
    for (const query of [
      '',
      '?codes=',
      `?codes=${codes[0]},`,
      `?codes=${codes[0]},,${codes[1]}`,
      `?codes=${codes[0]},abc`,
      `?codes=${codes[0]}&codes=${codes[1]}`,
      `?codes=${wellFormed.join(',')}`,
      `?codes=${codes[0]}&status=VIRGIN`,
    ]) {
      expectValidationError(await sheet(query), 'codes');
    }
    expect((await sheet(`?codes=${wellFormed.slice(0, 200).join(',')}`)).status, '200 codes are allowed').to.equal(404);
    expectValidationError(await sheet('?status=SOLD'), 'status');
    expectValidationError(await get('/api/v1/qr-codes/labels.pdf?codes=abc', { token: company.token }), 'codes');
    expectValidationError(await get('/api/v1/qr-codes/labels.pdf', { token: company.token }), 'codes');
    expectValidationError(await sheet(`?codes=${codes[0]}&page=2`), 'page');
  });
});
