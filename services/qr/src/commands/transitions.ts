/**
 * The QR state machine: VIRGIN → CONFIGURED (assigned to a product, item or work order of the company) →
 * LOCKED (immutable). Each move is a conditional update on the expected state, so of two racing
 * requests exactly one wins; every refused move answers 409 invalid_transition with the allowed ones.
 */
import { Transaction } from 'sequelize';
import { ApiKey, Identity, InvalidTransitionError, PhysicalItem, ProductModel, QrCode, QrStatus, QrTargetType, WorkOrder, findOwned } from '@pi/common';
import type { QrContext } from '../context';
import { ownedCode } from './codes';

export const NEXT_STATES: Record<QrStatus, QrStatus[]> = { VIRGIN: ['CONFIGURED'], CONFIGURED: ['LOCKED'], LOCKED: [] };

function refused(status: QrStatus, wanted: QrStatus) {
  return new InvalidTransitionError(`A ${status} code cannot become ${wanted}.`, status, NEXT_STATES[status]);
}

/** The product a target belongs to, after checking the target is the company's (403) and exists (404). */
async function productOfTarget(identity: Identity, type: QrTargetType, id: string, transaction: Transaction): Promise<string | null> {
  switch (type) {
    case 'PRODUCT':
      return (await findOwned(ProductModel, id, identity.companyId, { transaction, what: 'Product' })).id;
    case 'ITEM':
      return (await findOwned(PhysicalItem, id, identity.companyId, { transaction, what: 'Item' })).productId;
    case 'WORK_ORDER':
      return (await findOwned(WorkOrder, id, identity.companyId, { transaction, what: 'Work order' })).productId;
  }
}

async function move(code: QrCode, from: QrStatus, to: QrStatus, changes: Record<string, unknown>, transaction: Transaction) {
  const [count, rows] = await QrCode.update({ status: to, ...changes }, { where: { id: code.id, status: from }, returning: true, transaction });
  if (count === 0) {
    const current = await QrCode.findByPk(code.id, { transaction });
    throw refused(current!.status, to);
  }
  return rows[0];
}

export function configureCode(ctx: QrContext, identity: Identity, codeValue: string, targetType: QrTargetType, targetId: string) {
  return ctx.sequelize.transaction(async (transaction) => {
    const code = await ownedCode(ctx, identity, codeValue);
    if (code.status !== 'VIRGIN') throw refused(code.status, 'CONFIGURED');
    const productModelId = await productOfTarget(identity, targetType, targetId, transaction);
    const configured = await move(code, 'VIRGIN', 'CONFIGURED', { targetType, targetId, productModelId, configuredAt: new Date() }, transaction);
    // A scan that linked its own code now reaches the new target (the key's change notifies the gateways).
    if (identity.scan) {
      await ApiKey.update(
        { scanTargetType: targetType, scanTargetId: targetId, scanProductId: productModelId },
        { where: { id: identity.principal.id, companyId: identity.companyId }, transaction },
      );
    }
    return configured;
  });
}

export function lockCode(ctx: QrContext, identity: Identity, codeValue: string) {
  return ctx.sequelize.transaction(async (transaction) => {
    const code = await ownedCode(ctx, identity, codeValue);
    if (code.status !== 'CONFIGURED') throw refused(code.status, 'LOCKED');
    return move(code, 'CONFIGURED', 'LOCKED', { lockedAt: new Date() }, transaction);
  });
}
