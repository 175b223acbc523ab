/** What every view gets: the API client, the scanned code (if any), shared caches and small UI services. */
import type { WidgetApi } from './api.js';
import type { Location, ProductList, ProductSummary, QrInfo } from './types.js';

export interface BookingMemory {
  operation?: string;
  locationId?: string;
  toLocationId?: string;
}

export interface Ctx {
  api: WidgetApi;
  /** `scan`: opened from a QR scan (scan key in sessionStorage); `embed`: mounted by sdk.js (key in memory). */
  mode: 'scan' | 'embed';
  /** The scanned code (scan mode), kept current after configuring or locking it. */
  qr: QrInfo | null;
  /** The product list's filters, kept while moving between screens. */
  filters: { q: string; locationId: string };
  /** The last booking's operation and locations, preselected in the next form. */
  lastBooking: BookingMemory;
  /** Active physical locations (cached until invalidated). */
  locations(): Promise<Location[]>;
  invalidateLocations(): void;
  /** Every product (all locations; cached until invalidated): for names and pickers. */
  products(): Promise<ProductSummary[]>;
  /** Every product as of now: the request on its way if there is one, else a new one (which refills the cache). */
  freshProducts(): Promise<ProductSummary[]>;
  invalidateProducts(): void;
  setCompany(name: string): void;
  setQr(qr: QrInfo): void;
  /** Read out by screen readers (polite live region). */
  announce(text: string): void;
}

/** A screen: fills `view` (already in the page), reading route parameters from `params`. */
export type View = (ctx: Ctx, view: HTMLElement, params: string[]) => Promise<void> | void;

/** A product list answer as one list (products and poly products, by name); the company goes into the header. */
export function productsOf(ctx: Pick<Ctx, 'setCompany'>, answer: ProductList): ProductSummary[] {
  ctx.setCompany(answer.company);
  return [...answer.products, ...answer.poly_products].sort((a, b) => a.name.localeCompare(b.name));
}

/** `12.5` with the product's decimals and unit, like the service's `stock_display`. */
export function formatQuantity(quantity: number, decimals: number, unit: string): string {
  return `${quantity.toFixed(decimals)} ${unit}`;
}
