import { ApiKey } from './api-key';
import { AuditEntry } from './audit-entry';
import { Batch } from './batch';
import { Company } from './company';
import { Location } from './location';
import { EventLogEntry, MonitoringRule, NotificationAttempt, NotificationChannel, NotificationDelivery } from './monitoring';
import { PhysicalItem } from './physical-item';
import { ProductModel } from './product-model';
import { QrCode } from './qr-code';
import { StockMovement } from './stock-movement';
import { User } from './user';
import { WorkOrder } from './work-order';

export { ApiKey, AuditEntry, Batch, Company, Location, PhysicalItem, ProductModel, QrCode, StockMovement, User, WorkOrder };
export * from './qr-code';
export * from './monitoring';
export { EventLogEntry, MonitoringRule, NotificationAttempt, NotificationChannel, NotificationDelivery };
export * from './location';
export * from './product-model';
export * from './stock-movement';
export * from './work-order';

export const ALL_MODELS = [
  Company,
  User,
  ApiKey,
  Location,
  ProductModel,
  Batch,
  PhysicalItem,
  WorkOrder,
  StockMovement,
  QrCode,
  MonitoringRule,
  EventLogEntry,
  NotificationChannel,
  NotificationDelivery,
  NotificationAttempt,
  AuditEntry,
];
