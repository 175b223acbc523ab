/**
 * Filters by the names and codes people use (docs/api/ordering-and-search.md): `sku`, `location_name` and
 * `batch_code`, each an exact match ignoring case. They only ever find the caller's own records, so unlike id
 * filters they need no ownership step: a name of another company's record matches nothing here.
 */
import Joi from 'joi';

const text = (what: string) => Joi.string().trim().min(1).max(200).description(`Only records of the ${what} with this exact value, ignoring case.`);

export const namedFilterSchemas = {
  sku: text('product(s)'),
  location_name: text('location(s) named'),
  batch_code: text('batch'),
};

export interface NamedFilters {
  sku?: string;
  location_name?: string;
  batch_code?: string;
}
