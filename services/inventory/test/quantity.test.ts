/** Unit tests of engine/quantity.ts: exact formatting of NUMERIC strings and the precision check. */
import { expect } from 'chai';
import { ValidationError } from '@pi/common';
import { countedQuantity, decimalPlaces, formatQuantity, positiveQuantity, signedQuantity, stockDisplay, toDecimal, toNumber } from '../src/engine/quantity';

describe('engine/quantity: formatQuantity', () => {
  const cases: Array<[string | number, number, string]> = [
    ['12.000000', 0, '12'],
    ['3.500000', 2, '3.50'],
    ['0.125000', 3, '0.125'],
    ['0.000000', 0, '0'],
    ['0', 2, '0.00'],
    ['7', 3, '7.000'],
    ['1000000000000.000000', 0, '1000000000000'],
    ['2.123456', 6, '2.123456'],
    ['-4.250000', 2, '-4.25'],
    ['-0.000000', 2, '0.00'],
    [12, 0, '12'],
    [3.5, 2, '3.50'],
    [0.125, 3, '0.125'],
    [0, 0, '0'],
  ];
  for (const [value, decimals, expected] of cases) {
    it(`formats ${JSON.stringify(value)} with ${decimals} decimals as "${expected}"`, () => {
      expect(formatQuantity(value, decimals)).to.equal(expected);
    });
  }

  it('never goes through floating point: a value a double cannot hold keeps every digit', () => {
    expect(formatQuantity('9007199254740993.000001', 6)).to.equal('9007199254740993.000001');
  });

  it('cuts extra digits instead of rounding (the database never holds more than the product allows)', () => {
    expect(formatQuantity('0.129000', 2)).to.equal('0.12');
  });
});

describe('engine/quantity: stockDisplay', () => {
  it('joins the formatted quantity and the unit: "12 pcs", "3.50 m", "0.125 kg", "0 pcs"', () => {
    expect(stockDisplay('12.000000', 0, 'pcs')).to.equal('12 pcs');
    expect(stockDisplay('3.500000', 2, 'm')).to.equal('3.50 m');
    expect(stockDisplay('0.125000', 3, 'kg')).to.equal('0.125 kg');
    expect(stockDisplay('0', 0, 'pcs')).to.equal('0 pcs');
  });

  it('shows no stock (null or undefined, e.g. a product never booked) as zero in the product precision', () => {
    expect(stockDisplay(null, 0, 'pcs')).to.equal('0 pcs');
    expect(stockDisplay(undefined, 2, 'm')).to.equal('0.00 m');
  });
});

describe('engine/quantity: decimalPlaces and toDecimal', () => {
  it('counts decimal places as JavaScript prints the number, exponent forms included', () => {
    expect(decimalPlaces(12)).to.equal(0);
    expect(decimalPlaces(3.5)).to.equal(1);
    expect(decimalPlaces(0.125)).to.equal(3);
    expect(decimalPlaces(1e-7)).to.equal(7);
    expect(decimalPlaces(1.5e-7)).to.equal(8);
    expect(decimalPlaces(1e21)).to.equal(0);
  });

  it('passes a quantity within the product precision on as a decimal string', () => {
    expect(toDecimal(12, 0)).to.equal('12');
    expect(toDecimal(3.5, 2)).to.equal('3.5');
    expect(toDecimal(0.000001, 6)).to.equal('0.000001');
  });

  it('refuses a fraction for a whole-unit product, naming the field', () => {
    expect(() => toDecimal(1.5, 0))
      .to.throw(ValidationError)
      .with.property('details')
      .that.deep.equals({ quantity: 'quantity must be a whole number for this product' });
  });

  it('refuses more decimal places than the product allows, naming the given field', () => {
    expect(() => toDecimal(0.125, 2, 'min_stock'))
      .to.throw(ValidationError)
      .with.property('details')
      .that.deep.equals({ min_stock: 'min_stock allows at most 2 decimal places for this product' });
  });

  it('turns NUMERIC strings into JSON numbers, and no value into 0', () => {
    expect(toNumber('3.500000')).to.equal(3.5);
    expect(toNumber(null)).to.equal(0);
    expect(toNumber(undefined)).to.equal(0);
  });
});

describe('engine/quantity: quantity schemas', () => {
  const ok = (schema: typeof positiveQuantity, value: unknown) => expect(schema.validate(value).error, String(value)).to.equal(undefined);
  const bad = (schema: typeof positiveQuantity, value: unknown) => expect(schema.validate(value).error, String(value)).not.to.equal(undefined);

  it('accepts positive numbers up to 1e12 and refuses zero, negatives, strings, NaN and infinities', () => {
    ok(positiveQuantity, 1);
    ok(positiveQuantity, 0.5);
    ok(positiveQuantity, 1e12);
    for (const value of [0, -1, '5', NaN, Infinity, 1e12 + 1, null]) bad(positiveQuantity, value);
  });

  it('accepts a signed quantity for move/ but never zero', () => {
    ok(signedQuantity, -3);
    ok(signedQuantity, 3);
    bad(signedQuantity, 0);
    bad(signedQuantity, '-3');
  });

  it('accepts a counted quantity of zero', () => {
    ok(countedQuantity, 0);
    bad(countedQuantity, -1);
  });
});
