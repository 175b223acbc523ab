/**
 * Work orders: numbered jobs of the company, optionally for a quantity of one product. Their status moves
 * OPEN ⇄ IN_PROGRESS → DONE | CANCELLED (OPEN may also finish or be cancelled directly); DONE and CANCELLED are
 * final. "Open" for the widget means OPEN or IN_PROGRESS. Numbers are unique per company by database
 * constraint, so two concurrent creates with one number cannot both succeed.
 *
 * A work order created without a number gets the company's next one, `WO-0001`, `WO-0002`, …
 * (docs/api/catalog-and-records.md "Work order numbers"): the company's row of `work_order_counters` is locked
 * and moved on in the creation's transaction, and a number already taken (given by hand) is skipped.
 */
import { Op, QueryTypes } from 'sequelize';
import type { Sequelize, Transaction, WhereOptions } from 'sequelize';
import {
  Identity,
  OPEN_WORK_ORDER_STATUSES,
  OrderTerm,
  PageRequest,
  ProductModel,
  WorkOrder,
  WorkOrderStatus,
  findOwned,
  likePattern,
  pageWindow,
  rethrowAlreadyExists,
  scanPicksTarget,
  sequelizeOrder,
} from '@pi/common';
import type { InventoryContext } from '../context';
import { WORK_ORDER_ORDERING } from '../sql/orderings';
import { answerOncePerKey, type KeyedAnswer } from '../ledger/idempotency';
import { presentWorkOrder } from '../presenters/work-order';
import { ledgerContext, type RequestOrigin } from './bookings';
import { InvalidTransitionError } from '@pi/common';
import { toDecimal } from '../engine/quantity';

type WorkOrderBody = ReturnType<typeof presentWorkOrder>;

/** The statuses each status may move to. A status "moving" to itself is no transition and always allowed. */
export const WORK_ORDER_TRANSITIONS: Readonly<Record<WorkOrderStatus, readonly WorkOrderStatus[]>> = {
  OPEN: ['IN_PROGRESS', 'DONE', 'CANCELLED'],
  IN_PROGRESS: ['DONE', 'CANCELLED', 'OPEN'],
  DONE: [],
  CANCELLED: [],
};

/** Precision of the quantity column: a work order without a product takes up to 6 decimals. */
const COLUMN_DECIMALS = 6;

export interface WorkOrderFilters extends PageRequest {
  status?: WorkOrderStatus;
  product_id?: string;
  search?: string;
  ordering?: OrderTerm[];
}

export interface NewWorkOrder {
  /** Absent: the next generated number. */
  number?: string;
  title: string;
  status: WorkOrderStatus;
  product_id?: string | null;
  quantity?: number | null;
  due_date?: string | null;
}

export type WorkOrderChanges = Partial<NewWorkOrder>;

/** Generated numbers: `WO-` and at least four digits. */
export const GENERATED_NUMBER = /^WO-\d{4,}$/;
export const formatWorkOrderNumber = (n: number) => `WO-${String(n).padStart(4, '0')}`;
/** Candidates checked per query when numbers given by hand fill the next ones. */
const CANDIDATES = 50;

/**
 * Locks the company's counter row until the transaction ends (creating it at 0 the first time) and answers
 * its last generated number. Generating a number and saving a number given by hand that looks generated both
 * take this lock, so neither can take the other's number between its check and its insert.
 */
async function lockCounter(sequelize: Sequelize, companyId: string, transaction: Transaction): Promise<number> {
  const [row] = await sequelize.query<{ last_number: number }>(
    `INSERT INTO work_order_counters (company_id, last_number) VALUES ($1, 0)
     ON CONFLICT (company_id) DO UPDATE SET last_number = work_order_counters.last_number
     RETURNING last_number`,
    { bind: [companyId], type: QueryTypes.SELECT, transaction },
  );
  return Number(row.last_number);
}

/** The company's next free generated number, moving its (locked) counter past it. */
async function nextWorkOrderNumber(sequelize: Sequelize, companyId: string, transaction: Transaction): Promise<string> {
  let last = await lockCounter(sequelize, companyId, transaction);
  for (;;) {
    const candidates = Array.from({ length: CANDIDATES }, (_, i) => formatWorkOrderNumber(last + 1 + i));
    const taken = await sequelize.query<{ number: string }>('SELECT number FROM work_orders WHERE company_id = $1 AND number = ANY($2::text[])', {
      bind: [companyId, candidates],
      type: QueryTypes.SELECT,
      transaction,
    });
    const takenSet = new Set(taken.map((t) => t.number));
    const free = candidates.findIndex((c) => !takenSet.has(c));
    if (free >= 0) {
      last += 1 + free;
      await sequelize.query('UPDATE work_order_counters SET last_number = $2 WHERE company_id = $1', { bind: [companyId, last], transaction });
      return formatWorkOrderNumber(last);
    }
    last += CANDIDATES;
  }
}

/** The number to save: the one given (locking the counter when it looks generated), or the next generated one. */
async function numberFor(sequelize: Sequelize, companyId: string, given: string | undefined, transaction: Transaction): Promise<string> {
  if (given === undefined) return nextWorkOrderNumber(sequelize, companyId, transaction);
  if (GENERATED_NUMBER.test(given)) await lockCounter(sequelize, companyId, transaction);
  return given;
}

const findProduct = (identity: Identity, id: string, transaction?: Transaction) =>
  findOwned(ProductModel, id, identity.companyId, { transaction, what: 'Product' });

export async function listWorkOrders(_ctx: InventoryContext, identity: Identity, filters: WorkOrderFilters) {
  const where: WhereOptions<WorkOrder> = { companyId: identity.companyId };
  if (filters.status) Object.assign(where, { status: filters.status });
  if (filters.product_id) Object.assign(where, { productId: filters.product_id });
  if (filters.search) {
    const pattern = likePattern(filters.search);
    Object.assign(where, { [Op.or]: [{ number: { [Op.iLike]: pattern } }, { title: { [Op.iLike]: pattern } }] });
  }
  return WorkOrder.findAndCountAll({ where, order: sequelizeOrder(WORK_ORDER_ORDERING, filters.ordering), ...pageWindow(filters), raw: true });
}

/** The widget's list: OPEN and IN_PROGRESS, the earliest due date first (no due date last). One query. */
/**
 * The open work orders; a QR scan's key sees only the work order its code points at, or all of them while a
 * signed-in user picks the target of a VIRGIN code (docs/api/scanning.md).
 */
export async function listOpenWorkOrders(_ctx: InventoryContext, identity: Identity) {
  const scan = scanPicksTarget(identity.scan) ? undefined : identity.scan;
  if (scan && (scan.targetType !== 'WORK_ORDER' || !scan.targetId)) return [];
  return WorkOrder.findAll({
    where: { companyId: identity.companyId, status: OPEN_WORK_ORDER_STATUSES, ...(scan ? { id: scan.targetId! } : {}) },
    order: [
      ['dueDate', 'ASC NULLS LAST'],
      ['number', 'ASC'],
      ['id', 'ASC'],
    ],
    raw: true,
  });
}

export function getWorkOrder(_ctx: InventoryContext, identity: Identity, id: string) {
  return findOwned(WorkOrder, id, identity.companyId, { what: 'Work order' });
}

/** A stored NUMERIC (`"2.500000"`) back to a number whose decimal places can be checked. */
const storedQuantity = (numeric: string) => Number(numeric);

/** The quantity as a decimal string, within the product's precision (the column's when there is no product). */
function quantityFor(quantity: number, product: ProductModel | null): string {
  return toDecimal(quantity, product ? product.decimals : COLUMN_DECIMALS);
}

const duplicateNumber = rethrowAlreadyExists('A work order with this number already exists.', 'number');

/**
 * A work order, numbered by the caller or the company's next number. A retry after an answer that never came
 * carries the first one's Idempotency-Key and answers it again instead of creating a second order.
 */
export function createWorkOrder(ctx: InventoryContext, identity: Identity, input: NewWorkOrder, origin: RequestOrigin): Promise<KeyedAnswer<WorkOrderBody>> {
  const { sequelize } = ctx;
  return sequelize
    .transaction((transaction) =>
      answerOncePerKey(ledgerContext(ctx, identity, origin.requestId), transaction, origin.idempotency, async () => {
        const product = input.product_id ? await findProduct(identity, input.product_id, transaction) : null;
        const number = await numberFor(sequelize, identity.companyId, input.number, transaction);
        const order = await WorkOrder.create(
          {
            companyId: identity.companyId,
            number,
            title: input.title,
            status: input.status,
            productId: product?.id ?? null,
            quantity: input.quantity == null ? null : quantityFor(input.quantity, product),
            dueDate: input.due_date ?? null,
          },
          { transaction },
        );
        return presentWorkOrder(order);
      }),
    )
    .catch(duplicateNumber);
}

/** 409 invalid_transition naming the statuses the work order may move to (`[]` once it is final). */
export function assertTransition(from: WorkOrderStatus, to: WorkOrderStatus) {
  if (from === to) return;
  const allowed = WORK_ORDER_TRANSITIONS[from];
  if (!allowed.includes(to)) {
    throw new InvalidTransitionError(`A work order cannot move from ${from} to ${to}.`, from, allowed);
  }
}

export function updateWorkOrder(ctx: InventoryContext, identity: Identity, id: string, changes: WorkOrderChanges): Promise<WorkOrder> {
  const { sequelize } = ctx;
  return sequelize
    .transaction(async (transaction) => {
      const order = await findOwned(WorkOrder, id, identity.companyId, { transaction, lock: true, what: 'Work order' });
      // Isolation first: a product of another company is 403 whatever else the request gets wrong.
      const productId = changes.product_id !== undefined ? changes.product_id : order.productId;
      const product = productId ? await findProduct(identity, productId, transaction) : null;
      if (changes.status !== undefined) assertTransition(order.status, changes.status);

      const quantity = changes.quantity !== undefined ? changes.quantity : order.quantity === null ? null : storedQuantity(order.quantity);
      if (changes.quantity !== undefined || changes.product_id !== undefined) {
        order.quantity = quantity === null ? null : quantityFor(quantity, product);
      }
      if (changes.product_id !== undefined) order.productId = changes.product_id;
      if (changes.number !== undefined && changes.number !== order.number)
        order.number = await numberFor(sequelize, identity.companyId, changes.number, transaction);
      if (changes.title !== undefined) order.title = changes.title;
      if (changes.status !== undefined) order.status = changes.status;
      if (changes.due_date !== undefined) order.dueDate = changes.due_date;
      await order.save({ transaction });
      return order;
    })
    .catch(duplicateNumber);
}
