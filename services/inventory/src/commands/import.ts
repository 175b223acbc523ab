/**
 * Bulk import of product models, from a JSON document `{products: [...]}` or a CSV file. All or nothing:
 * every row is checked (field rules and repeats within the file in commands/import-rows.ts; here, what needs
 * the company's products: SKUs and barcodes it already has, engine configs against the products a row updates)
 * and a single problem anywhere refuses the whole import with 400 `import_failed`, listing every problem by
 * row (1-based data row, the CSV header not counted) and field. A dry run checks and writes nothing.
 * With `update_existing`, a row whose SKU the company has updates that product instead
 * (commands/import-updates.ts; docs/api/catalog-and-records.md, "Updating products from a file").
 */
import { QueryTypes, UniqueConstraintError } from 'sequelize';
import type { Transaction } from 'sequelize';
import { Identity, ProductModel, recordAudits } from '@pi/common';
import type { InventoryContext } from '../context';
import { GTIN_KEY_SQL } from '../catalog/gtin';
import { auditedProduct } from './products';
import {
  ImportFailedError,
  barcodeKeyOf,
  byRow,
  candidatesOf,
  checkFields,
  checkedEngine,
  engineConfigToCheck,
  repeatProblems,
  skuOf,
  type Candidate,
  type FieldCheck,
  type ImportRequest,
  type RowProblem,
  type ValidRow,
} from './import-rows';
import { lockedFieldProblems, plannedUpdate, productsBySku, writeUpdates, type ProductUpdate } from './import-updates';
import { answerOncePerKey, type KeyedAnswer } from '../ledger/idempotency';
import { presentProduct } from '../presenters/product';
import { ledgerContext, type RequestOrigin } from './bookings';

/**
 * Rows whose barcode another product of the company has; one query, through the barcode index. A product the
 * row updates keeps its own barcode; a barcode cannot move from one product to another within one import.
 */
async function takenBarcodeProblems(
  companyId: string,
  candidates: Candidate[],
  existing: ReadonlyMap<string, ProductModel>,
  transaction: Transaction,
): Promise<RowProblem[]> {
  const keys = [...new Set(candidates.map(barcodeKeyOf).filter((k): k is string => k !== undefined))];
  if (!keys.length) return [];
  const rows = await ProductModel.sequelize!.query<{ id: string; key: string }>(
    `SELECT id, ${GTIN_KEY_SQL('barcode')} AS key FROM product_models
      WHERE company_id = $1 AND barcode IS NOT NULL AND ${GTIN_KEY_SQL('barcode')} = ANY($2::text[])`,
    { bind: [companyId, keys], type: QueryTypes.SELECT, transaction },
  );
  const ownerOf = new Map(rows.map((r) => [r.key, r.id]));
  return candidates
    .filter((c) => {
      const owner = ownerOf.get(barcodeKeyOf(c) ?? '');
      return owner !== undefined && owner !== existing.get(skuOf(c) ?? '')?.id;
    })
    .map((c) => ({ row: c.row, field: 'barcode', message: 'a product model with this barcode already exists' }));
}

/** Rows whose SKU the company has, when the import does not update: refused. */
function takenSkuProblems(candidates: Candidate[], existing: ReadonlyMap<string, ProductModel>): RowProblem[] {
  return candidates
    .filter((c) => existing.has(skuOf(c) ?? ''))
    .map((c) => ({ row: c.row, field: 'sku', message: 'a product model with this sku already exists' }));
}

export interface ImportOptions {
  dryRun: boolean;
  /** A row whose SKU the company has updates that product instead of being refused. */
  updateExisting: boolean;
}

/** What the rows come to: products to create and products to update (or leave, when a row changes nothing). */
interface ImportPlan {
  creates: ValidRow[];
  updates: ProductUpdate[];
}

/**
 * Every check that needs the company's products (in `transaction`): SKUs taken or updated, engine configs (an
 * update's against the product's), PATCH's rules for updates, barcodes taken. Any problem, here or in `found`
 * (the checks of the file alone), refuses the import.
 */
async function planImport(companyId: string, checks: FieldCheck[], found: RowProblem[], options: ImportOptions, transaction: Transaction): Promise<ImportPlan> {
  const problems = [...found];
  const candidates = checks.map((c) => c.candidate);
  const skus = [...new Set(candidates.map(skuOf).filter((s): s is string => s !== undefined))];
  const existing = await productsBySku(companyId, skus, transaction, options.updateExisting && !options.dryRun);
  if (!options.updateExisting) problems.push(...takenSkuProblems(candidates, existing));
  const plan: ImportPlan = { creates: [], updates: [] };
  for (const check of checks) {
    if (!check.profile || !check.engineConfig) continue;
    const current = options.updateExisting ? existing.get(skuOf(check.candidate) ?? '') : undefined;
    const engine = checkedEngine(check, engineConfigToCheck(check, current), problems);
    if (!engine || !check.checked) continue;
    const row: ValidRow = { ...check.checked, engine };
    if (current) plan.updates.push(plannedUpdate(current, row));
    else plan.creates.push(row);
  }
  problems.push(...(await lockedFieldProblems(companyId, plan.updates, transaction)));
  problems.push(...(await takenBarcodeProblems(companyId, candidates, options.updateExisting ? existing : new Map(), transaction)));
  if (problems.length) throw new ImportFailedError(problems.sort(byRow));
  return plan;
}

type PresentedProduct = ReturnType<typeof presentProduct>;

/** How many rows created, updated or left a product; an import that updates answers them. */
interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
}

export type ImportResult =
  | ({ imported: 0; would_import: number; dry_run: true } & Partial<{ would_create: number; would_update: number; unchanged: number }>)
  | ({ imported: number; dry_run: false } & Partial<ImportCounts> & { products: PresentedProduct[] });

/** Creates the new rows' products, each with its audit entry. */
async function createProducts(identity: Identity, rows: ValidRow[], transaction: Transaction): Promise<Map<string, ProductModel>> {
  if (!rows.length) return new Map();
  // Rows go in in SKU order, so two imports sharing SKUs wait for each other instead of deadlocking on the
  // unique index.
  const bySku = [...rows].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0));
  const created = await ProductModel.bulkCreate(
    bySku.map((r) => ({
      companyId: identity.companyId,
      sku: r.sku,
      name: r.name,
      description: r.description,
      profile: r.profile,
      ...r.engine,
      isActive: r.isActive ?? true,
      barcode: r.barcode,
    })),
    { transaction, returning: true },
  );
  await recordAudits(
    transaction,
    identity.companyId,
    identity,
    created.map((p) => ({ action: 'create' as const, resourceType: 'product_model' as const, resourceId: p.id, after: auditedProduct(p) })),
  );
  return new Map(created.map((p) => [p.sku, p]));
}

/** Writes the plan; answers every row's product in file order as the API shows a product. */
async function writeImport(identity: Identity, plan: ImportPlan, options: ImportOptions, transaction: Transaction): Promise<ImportResult> {
  const created = await createProducts(identity, plan.creates, transaction);
  const changed = plan.updates.filter((u) => !u.unchanged);
  await writeUpdates(identity, changed, transaction);
  const rows = [
    ...plan.creates.map((r) => ({ row: r.row, product: created.get(r.sku)! })),
    ...plan.updates.map((u) => ({ row: u.row.row, product: u.product })),
  ];
  const products = rows.sort(byRow).map((r) => presentProduct(r.product));
  if (!options.updateExisting) return { imported: products.length, dry_run: false, products };
  const counts: ImportCounts = { created: created.size, updated: changed.length, unchanged: plan.updates.length - changed.length };
  return { imported: products.length, dry_run: false, ...counts, products };
}

function dryRunResult(plan: ImportPlan, options: ImportOptions): ImportResult {
  const rows = plan.creates.length + plan.updates.length;
  if (!options.updateExisting) return { imported: 0, would_import: rows, dry_run: true };
  const unchanged = plan.updates.filter((u) => u.unchanged).length;
  return { imported: 0, would_import: rows, dry_run: true, would_create: plan.creates.length, would_update: plan.updates.length - unchanged, unchanged };
}

/** Attempts of an import that met another request's new SKU or barcode at its write (see importProducts). */
const IMPORT_ATTEMPTS = 3;

/**
 * Checks every row, then writes all of them in one transaction, or none. A real run takes an optional
 * Idempotency-Key (docs/api/catalog-and-records.md): a retry after an answer that never came answers the
 * first import again instead of refusing every SKU it created.
 */
export async function importProducts(
  ctx: InventoryContext,
  identity: Identity,
  request: ImportRequest,
  options: ImportOptions,
  origin: RequestOrigin,
): Promise<KeyedAnswer<ImportResult>> {
  const { sequelize } = ctx;
  const candidates = candidatesOf(request);
  const found: RowProblem[] = [];
  const checks = candidates.map((c) => checkFields(c, found));
  found.push(...repeatProblems(candidates));
  const attempt = () =>
    sequelize.transaction(async (transaction): Promise<KeyedAnswer<ImportResult>> => {
      const plan = () => planImport(identity.companyId, checks, found, options, transaction);
      if (options.dryRun) return { replayed: false, body: dryRunResult(await plan(), options) };
      // The key first: a retry of an import that went through answers it again, before its SKUs are found taken.
      return answerOncePerKey(ledgerContext(ctx, identity, origin.requestId), transaction, origin.idempotency, async () =>
        writeImport(identity, await plan(), options, transaction),
      );
    });
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (err) {
      // Another request created one of these SKUs or barcodes after the check and before the write. The
      // import runs again and sees it: the rows are then refused by name, or (updating) update that product.
      if (!(err instanceof UniqueConstraintError) || tries === IMPORT_ATTEMPTS) throw err;
    }
  }
}
