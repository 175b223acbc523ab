/** Batches named by a booking: an existing one by id, or one found or created by code on an addition. */
import { QueryTypes } from 'sequelize';
import { Batch, ConflictError, ProductModel, ValidationError, findOwned } from '@pi/common';
import type { BookingContext, Tx } from './context';

export interface NewBatchRef {
  code: string;
  expiration_date?: string | null;
}

/** A batch of this product, by id; another company's → 403, another product's → 400. */
export async function batchOfProduct(ctx: BookingContext, tx: Tx, product: ProductModel, batchId: string): Promise<Batch> {
  const batch = await findOwned(Batch, batchId, ctx.identity.companyId, { transaction: tx, what: 'Batch' });
  if (batch.productId !== product.id) throw new ValidationError({ batch_id: 'batch belongs to another product' });
  return batch;
}

/**
 * The batch with this code, created when new. Codes are unique per company by constraint, so concurrent
 * additions of a new code create it once. An existing code must be this product's and, when a date is
 * given, have that expiration date.
 */
export async function findOrCreateBatch(ctx: BookingContext, tx: Tx, product: ProductModel, ref: NewBatchRef): Promise<Batch> {
  await ctx.sequelize.query(
    `INSERT INTO batches (company_id, product_id, code, expiration_date) VALUES ($1, $2, $3, $4)
     ON CONFLICT (company_id, code) DO NOTHING`,
    { bind: [ctx.identity.companyId, product.id, ref.code, ref.expiration_date ?? null], transaction: tx, type: QueryTypes.INSERT },
  );
  const batch = await Batch.findOne({ where: { companyId: ctx.identity.companyId, code: ref.code }, transaction: tx });
  if (!batch) throw new Error('batch vanished after insert');
  if (batch.productId !== product.id) {
    throw new ConflictError('already_exists', 'This batch code is used by another product.', { 'batch.code': 'is used by another product' });
  }
  if (ref.expiration_date && batch.expirationDate !== ref.expiration_date) {
    throw new ConflictError('batch_mismatch', `Batch ${ref.code} exists with another expiration date.`, {
      'batch.expiration_date': `batch ${ref.code} expires on ${batch.expirationDate ?? 'no date'}`,
    });
  }
  return batch;
}
