/**
 * What a key minted by a QR scan may reach (docs/api/scanning.md), checked by the services that hold the data
 * on every widget endpoint: the code's target product (an item's or work order's product), the locations
 * needed to book it, and the code itself. Anything else a scan names answers 403 `access_denied`; endpoints a
 * scan never needs do too. Callers that are not scans pass every check.
 */
import { AccessDeniedError, AppError } from '../errors';
import type { Identity, ScanScope } from '../identity';

/** A `staff` scan books only once a user of the company signed in inside the widget. */
export class SignInRequiredError extends AppError {
  constructor() {
    super(403, 'sign_in_required', 'Sign in as a user of the company to book stock from this scan.');
  }
}

const same = (a: string | null | undefined, b: string) => !!a && a.toLowerCase() === b.toLowerCase();

/**
 * A user signed in to the scan of a VIRGIN code: until the code is linked, the scan reads the company's
 * products, items and work orders to pick its target (it books nothing: it has no target yet).
 */
export function scanPicksTarget(scan: ScanScope | undefined): boolean {
  return !!scan && !!scan.userId && !scan.targetType;
}

/** The product a scan reads, or `undefined` for no limit (not a scan, or one picking its target); null: none. */
export function scanProduct(identity: Identity): string | null | undefined {
  return identity.scan && !scanPicksTarget(identity.scan) ? identity.scan.productId : undefined;
}

/** A product (or a record of it) a scan reads must be its target's. */
export function assertScanReachesProduct(identity: Identity, productId: string): void {
  if (identity.scan && !scanPicksTarget(identity.scan) && !same(identity.scan.productId, productId)) throw new AccessDeniedError();
}

/** Booking stock of `productId`: the target's product only, never under `read`, under `staff` only signed in. */
export function assertScanMayBook(identity: Identity, productId: string): void {
  const scan = identity.scan;
  if (!scan) return;
  if (!same(scan.productId, productId)) throw new AccessDeniedError();
  if (scan.userId) return;
  if (scan.policy === 'read') throw new AccessDeniedError();
  if (scan.policy === 'staff') throw new SignInRequiredError();
}

/** The code a scan reaches is its own. */
export function assertScanReachesCode(identity: Identity, code: string): void {
  if (identity.scan && identity.scan.code !== code) throw new AccessDeniedError();
}

/** Changing a code (linking, locking) needs the widget's own key or a signed-in user: never an anonymous scan. */
export function assertScanMayChangeCode(identity: Identity, code: string): ScanScope | undefined {
  assertScanReachesCode(identity, code);
  if (identity.scan && !identity.scan.userId) throw new AccessDeniedError();
  return identity.scan;
}

/** An endpoint no scan needs (creating locations). */
export function refuseScan(identity: Identity): void {
  if (identity.scan) throw new AccessDeniedError();
}
