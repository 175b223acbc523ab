/**
 * Product models: the company's catalog. Each product has a profile (its tracking mode) and an engine config
 * whose `engine_type` matches it (docs/api/catalog-and-records.md, "Product models"). The config is validated and
 * completed by engine/engine-config.ts; its `unit` and `decimals` are copied into columns so that SQL can
 * format stock. The profile is fixed once the ledger names the product, and a product that anything refers
 * to cannot be deleted, only deactivated.
 */
import { ForeignKeyConstraintError, Op, QueryTypes, col, fn } from 'sequelize';
import type { Order, Sequelize, Transaction, WhereOptions } from 'sequelize';
import { ConflictError, Identity, PageRequest, ProductModel, Profile, findOwned, pageWindow, rethrowAlreadyExists } from '@pi/common';
import { EngineConfig, validateEngineConfig } from '../engine/engine-config';

export interface ProductFilters extends PageRequest {
  profile?: Profile;
  is_active?: boolean;
  search?: string;
}

/** `%`, `_` and `\` match literally in a search. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function listProducts(identity: Identity, filters: ProductFilters) {
  const where: WhereOptions<ProductModel> = { companyId: identity.companyId };
  if (filters.profile) Object.assign(where, { profile: filters.profile });
  if (filters.is_active !== undefined) Object.assign(where, { isActive: filters.is_active });
  if (filters.search) {
    const pattern = likePattern(filters.search);
    Object.assign(where, { [Op.or]: [{ sku: { [Op.iLike]: pattern } }, { name: { [Op.iLike]: pattern } }] });
  }
  // Case-insensitive by name whatever the database collation; then exact name and id, so pages are stable.
  const order: Order = [[fn('lower', col('name')), 'ASC'], ['name', 'ASC'], ['id', 'ASC']];
  return ProductModel.findAndCountAll({ where, order, ...pageWindow(filters), raw: true });
}

export function getProduct(identity: Identity, id: string) {
  return findOwned(ProductModel, id, identity.companyId, { what: 'Product model' });
}

/** SKUs are unique per company by database constraint, so concurrent creates cannot both win. */
export const rethrowSkuTaken = rethrowAlreadyExists('A product model with this SKU already exists.', 'sku');

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
}

export async function createProduct(identity: Identity, input: NewProduct) {
  const config = validateEngineConfig(input.profile, input.engine_config);
  return ProductModel.create({
    companyId: identity.companyId,
    sku: input.sku,
    name: input.name,
    description: input.description ?? null,
    profile: input.profile,
    ...engineColumns(config),
    isActive: true,
  }).catch(rethrowSkuTaken);
}

export interface ProductChanges {
  sku?: string;
  name?: string;
  profile?: Profile;
  engine_config?: Record<string, unknown>;
  description?: string | null;
  is_active?: boolean;
}

async function hasMovements(product: ProductModel, transaction: Transaction): Promise<boolean> {
  const rows = await ProductModel.sequelize!.query('SELECT 1 FROM stock_movements WHERE company_id = $1 AND product_id = $2 LIMIT 1', {
    bind: [product.companyId, product.id],
    type: QueryTypes.SELECT,
    transaction,
  });
  return rows.length > 0;
}

/**
 * PATCH and PUT. A new profile is refused (409 `profile_locked`) once the ledger names the product; an engine
 * config is validated against the profile the product will have (a new config against a new profile, the
 * current config against a new profile, a new config against the current profile).
 */
export function updateProduct(sequelize: Sequelize, identity: Identity, id: string, changes: ProductChanges) {
  return sequelize.transaction(async (transaction) => {
    const product = await findOwned(ProductModel, id, identity.companyId, { transaction, lock: true, what: 'Product model' });
    const profile = changes.profile ?? product.profile;
    if (profile !== product.profile && (await hasMovements(product, transaction))) {
      throw new ConflictError(
        'profile_locked',
        'The profile of a product with stock movements cannot change. Create a new product model instead.',
        { profile: `is ${product.profile} and cannot change once stock has been booked` },
      );
    }
    if (changes.engine_config !== undefined || profile !== product.profile) {
      const config = validateEngineConfig(profile, changes.engine_config ?? product.engineConfig);
      if (config.decimals < product.decimals && (await hasMovements(product, transaction))) {
        // Booked quantities may carry the old precision; fewer decimals would show them cut short.
        throw new ConflictError('decimals_locked', 'The decimals of a product with stock movements can only grow.', {
          'engine_config.decimals': `must be at least ${product.decimals} once stock has been booked`,
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
    await product.save({ transaction }).catch(rethrowSkuTaken);
    return product;
  });
}

/** PUT: every replaceable field; an absent description becomes null. */
export function replaceProduct(sequelize: Sequelize, identity: Identity, id: string, input: NewProduct) {
  return updateProduct(sequelize, identity, id, { ...input, description: input.description ?? null });
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
  return new ConflictError(
    'product_in_use',
    'This product model has stock or history and cannot be deleted. Deactivate it instead (PATCH is_active: false).',
    { used_by: usedBy },
  );
}

/**
 * Deletes a product nothing refers to. The product row is locked first; a reference created meanwhile by a
 * table this list does not know still ends in the same 409, through its foreign key.
 */
export async function deleteProduct(sequelize: Sequelize, identity: Identity, id: string): Promise<void> {
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
    })
    .catch((err: unknown) => {
      if (err instanceof ForeignKeyConstraintError) throw productInUse([String(err.table ?? 'other records')]);
      throw err;
    });
}
