/** Direct reads of stored QR codes, for tests that check what a request did (or did not) change. */
import { count, row } from './sql';

/** Every column of a code that configuring or locking it could touch. */
export const readCode = (code: string) =>
  row('SELECT company_id, status, target_type, target_id, product_model_id, configured_at, locked_at, updated_at FROM qr_codes WHERE code = $1', [code]);

export const codesOf = (company: { id: string }) => count('SELECT count(*) FROM qr_codes WHERE company_id = $1', [company.id]);
