/**
 * Product models: the company's catalog. Each product has a profile (its tracking mode) and an engine config
 * whose `engine_type` matches it (docs/api/catalog-and-records.md, "Product models"). The config is validated and
 * completed by engine/engine-config.ts; its `unit` and `decimals` are copied into columns so that SQL can
 * format stock. The profile is fixed once the ledger names the product, and a product that anything refers
 * to cannot be deleted, only deactivated.
 */
import { ForeignKeyConstraintError, Op, QueryTypes, UniqueConstraintError, col, fn, literal, where as sqlWhere } from 'sequelize';
import type { Transaction, WhereOptions } from 'sequelize';
import {
  AuditSnapshot,
  ConflictError,
  Identity,
  OrderTerm,
  PageRequest,
  ProductModel,
  Profile,
  findOwned,
  likePattern,
  pageWindow,
  recordAudit,
  rethrowAlreadyExists,
  sequelizeOrder,
} from '@pi/common';
import type { InventoryContext } from '../context';
import { PRODUCT_ORDERING } from '../sql/orderings';
import { EngineConfig, validateEngineConfig } from '../engine/engine-config';
import { gtinKey } from '../catalog/gtin';

export interface ProductFilters extends PageRequest {
  profile?: Profile;
  is_active?: boolean;
  search?: string;
  /** A GTIN: the product with this barcode (compared in its 14-digit form). */
  barcode?: string;
  ordering?: OrderTerm[];
}

export function listProducts(_ctx: InventoryContext, identity: Identity, filters: ProductFilters) {
  const where: WhereOptions<ProductModel> = { companyId: identity.companyId };
  if (filters.profile) Object.assign(where, { profile: filters.profile });
  if (filters.is_active !== undefined) Object.assign(where, { isActive: filters.is_active });
  if (filters.search) {
    const pattern = likePattern(filters.search);
    Object.assign(where, { [Op.or]: [{ sku: { [Op.iLike]: pattern } }, { name: { [Op.iLike]: pattern } }] });
  }
  // The expression of the partial unique index (migration 0013), so that the index answers.
  if (filters.barcode) {
    Object.assign(where, {
      [Op.and]: [{ barcode: { [Op.ne]: null } }, sqlWhere(fn('lpad', col('barcode'), literal('14'), literal("'0'")), gtinKey(filters.barcode))],
    });
  }
  // Names sort ignoring case whatever the database collation, then exactly, then by id, so pages are stable.
  return ProductModel.findAndCountAll({ where, order: sequelizeOrder(PRODUCT_ORDERING, filters.ordering), ...pageWindow(filters), raw: true });
}

export function getProduct(_ctx: InventoryContext, identity: Identity, id: string) {
  return findOwned(ProductModel, id, identity.companyId, { what: 'Product model' });
}

/** SKUs are unique per company by database constraint, so concurrent creates cannot both win. */
export const rethrowSkuTaken = rethrowAlreadyExists('A product model with this SKU already exists.', 'sku');

const rethrowBarcodeTaken = rethrowAlreadyExists('A product model with this barcode already exists.', 'barcode');

/** The index whose violation means the barcode is taken (migration 0013); any other is the SKU's. */
const BARCODE_INDEX = 'product_models_barcode_unique';

/** A unique violation on save named by its field: the SKU or the barcode (both unique per company). */
export function rethrowProductTaken(err: unknown): never {
  const constraint = err instanceof UniqueConstraintError ? (err.parent as { constraint?: string } | undefined)?.constraint : undefined;
  return constraint === BARCODE_INDEX ? rethrowBarcodeTaken(err) : rethrowSkuTaken(err);
}

/** A barcode as stored: an empty one is none. */
function storedBarcode(barcode: string | null | undefined): string | null {
  return barcode ? barcode : null;
}

/** The columns an engine config decides. */
export function engineColumns(config: EngineConfig) {
  return { engineConfig: config as unknown as Record<string, unknown>, unit: config.unit, decimals: config.decimals };
}

export interface NewProduct {
  sku: string;
  name: string;
  profile: Profile;
  engine_config: Record<string, unknown>;
  description?: string | null;
  barcode?: string | null;
}

/** A product's fields as the audit log records them (docs/api/roles-and-audit-log.md). */
export function auditedProduct(product: ProductModel): AuditSnapshot {
  return {
    sku: product.sku,
    name: product.name,
    description: product.description,
    profile: product.profile,
    engine_config: product.engineConfig,
    is_active: product.isActive,
    barcode: product.barcode,
  };
}

export async function createProduct(ctx: InventoryContext, identity: Identity, input: NewProduct) {
  const { sequelize } = ctx;
  const config = validateEngineConfig(input.profile, input.engine_config);
  return sequelize
    .transaction(async (transaction) => {
      const product = await ProductModel.create(
        {
          companyId: identity.companyId,
          sku: input.sku,
          name: input.name,
          description: input.description ?? null,
          profile: input.profile,
          ...engineColumns(config),
          isActive: true,
          barcode: storedBarcode(input.barcode),
        },
        { transaction },
      );
      await recordAudit(transaction, identity.companyId, identity, {
        action: 'create',
        resourceType: 'product_model',
        resourceId: product.id,
        after: auditedProduct(product),
      });
      return product;
    })
    .catch(rethrowProductTaken);
}

export interface ProductChanges {
  sku?: string;
  name?: string;
  profile?: Profile;
  engine_config?: Record<string, unknown>;
  description?: string | null;
  is_active?: boolean;
  barcode?: string | null;
}

/** Why a product the ledger names keeps its profile, as a field problem (PATCH and the import name it alike). */
export const profileLocked = (profile: Profile) => `is ${profile} and cannot change once stock has been booked`;

/** Why its decimals cannot shrink: booked quantities may carry the old precision, and fewer would show them cut short. */
export const decimalsLocked = (decimals: number) => `must be at least ${decimals} once stock has been booked`;

/**
 * Which of these products the ledger names: their profile is fixed and their decimals can only grow. One query
 * for any number of them (the import checks every product it updates at once).
 */
export async function productsWithMovements(companyId: string, productIds: string[], transaction: Transaction): Promise<Set<string>> {
  if (!productIds.length) return new Set();
  const rows = await ProductModel.sequelize!.query<{ id: string }>(
    `SELECT p.id FROM unnest($2::uuid[]) AS p(id)
      WHERE EXISTS (SELECT 1 FROM stock_movements m WHERE m.company_id = $1 AND m.product_id = p.id)`,
    { bind: [companyId, productIds], type: QueryTypes.SELECT, transaction },
  );
  return new Set(rows.map((r) => r.id));
}

const hasMovements = async (product: ProductModel, transaction: Transaction) =>
  (await productsWithMovements(product.companyId, [product.id], transaction)).has(product.id);

/**
 * PATCH and PUT. A new profile is refused (409 `profile_locked`) once the ledger names the product; an engine
 * config is validated against the profile the product will have (a new config against a new profile, the
 * current config against a new profile, a new config against the current profile).
 */
export function updateProduct(ctx: InventoryContext, identity: Identity, id: string, changes: ProductChanges) {
  const { sequelize } = ctx;
  return sequelize.transaction(async (transaction) => {
    const product = await findOwned(ProductModel, id, identity.companyId, { transaction, lock: true, what: 'Product model' });
    const before = auditedProduct(product);
    const profile = changes.profile ?? product.profile;
    if (profile !== product.profile && (await hasMovements(product, transaction))) {
      throw new ConflictError('profile_locked', 'The profile of a product with stock movements cannot change. Create a new product model instead.', {
        profile: profileLocked(product.profile),
      });
    }
    if (changes.engine_config !== undefined || profile !== product.profile) {
      const config = validateEngineConfig(profile, changes.engine_config ?? product.engineConfig);
      if (config.decimals < product.decimals && (await hasMovements(product, transaction))) {
        throw new ConflictError('decimals_locked', 'The decimals of a product with stock movements can only grow.', {
          'engine_config.decimals': decimalsLocked(product.decimals),
        });
      }
      Object.assign(product, engineColumns(config));
      product.changed('engineConfig', true);
    }
    product.profile = profile;
    if (changes.sku !== undefined) product.sku = changes.sku;
    if (changes.name !== undefined) product.name = changes.name;
    if (changes.description !== undefined) product.description = changes.description;
    if (changes.is_active !== undefined) product.isActive = changes.is_active;
    if (changes.barcode !== undefined) product.barcode = storedBarcode(changes.barcode);
    await product.save({ transaction }).catch(rethrowProductTaken);
    await recordAudit(transaction, identity.companyId, identity, {
      action: 'update',
      resourceType: 'product_model',
      resourceId: product.id,
      before,
      after: auditedProduct(product),
    });
    return product;
  });
}

/** PUT: every replaceable field; an absent description or barcode becomes null. */
export function replaceProduct(ctx: InventoryContext, identity: Identity, id: string, input: NewProduct) {
  return updateProduct(ctx, identity, id, { ...input, description: input.description ?? null, barcode: input.barcode ?? null });
}

/** What may refer to a product, in the order the refusal names them. */
const REFERENCES = [
  { table: 'stock_movements', what: 'stock movements' },
  { table: 'stock_balances', what: 'stock balances' },
  { table: 'batches', what: 'batches' },
  { table: 'physical_items', what: 'physical items' },
  { table: 'work_orders', what: 'work orders' },
] as const;

function productInUse(usedBy: string[]): ConflictError {
  return new ConflictError('product_in_use', 'This product model has stock or history and cannot be deleted. Deactivate it instead (PATCH is_active: false).', {
    used_by: usedBy,
  });
}

/**
 * Deletes a product nothing refers to. The product row is locked first; a reference created meanwhile by a
 * table this list does not know still ends in the same 409, through its foreign key.
 */
export async function deleteProduct(ctx: InventoryContext, identity: Identity, id: string): Promise<void> {
  const { sequelize } = ctx;
  await sequelize
    .transaction(async (transaction) => {
      const product = await findOwned(ProductModel, id, identity.companyId, { transaction, lock: true, what: 'Product model' });
      const checks = REFERENCES.map(({ table }) => `EXISTS (SELECT 1 FROM ${table} WHERE company_id = $1 AND product_id = $2) AS "${table}"`);
      const [found] = await sequelize.query<Record<string, boolean>>(`SELECT ${checks.join(', ')}`, {
        bind: [identity.companyId, product.id],
        type: QueryTypes.SELECT,
        transaction,
      });
      const usedBy = REFERENCES.filter(({ table }) => found[table]).map(({ table }) => table);
      if (usedBy.length) throw productInUse(usedBy);
      await product.destroy({ transaction });
      await recordAudit(transaction, identity.companyId, identity, {
        action: 'delete',
        resourceType: 'product_model',
        resourceId: product.id,
        before: auditedProduct(product),
      });
    })
    .catch((err: unknown) => {
      if (err instanceof ForeignKeyConstraintError) throw productInUse([String(err.table ?? 'other records')]);
      throw err;
    });
}
