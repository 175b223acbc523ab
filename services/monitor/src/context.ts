/** What the monitor's routes and commands share: the database, the settings, the decoded key, the queue. */
import type { Database, Logger } from '@pi/common';
import type { DeliveryQueue } from '@pi/notify';
import type { MonitorConfig } from './config';

export interface MonitorContext {
  sequelize: Database['sequelize'];
  config: MonitorConfig;
  /** SECRET_ENCRYPTION_KEY, decoded once at start. Encrypts and decrypts channel secrets. */
  encryptionKey: Buffer;
  logger?: Logger;
  /** Set when REDIS_URL is: deliveries are queued for the notifier instead of attempted in the request. */
  queue?: DeliveryQueue;
}
