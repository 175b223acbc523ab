import type { QrCode } from '@pi/common';
import { NEXT_STATES } from '../commands/transitions';

type QrRow = Pick<QrCode, 'id' | 'code' | 'status' | 'targetType' | 'targetId' | 'productModelId' | 'configuredAt' | 'lockedAt'> & { createdAt?: Date };

/** What the widget's `qr_info/` (and the token exchange) shows of a code. */
export function presentQrInfo(q: QrRow) {
  return {
    code: q.code,
    status: q.status,
    target_type: q.targetType,
    target_id: q.targetId,
    product_model_id: q.productModelId,
    allowed_transitions: NEXT_STATES[q.status],
  };
}

export function scanUrl(baseUrl: string, code: string): string {
  return `${baseUrl.replace(/\/$/, '')}/go/${code}/`;
}

/** A code on the dashboard API: its info, the URL its label encodes, and when it changed. */
export function presentQrCode(q: QrRow, baseUrl: string) {
  return {
    id: q.id,
    ...presentQrInfo(q),
    url: scanUrl(baseUrl, q.code),
    configured_at: q.configuredAt,
    locked_at: q.lockedAt,
    created_at: q.createdAt ?? null,
  };
}
