/**
 * The monitor's own settings (besides the common ones; see docs/operations/configuration.md): the delivery settings and
 * the queue's name and prefix, which it shares with the notifier (libs/notify settings.ts, queue.ts).
 * SECRET_ENCRYPTION_KEY is checked here to decode to a 32-byte key, so a bad key stops the process at start
 * with a message naming the variable, not at the first channel save.
 */
import Joi from 'joi';
import { Logger, ServiceConfig, commonEnv, loadConfig } from '@pi/common/core';
import { DeliveryQueue, DeliveryQueueSettings, DeliverySettings, deliveryEnv, deliveryQueueEnv, parseEncryptionKey } from '@pi/notify';

const encryptionKey = Joi.string()
  .required()
  .custom((value: string, helpers) => {
    try {
      parseEncryptionKey(value);
      return value;
    } catch (err) {
      return helpers.message({ custom: `"SECRET_ENCRYPTION_KEY" is invalid: ${(err as Error).message}` });
    }
  });

export type MonitorSettings = DeliverySettings & DeliveryQueueSettings;

export const monitorEnv: Record<keyof MonitorSettings, Joi.Schema> = { ...deliveryEnv, ...deliveryQueueEnv, SECRET_ENCRYPTION_KEY: encryptionKey };

/** What the monitor's routes read from the configuration. */
export type MonitorConfig = Pick<ServiceConfig, 'PUBLIC_BASE_URL'> & MonitorSettings;

/**
 * The delivery settings from `source` (tests build the monitor in-process with this); throws ConfigError
 * naming every bad variable.
 */
export function loadMonitorSettings(source: NodeJS.ProcessEnv): MonitorSettings {
  return loadConfig<MonitorSettings>(Joi.object({ NODE_ENV: commonEnv.NODE_ENV, ...monitorEnv }), source);
}

/**
 * The delivery queue of these settings, or none without REDIS_URL. Its name and prefix must be the notifier's,
 * or deliveries would wait where nobody listens: the service and check_rules both take it from here.
 */
export function deliveryQueueOf(settings: MonitorSettings, logger?: Logger): DeliveryQueue | undefined {
  if (!settings.REDIS_URL) return undefined;
  return new DeliveryQueue(settings.REDIS_URL, { name: settings.DELIVERY_QUEUE_NAME, prefix: settings.DELIVERY_QUEUE_PREFIX, logger });
}
