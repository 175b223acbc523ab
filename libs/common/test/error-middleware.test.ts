import { expect } from 'chai';
import { DatabaseError, ForeignKeyConstraintError } from 'sequelize';
import { refuseBytesNotUtf8, toAppError } from '../src';

/** An error as the `pg` driver raises it (the fields PostgreSQL reports). */
const pgError = (code: string, constraint?: string) => Object.assign(new Error('from PostgreSQL'), { code, constraint, severity: 'ERROR' });

describe('toAppError and database bounds', () => {
  it('answers 409 balance_out_of_range naming quantity for the balance CHECK, raised through Sequelize or by pg directly', () => {
    for (const err of [new DatabaseError(pgError('23514', 'stock_balances_quantity_max') as any), pgError('23514', 'stock_balances_quantity_max')]) {
      const answer = toAppError(err);
      expect(answer?.status).to.equal(409);
      expect(answer?.code).to.equal('balance_out_of_range');
      expect(answer?.details).to.have.property('quantity');
    }
  });

  it('answers 400 value_out_of_range for a numeric overflow (22003)', () => {
    const answer = toAppError(new DatabaseError(pgError('22003') as any));
    expect(answer?.status).to.equal(400);
    expect(answer?.code).to.equal('value_out_of_range');
  });

  it('leaves other database errors (another CHECK, a syntax error) to the generic 500', () => {
    expect(toAppError(new DatabaseError(pgError('23514', 'stock_balances_quantity_check') as any))).to.equal(undefined);
    expect(toAppError(pgError('23514', 'constructor'))).to.equal(undefined);
    expect(toAppError(new DatabaseError(pgError('42601') as any))).to.equal(undefined);
  });

  it('answers 503 service_unavailable, nothing changed, where the database is read-only (25006), full (53100) or out of memory or slots (53200, 53400)', () => {
    for (const code of ['25006', '53100', '53200', '53400']) {
      for (const err of [new DatabaseError(pgError(code) as any), pgError(code)]) {
        const answer = toAppError(err);
        expect({ code, status: answer?.status, answer: answer?.code, message: answer?.message }).to.deep.equal({
          code,
          status: 503,
          answer: 'service_unavailable',
          message: 'The database is unavailable; nothing was changed. Try again shortly.',
        });
      }
    }
    // An I/O error or a serialization failure is not one of them.
    expect(toAppError(new DatabaseError(pgError('58030') as any))).to.equal(undefined);
    expect(toAppError(new DatabaseError(pgError('40001') as any))).to.equal(undefined);
  });

  it('answers 404 for a reference to a record deleted meanwhile (23503 on an insert), naming what, through Sequelize or pg', () => {
    const vanished = (table: string) =>
      Object.assign(pgError('23503', 'x_fkey'), { detail: `Key (product_id)=(9a3e0c1e-0000-4000-8000-000000000000) is not present in table "${table}".` });
    for (const err of [new ForeignKeyConstraintError({ parent: vanished('product_models') as any }), vanished('product_models')]) {
      const answer = toAppError(err);
      expect(answer?.status).to.equal(404);
      expect(answer?.code).to.equal('not_found');
      expect(answer?.message).to.equal('Product not found.');
    }
    expect(toAppError(vanished('notification_channels'))?.message).to.equal('Channel not found.');
    expect(toAppError(vanished('constructor'))?.message).to.equal('Record not found.');
    // A delete refused because rows still reference the record is answered where it is made, never here.
    const stillReferenced = Object.assign(pgError('23503', 'x_fkey'), { detail: 'Key (id)=(1) is still referenced from table "stock_movements".' });
    expect(toAppError(stillReferenced)).to.equal(undefined);
  });

  it('answers 400 naming path when the router cannot percent-decode a path parameter', () => {
    const err = Object.assign(new URIError("Failed to decode param '%'"), { status: 400 });
    const answer = toAppError(err);
    expect(answer?.status).to.equal(400);
    expect(answer?.details).to.have.property('path');
  });
});

describe('text bodies with bytes that are not UTF-8', () => {
  const refusal = (body: Buffer, charset: string) => {
    try {
      refuseBytesNotUtf8(undefined, undefined, body, charset);
      return undefined;
    } catch (err) {
      return err;
    }
  };

  it('refuses "Café" in Latin-1 read as UTF-8, and answers it 400 validation_error naming body', () => {
    const err = refusal(Buffer.from('{"name":"Caf\xe9"}', 'latin1'), 'utf-8');
    const answer = toAppError(err);
    expect(answer?.status).to.equal(400);
    expect(answer?.code).to.equal('validation_error');
    expect(answer?.details).to.deep.equal({ body: 'is not UTF-8 text' });
  });

  it('refuses an overlong encoding and an encoded surrogate, which decoders would turn into U+FFFD', () => {
    expect(refusal(Buffer.from([0x22, 0xc0, 0xaf, 0x22]), 'utf-8')).to.be.instanceOf(Error);
    expect(refusal(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), 'utf-8')).to.be.instanceOf(Error);
  });

  it('takes UTF-8 with or without a byte order mark, and a body whose Content-Type names another charset', () => {
    expect(refusal(Buffer.from('\ufeffname\r\nCafé 📦\r\n', 'utf8'), 'utf-8')).to.equal(undefined);
    expect(refusal(Buffer.from('name\r\nCaf\xe9\r\n', 'latin1'), 'iso-8859-1')).to.equal(undefined);
  });
});
