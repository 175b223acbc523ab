import { stockDisplay, toNumber } from '../engine/quantity';
import { presentWidgetBatch } from './batch';
import type { LocationStockRow, ProductStockRow } from '../commands/stock-levels';

/** A product in the widget list: SPEC.md's fields; `poly_products` (DIMENSIONAL) add unit and decimals. */
export function presentWidgetProduct(p: ProductStockRow) {
  const base = { id: p.id, name: p.name, sku: p.sku, stock_display: stockDisplay(p.quantity, p.decimals, p.unit), engine_type: p.engine_type };
  return p.profile === 'DIMENSIONAL' ? { ...base, unit: p.unit, decimals: p.decimals } : base;
}

export function presentLocationStock(row: LocationStockRow, product: Pick<ProductStockRow, 'decimals' | 'unit'>) {
  return {
    location_id: row.location_id,
    location_name: row.location_name,
    location_type: row.location_type,
    quantity: toNumber(row.quantity),
    stock_display: stockDisplay(row.quantity, product.decimals, product.unit),
  };
}

/** A product's stock level on the core stock endpoint. */
export function presentStockLevel(p: ProductStockRow, locations: LocationStockRow[]) {
  return {
    product_id: p.id,
    sku: p.sku,
    name: p.name,
    profile: p.profile,
    unit: p.unit,
    decimals: p.decimals,
    total_quantity: toNumber(p.quantity),
    stock_display: stockDisplay(p.quantity, p.decimals, p.unit),
    locations: locations.map((l) => presentLocationStock(l, p)),
  };
}

type Detail = Awaited<ReturnType<typeof import('../commands/stock-levels').productDetail>>;

/** The widget's product detail: totals, per-location stock, and batches (BATCH) or an item count (SERIALIZED). */
export function presentProductDetail({ product, total, locations, batches, itemsCount }: Detail) {
  const display = (q: string) => stockDisplay(q, product.decimals, product.unit);
  return {
    id: product.id,
    name: product.name,
    sku: product.sku,
    description: product.description,
    profile: product.profile,
    engine_type: product.engineConfig.engine_type as string,
    unit: product.unit,
    decimals: product.decimals,
    total_quantity: toNumber(total),
    stock_display: display(total),
    locations: locations.map((l) => presentLocationStock(l, product)),
    ...(batches ? { batches: batches.map(presentWidgetBatch) } : {}),
    ...(itemsCount !== undefined ? { items_count: itemsCount } : {}),
  };
}
