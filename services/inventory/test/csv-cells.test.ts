/**
 * Unit tests of csv/cells.ts (docs/api/spreadsheets.md): RFC 4180 quoting, formula neutralisation of text
 * cells (never of numbers), and the imports' undoing of that neutralisation.
 */
import { expect } from 'chai';
import { CsvNumber, csvCell, csvLine, csvNumber, importedCell } from '../src/csv/cells';

describe('csv cells', () => {
  it('quotes commas, quotes, line breaks and edge spaces, and leaves plain text alone', () => {
    expect(csvCell('plain text')).to.equal('plain text');
    expect(csvCell('a,b')).to.equal('"a,b"');
    expect(csvCell('say "hi"')).to.equal('"say ""hi"""');
    expect(csvCell('two\nlines')).to.equal('"two\nlines"');
    expect(csvCell('cr\rhere')).to.equal('"cr\rhere"');
    expect(csvCell(' padded')).to.equal('" padded"');
    expect(csvCell('Ünïcødé ✓')).to.equal('Ünïcødé ✓');
  });

  it('writes a leading apostrophe before text that a spreadsheet would run as a formula', () => {
    for (const start of ['=', '+', '-', '@']) expect(csvCell(`${start}1+1`)).to.equal(`'${start}1+1`);
    expect(csvCell('\tSUM(A1)')).to.equal("'\tSUM(A1)");
    expect(csvCell('=HYPERLINK("x")')).to.equal('"\'=HYPERLINK(""x"")"');
    expect(csvCell('a=b')).to.equal('a=b');
  });

  it('writes numbers, booleans, dates and empty values as they are, never neutralised', () => {
    expect(csvCell(-5)).to.equal('-5');
    expect(csvCell(csvNumber('-2.50'))).to.equal('-2.50');
    expect(csvNumber(null)).to.equal(null);
    expect(csvNumber('3')).to.be.instanceOf(CsvNumber);
    expect(csvCell(true)).to.equal('true');
    expect(csvCell(null)).to.equal('');
    expect(csvCell(undefined)).to.equal('');
    expect(csvCell(new Date('2030-01-02T03:04:05.000Z'))).to.equal('2030-01-02T03:04:05.000Z');
    expect(csvLine(['a', 1, null, 'b,c'])).to.equal('a,1,,"b,c"\r\n');
  });

  it('reads a neutralised cell back as it was, and any other cell unchanged', () => {
    expect(importedCell("'=1+1")).to.equal('=1+1');
    expect(importedCell("'-5 degrees")).to.equal('-5 degrees');
    expect(importedCell("'quoted")).to.equal("'quoted");
    expect(importedCell("'")).to.equal("'");
    expect(importedCell('plain')).to.equal('plain');
  });
});
