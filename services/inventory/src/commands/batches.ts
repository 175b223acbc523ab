/**
 * Batches (lots) of BATCH products. A batch is created here (stock 0) or by a booking that names a new
 * `batch: {code, expiration_date}`; its remaining stock is the sum of the balance rows that name it, written
 * only by the ledger. Codes are unique per company by database constraint.
 */
import { QueryTypes } from 'sequelize';
import type { Transaction } from 'sequelize';
import {
  Batch,
  Identity,
  OrderTerm,
  PageRequest,
  ProductModel,
  ValidationError,
  findOwned,
  likePattern,
  orderBySql,
  pageWindow,
  rethrowAlreadyExists,
} from '@pi/common';
import type { InventoryContext } from '../context';
import type { NamedFilters } from '../http/named-filters';
import { boundNamedFilters } from '../sql/named-filters';
import { BATCH_ORDERING } from '../sql/orderings';
import type { BatchRow } from '../presenters/batch';
import { batchQuantities } from './stock-reads';

export interface BatchFilters extends PageRequest, Omit<NamedFilters, 'location_name'> {
  search?: string;
  ordering?: OrderTerm[];
  product_id?: string;
  has_stock?: boolean;
  /** Batches expiring strictly before this date (batches without an expiration date are left out). */
  expires_before?: string;
}

export interface NewBatch {
  product_id: string;
  code: string;
  expiration_date?: string | null;
}

export interface BatchChanges {
  code?: string;
  expiration_date?: string | null;
}

const findProduct = (identity: Identity, id: string, transaction?: Transaction) =>
  findOwned(ProductModel, id, identity.companyId, { transaction, what: 'Product' });

type BatchPageRow = Omit<BatchRow, 'quantity'>;

/**
 * One page of batches, by default ordered by expiration date (none last), then code. Three statements whatever the page
 * size: the count, the page (with its products' unit and decimals), one aggregate of the page's balances.
 */
export async function listBatches(ctx: InventoryContext, identity: Identity, filters: BatchFilters): Promise<{ rows: BatchRow[]; count: number }> {
  const { sequelize } = ctx;
  const bind: unknown[] = [identity.companyId];
  const where = ['b.company_id = $1'];
  if (filters.product_id) {
    bind.push(filters.product_id);
    where.push(`b.product_id = $${bind.length}`);
  }
  if (filters.expires_before) {
    bind.push(filters.expires_before);
    where.push(`b.expiration_date < $${bind.length}::date`);
  }
  if (filters.has_stock !== undefined) {
    // Balances are never negative (CHECK), so "has stock" is "some balance row of it is positive".
    where.push(`${filters.has_stock ? '' : 'NOT '}EXISTS (SELECT 1 FROM stock_balances s WHERE s.batch_id = b.id AND s.quantity > 0)`);
  }
  if (filters.search) {
    bind.push(likePattern(filters.search));
    where.push(`b.code ILIKE $${bind.length}`);
  }
  where.push(...boundNamedFilters(filters, { sku: 'b.product_id', batch_code: 'b.id' }, bind));
  const condition = where.join(' AND ');
  const [{ count }] = await sequelize.query<{ count: string }>(`SELECT count(*) AS count FROM batches b WHERE ${condition}`, {
    bind,
    type: QueryTypes.SELECT,
  });
  const { limit, offset } = pageWindow(filters);
  const page = await sequelize.query<BatchPageRow>(
    `SELECT b.id, b.product_id AS "productId", b.code, b.expiration_date::text AS "expirationDate", b.created_at AS "createdAt",
            p.unit, p.decimals
       FROM batches b
       JOIN product_models p ON p.id = b.product_id
      WHERE ${condition}
      ORDER BY ${orderBySql(BATCH_ORDERING, filters.ordering)}
      LIMIT ${limit} OFFSET ${offset}`,
    { bind, type: QueryTypes.SELECT },
  );
  const quantities = await batchQuantities(
    ctx,
    identity.companyId,
    page.map((b) => b.id),
  );
  return { rows: page.map((b) => ({ ...b, quantity: quantities.get(b.id) ?? '0' })), count: Number(count) };
}

type ProductFormat = Pick<ProductModel, 'unit' | 'decimals'>;

function rowOf(batch: Batch, product: ProductFormat, quantity: string): BatchRow {
  return {
    id: batch.id,
    productId: batch.productId,
    code: batch.code,
    expirationDate: batch.expirationDate,
    createdAt: batch.createdAt,
    quantity,
    unit: product.unit,
    decimals: product.decimals,
  };
}

/** One batch with its remaining quantity and its product's format. */
async function toRow(ctx: InventoryContext, batch: Batch): Promise<BatchRow> {
  const product = (await ProductModel.findByPk(batch.productId, { attributes: ['unit', 'decimals'], raw: true })) as ProductFormat;
  const quantities = await batchQuantities(ctx, batch.companyId, [batch.id]);
  return rowOf(batch, product, quantities.get(batch.id) ?? '0');
}

export async function getBatch(ctx: InventoryContext, identity: Identity, id: string): Promise<BatchRow> {
  return toRow(ctx, await findOwned(Batch, id, identity.companyId, { what: 'Batch' }));
}

const duplicateCode = rethrowAlreadyExists('A batch with this code already exists.', 'code');

export async function createBatch(ctx: InventoryContext, identity: Identity, input: NewBatch): Promise<BatchRow> {
  const { sequelize } = ctx;
  const { batch, product } = await sequelize
    .transaction(async (transaction) => {
      const product = await findProduct(identity, input.product_id, transaction);
      if (product.profile !== 'BATCH') throw new ValidationError({ product_id: 'must be a product with the BATCH profile' });
      const batch = await Batch.create(
        { companyId: identity.companyId, productId: product.id, code: input.code, expirationDate: input.expiration_date ?? null },
        { transaction },
      );
      return { batch, product };
    })
    .catch(duplicateCode);
  return rowOf(batch, product, '0');
}

export async function updateBatch(ctx: InventoryContext, identity: Identity, id: string, changes: BatchChanges): Promise<BatchRow> {
  const { sequelize } = ctx;
  const batch = await sequelize
    .transaction(async (transaction) => {
      const row = await findOwned(Batch, id, identity.companyId, { transaction, lock: true, what: 'Batch' });
      if (changes.code !== undefined) row.code = changes.code;
      if (changes.expiration_date !== undefined) row.expirationDate = changes.expiration_date;
      await row.save({ transaction });
      return row;
    })
    .catch(duplicateCode);
  return toRow(ctx, batch);
}
