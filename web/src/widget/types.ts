/** The widget API's answers as the widget uses them (README "Widget inventory endpoints", "Widget records", "QR codes"). */
export interface QrInfo {
  code: string;
  status: 'VIRGIN' | 'CONFIGURED' | 'LOCKED' | string;
  target_type: 'PRODUCT' | 'ITEM' | 'WORK_ORDER' | string | null;
  target_id: string | null;
  product_model_id: string | null;
  allowed_transitions?: string[];
}

export interface ExchangeAnswer {
  api_key: string;
  expires_at: string;
  qr: QrInfo;
}

export interface ProductSummary {
  id: string;
  name: string;
  sku: string;
  stock_display: string;
  engine_type: string;
  unit?: string;
  decimals?: number;
}

export interface ProductList {
  company: string;
  products: ProductSummary[];
  poly_products: ProductSummary[];
}

export interface LocationStock {
  location_id: string;
  location_name: string;
  location_type: string;
  quantity: number;
  stock_display: string;
}

export interface Batch {
  id: string;
  code: string;
  expiration_date: string | null;
  quantity: number;
  stock_display: string;
}

export interface ProductDetail {
  id: string;
  name: string;
  sku: string;
  description: string | null;
  profile: 'STANDARD' | 'SERIALIZED' | 'BATCH' | 'DIMENSIONAL' | string;
  engine_type: string;
  unit: string;
  decimals: number;
  total_quantity: number;
  stock_display: string;
  locations: LocationStock[];
  batches?: Batch[];
  items_count?: number;
}

export interface Location {
  id: string;
  name: string;
  type: string;
  parent_id: string | null;
}

export interface Item {
  id: string;
  serial_number: string;
  location_id: string;
  location_name: string;
}

export interface WorkOrder {
  id: string;
  number: string;
  title: string;
  status: string;
  product_id: string | null;
  quantity: number | null;
  due_date: string | null;
}

export interface LocationInventory {
  location: { id: string; name: string; type: string };
  products: Array<{ id: string; sku: string; name: string; quantity: number; stock_display: string }>;
}

export interface BookingAnswer {
  success: true;
  new_stock_display: string;
  location_stock_display?: string;
  from_stock_display?: string;
  to_stock_display?: string;
  direction?: 'in' | 'out';
  items?: Array<{ id: string; serial_number: string }>;
  batch?: { id: string; code: string; expiration_date: string | null };
}
