/** Request bodies of the booking endpoints (widget transaction/move/transfer, core movements). */
import Joi from 'joi';
import { schemas } from '@pi/common';
import { countedQuantity, positiveQuantity, signedQuantity } from '../engine/quantity';
import { calendarDate } from './calendar-date';

const reason = Joi.string().max(500).allow('').default('');
const batchRef = Joi.object({ code: Joi.string().trim().min(1).max(100).required(), expiration_date: calendarDate.allow(null) });
const serialNumbers = Joi.array().items(Joi.string().trim().min(1).max(100)).min(1).max(10_000).unique();
const itemIds = Joi.array().items(schemas.uuid).min(1).max(10_000).unique();

/** What an addition may name, by profile: a batch (id or new), serial numbers. */
const additionRefs = { batch_id: schemas.uuid, batch: batchRef, serial_numbers: serialNumbers };
const subtractionRefs = { batch_id: schemas.uuid, item_ids: itemIds };

export const transactionBody = Joi.object({
  operation: Joi.string().valid('add', 'subtract', 'set').required(),
  quantity: Joi.when('operation', { is: 'set', then: countedQuantity.required(), otherwise: positiveQuantity }),
  location_id: schemas.uuid.required(),
  reason,
  expected_quantity: Joi.when('operation', { is: 'set', then: countedQuantity, otherwise: Joi.forbidden() }),
  batch_id: schemas.uuid,
  batch: Joi.when('operation', { is: 'add', then: batchRef, otherwise: Joi.forbidden() }),
  serial_numbers: Joi.when('operation', { is: 'add', then: serialNumbers, otherwise: Joi.forbidden() }),
  item_ids: Joi.when('operation', { is: 'subtract', then: itemIds, otherwise: Joi.forbidden() }),
}).oxor('batch_id', 'batch');

export const signedMoveBody = Joi.object({
  product_id: schemas.uuid.required(),
  location_id: schemas.uuid.required(),
  quantity: signedQuantity.required(),
  reason,
  ...additionRefs,
  item_ids: itemIds,
}).oxor('batch_id', 'batch');

export const transferBody = Joi.object({
  product_id: schemas.uuid.required(),
  from_location_id: schemas.uuid.required(),
  to_location_id: schemas.uuid.required(),
  quantity: positiveQuantity,
  reason,
  ...subtractionRefs,
});

export const coreMovementBody = Joi.object({
  product_id: schemas.uuid.required(),
  from_location_id: schemas.uuid.required(),
  to_location_id: schemas.uuid.required(),
  quantity: positiveQuantity,
  reason,
  ...additionRefs,
  item_ids: itemIds,
}).oxor('batch_id', 'batch');
