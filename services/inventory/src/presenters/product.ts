import type { ProductModel } from '@pi/common';

type ProductRow = Pick<ProductModel, 'id' | 'sku' | 'name' | 'description' | 'profile' | 'engineConfig' | 'unit' | 'decimals' | 'isActive'> & {
  createdAt?: Date;
  updatedAt?: Date;
};

/** A product model on core endpoints. */
export function presentProduct(p: ProductRow) {
  return {
    id: p.id,
    sku: p.sku,
    name: p.name,
    description: p.description,
    profile: p.profile,
    engine_type: p.engineConfig.engine_type as string,
    engine_config: p.engineConfig,
    unit: p.unit,
    decimals: p.decimals,
    is_active: p.isActive,
    created_at: p.createdAt ?? null,
    updated_at: p.updatedAt ?? null,
  };
}
