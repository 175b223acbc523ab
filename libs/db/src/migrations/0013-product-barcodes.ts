/**
 * Product barcodes (docs/api/barcodes-and-camera.md): an optional GTIN per product model, unique in its
 * company. Uniqueness and lookups compare the 14-digit form (left-padded with zeros), so a UPC-A and the
 * EAN-13 of the same bars are one barcode; the partial index serves `?barcode=` on the product list and the
 * widget, and leaves the many products without a barcode out of it.
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE product_models ADD COLUMN barcode varchar(14)
      CONSTRAINT product_models_barcode_digits CHECK (barcode ~ '^([0-9]{8}|[0-9]{12,14})$');
    CREATE UNIQUE INDEX product_models_barcode_unique ON product_models (company_id, lpad(barcode, 14, '0')) WHERE barcode IS NOT NULL;
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`DROP INDEX product_models_barcode_unique; ALTER TABLE product_models DROP COLUMN barcode;`);
};
