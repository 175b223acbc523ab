/**
 * The rows of a product import whose SKU the company already has, when the import says `update_existing`
 * (docs/api/catalog-and-records.md, "Updating products from a file"). Such a row updates its product as a PATCH
 * of the fields the row names would: the name, profile and engine config always, the description, barcode and
 * `is_active` when the file has them; the others are left as they are. PATCH's rules hold (the profile is fixed
 * once the ledger names the product, its decimals can only grow), checked for every row in one query, and
 * every changed product is written by one statement. A row that changes nothing writes nothing, not even its
 * `updated_at` or an audit entry, so that importing an export again leaves the catalog as it was.
 */
import { isDeepStrictEqual } from 'node:util';
import { Op, QueryTypes } from 'sequelize';
import type { Transaction } from 'sequelize';
import { AuditSnapshot, Identity, ProductModel, Profile, recordAudits } from '@pi/common';
import { auditedProduct, decimalsLocked, productsWithMovements, profileLocked } from './products';
import type { RowProblem, ValidRow } from './import-rows';

/** One existing product and the row that updates it; `product` holds the new values (not yet written). */
export interface ProductUpdate {
  row: ValidRow;
  product: ProductModel;
  before: AuditSnapshot;
  previous: { profile: Profile; decimals: number };
  /** The row leaves every field as it was. */
  unchanged: boolean;
}

/**
 * The company's products with these SKUs. An import that updates locks them (FOR UPDATE, in SKU order, the
 * order every import takes them in, so that two imports wait for each other instead of deadlocking); a
 * booking of one of them waits for the import, as it waits for a PATCH.
 */
export async function productsBySku(companyId: string, skus: string[], transaction: Transaction, lock: boolean): Promise<Map<string, ProductModel>> {
  if (!skus.length) return new Map();
  const products = await ProductModel.findAll({
    where: { companyId, sku: { [Op.in]: skus } },
    order: [['sku', 'ASC']],
    transaction,
    ...(lock ? { lock: transaction.LOCK.UPDATE } : {}),
  });
  return new Map(products.map((p) => [p.sku, p]));
}

/** The product as the row leaves it, in memory: the fields the row names, the others as they were. */
export function plannedUpdate(product: ProductModel, row: ValidRow): ProductUpdate {
  const before = auditedProduct(product);
  const previous = { profile: product.profile, decimals: product.decimals };
  const { names } = row.candidate;
  product.name = row.name;
  product.profile = row.profile;
  Object.assign(product, row.engine);
  if (names.has('description')) product.description = row.description;
  if (names.has('barcode')) product.barcode = row.barcode;
  if (row.isActive !== undefined) product.isActive = row.isActive;
  return { row, product, before, previous, unchanged: isDeepStrictEqual(before, auditedProduct(product)) };
}

/**
 * PATCH's rules for every update at once (commands/products.ts): a new profile, or fewer decimals, for a
 * product that has stock movements; one query (`productsWithMovements`) for all the products concerned.
 */
export async function lockedFieldProblems(companyId: string, updates: ProductUpdate[], transaction: Transaction): Promise<RowProblem[]> {
  const changesProfile = (u: ProductUpdate) => u.product.profile !== u.previous.profile;
  const shrinksDecimals = (u: ProductUpdate) => u.product.decimals < u.previous.decimals;
  const concerned = updates.filter((u) => changesProfile(u) || shrinksDecimals(u));
  if (!concerned.length) return [];
  const hasMovements = await productsWithMovements(
    companyId,
    concerned.map((u) => u.product.id),
    transaction,
  );
  return concerned
    .filter((u) => hasMovements.has(u.product.id))
    .map((u) => {
      const { row, candidate } = u.row;
      return changesProfile(u)
        ? { row, field: 'profile', message: profileLocked(u.previous.profile) }
        : { row, field: candidate.engineField('decimals'), message: decimalsLocked(u.previous.decimals) };
    });
}

/** Every changed product in one statement (their rows are locked already), each with its audit entry. */
const UPDATE_PRODUCTS = `
  UPDATE product_models p
     SET name = v.name, description = v.description, profile = v.profile, engine_config = v.engine_config,
         unit = v.unit, decimals = v.decimals, is_active = v.is_active, barcode = v.barcode, updated_at = now()
    FROM jsonb_to_recordset($2::jsonb) AS v(id uuid, name text, description text, profile text, engine_config jsonb,
                                            unit text, decimals smallint, is_active boolean, barcode text)
   WHERE p.company_id = $1 AND p.id = v.id
  RETURNING p.id, p.updated_at`;

export async function writeUpdates(identity: Identity, updates: ProductUpdate[], transaction: Transaction): Promise<void> {
  if (!updates.length) return;
  const values = updates.map(({ product: p }) => ({
    id: p.id,
    name: p.name,
    description: p.description,
    profile: p.profile,
    engine_config: p.engineConfig,
    unit: p.unit,
    decimals: p.decimals,
    is_active: p.isActive,
    barcode: p.barcode,
  }));
  const written = await ProductModel.sequelize!.query<{ id: string; updated_at: Date }>(UPDATE_PRODUCTS, {
    bind: [identity.companyId, JSON.stringify(values)],
    type: QueryTypes.SELECT,
    transaction,
  });
  const stamps = new Map(written.map((w) => [w.id, w.updated_at]));
  for (const { product } of updates) product.setDataValue('updatedAt', stamps.get(product.id)!);
  await recordAudits(
    transaction,
    identity.companyId,
    identity,
    updates.map((u) => ({
      action: 'update' as const,
      resourceType: 'product_model' as const,
      resourceId: u.product.id,
      before: u.before,
      after: auditedProduct(u.product),
    })),
  );
}
