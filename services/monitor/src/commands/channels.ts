/**
 * Notification channels (admins only, see routes). Each channel has a server-generated signing secret,
 * stored encrypted with SECRET_ENCRYPTION_KEY and shown to the company's admins; it never reaches a log line
 * or a delivery record. A WEBHOOK URL is checked against the SSRF rules when saved (and again by the sender at
 * every attempt); the DNS lookup happens before any row is locked.
 */
import {
  AuditAction,
  AuditSnapshot,
  ChannelKind,
  ConflictError,
  EventType,
  Identity,
  NotificationChannel,
  NotificationDelivery,
  PageRequest,
  ValidationError,
  findOwned,
  pageWindow,
  OrderTerm,
  recordAudit,
  sequelizeOrder,
} from '@pi/common';
import {
  closeBreaker,
  SecretBoxError,
  assertPublicUrl,
  buildTestBody,
  createDeliveries,
  decryptSecret,
  dispatchDeliveries,
  dueDeliveryIdsOfChannel,
  encryptSecret,
  generateChannelSecret,
} from '@pi/notify';
import type { Transaction } from 'sequelize';
import { CHANNEL_ORDERING } from './orderings';
import type { MonitorContext } from '../context';
import { DeliveryView, withAttempts } from './deliveries';

export interface ChannelFilters extends PageRequest {
  kind?: ChannelKind;
  is_active?: boolean;
  ordering?: OrderTerm[];
}

export interface NewChannel {
  name: string;
  kind: ChannelKind;
  url?: string;
  recipients?: string[];
  events: EventType[];
  max_attempts: number;
  is_active: boolean;
}

export type ChannelChanges = Partial<Omit<NewChannel, 'kind'>>;

/** A channel with its secret in plain text (null when it cannot be decrypted with the configured key). */
export interface ChannelView {
  channel: NotificationChannel;
  secret: string | null;
}

type Ctx = Pick<MonitorContext, 'config' | 'encryptionKey' | 'logger'>;

/** 400 naming `url` unless every address of its host is public (loopback only where the settings allow it). */
async function checkUrl(ctx: Ctx, url: string): Promise<void> {
  await assertPublicUrl(url, { allowLoopback: ctx.config.ALLOW_LOOPBACK_WEBHOOKS });
}

/**
 * The plain secret of a channel. A value the key cannot open (the key was changed) shows as null, and is
 * logged by channel id only; rotating the secret repairs the channel.
 */
export function channelSecret(ctx: Ctx, channel: Pick<NotificationChannel, 'id' | 'secretEncrypted'>): string | null {
  try {
    return decryptSecret(channel.secretEncrypted, ctx.encryptionKey);
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    ctx.logger?.warn({ channel_id: channel.id }, 'channel secret cannot be decrypted with SECRET_ENCRYPTION_KEY; rotate it');
    return null;
  }
}

/** Only a WEBHOOK channel's secret is ever decrypted: an EMAIL channel signs nothing and shows none. */
const view = (ctx: Ctx, channel: NotificationChannel): ChannelView => ({ channel, secret: channel.kind === 'WEBHOOK' ? channelSecret(ctx, channel) : null });

/**
 * A channel's fields as the audit log records them (docs/api/roles-and-audit-log.md): the signing secret only
 * as "[changed]", never its value (encrypted or not).
 */
function auditedChannel(channel: NotificationChannel): AuditSnapshot {
  return {
    name: channel.name,
    kind: channel.kind,
    url: channel.url,
    recipients: channel.recipients,
    events: channel.events,
    max_attempts: channel.maxAttempts,
    is_active: channel.isActive,
    paused_at: channel.pausedAt,
    secret: channel.secretEncrypted,
  };
}

function auditChannel(
  transaction: Transaction,
  identity: Identity,
  action: AuditAction,
  before: AuditSnapshot | null,
  channel: NotificationChannel | null,
  id: string,
) {
  return recordAudit(transaction, identity.companyId, identity, {
    action,
    resourceType: 'notification_channel',
    resourceId: id,
    before,
    after: channel ? auditedChannel(channel) : null,
    secretFields: ['secret'],
  });
}

export async function listChannels(ctx: MonitorContext, identity: Identity, filters: ChannelFilters) {
  const where: Record<string, unknown> = { companyId: identity.companyId };
  if (filters.kind) where.kind = filters.kind;
  if (filters.is_active !== undefined) where.isActive = filters.is_active;
  const { rows, count } = await NotificationChannel.findAndCountAll({
    where,
    order: sequelizeOrder(CHANNEL_ORDERING, filters.ordering),
    ...pageWindow(filters),
  });
  return { count, rows: rows.map((c) => view(ctx, c)) };
}

const findChannel = (identity: Identity, id: string) => findOwned(NotificationChannel, id, identity.companyId, { what: 'Channel' });

export async function getChannel(ctx: MonitorContext, identity: Identity, id: string): Promise<ChannelView> {
  return view(ctx, await findChannel(identity, id));
}

export async function createChannel(ctx: MonitorContext, identity: Identity, input: NewChannel): Promise<ChannelView> {
  if (input.kind === 'WEBHOOK') await checkUrl(ctx, input.url!);
  const secret = generateChannelSecret();
  const channel = await ctx.sequelize.transaction(async (transaction) => {
    const row = await NotificationChannel.create(
      {
        companyId: identity.companyId,
        name: input.name,
        kind: input.kind,
        url: input.kind === 'WEBHOOK' ? input.url : null,
        recipients: input.kind === 'EMAIL' ? input.recipients : null,
        events: input.events,
        secretEncrypted: encryptSecret(secret, ctx.encryptionKey),
        maxAttempts: input.max_attempts,
        isActive: input.is_active,
      },
      { transaction },
    );
    await auditChannel(transaction, identity, 'create', null, row, row.id);
    return row;
  });
  return { channel, secret: input.kind === 'WEBHOOK' ? secret : null };
}

export async function updateChannel(ctx: MonitorContext, identity: Identity, id: string, changes: ChannelChanges): Promise<ChannelView> {
  const current = await findChannel(identity, id);
  if (changes.url !== undefined && current.kind !== 'WEBHOOK') throw new ValidationError({ url: 'url is only for WEBHOOK channels' });
  if (changes.recipients !== undefined && current.kind !== 'EMAIL') throw new ValidationError({ recipients: 'recipients is only for EMAIL channels' });
  if (changes.url !== undefined) await checkUrl(ctx, changes.url);
  const channel = await ctx.sequelize.transaction(async (transaction) => {
    const row = await findOwned(NotificationChannel, id, identity.companyId, { transaction, lock: true, what: 'Channel' });
    const before = auditedChannel(row);
    if (changes.name !== undefined) row.name = changes.name;
    if (changes.url !== undefined) row.url = changes.url;
    if (changes.recipients !== undefined) row.recipients = changes.recipients;
    if (changes.events !== undefined) row.events = changes.events;
    if (changes.max_attempts !== undefined) row.maxAttempts = changes.max_attempts;
    if (changes.is_active !== undefined) row.isActive = changes.is_active;
    await row.save({ transaction });
    await auditChannel(transaction, identity, 'update', before, row, row.id);
    return row;
  });
  return view(ctx, channel);
}

/** Deletes the channel; its deliveries and their attempts go with it (ON DELETE CASCADE). */
export async function deleteChannel(ctx: MonitorContext, identity: Identity, id: string): Promise<void> {
  await ctx.sequelize.transaction(async (transaction) => {
    const channel = await findOwned(NotificationChannel, id, identity.companyId, { transaction, lock: true, what: 'Channel' });
    const before = auditedChannel(channel);
    await channel.destroy({ transaction });
    await auditChannel(transaction, identity, 'delete', before, null, channel.id);
  });
}

/**
 * A new secret; the old one stops signing at once (pending retries are signed with the new one). An EMAIL
 * channel has no signing secret to rotate: 409 `webhook_only`.
 */
export async function rotateChannelSecret(ctx: MonitorContext, identity: Identity, id: string): Promise<ChannelView> {
  const secret = generateChannelSecret();
  const channel = await ctx.sequelize.transaction(async (transaction) => {
    const row = await findOwned(NotificationChannel, id, identity.companyId, { transaction, lock: true, what: 'Channel' });
    if (row.kind !== 'WEBHOOK') {
      throw new ConflictError('webhook_only', 'Only WEBHOOK channels sign their deliveries: an EMAIL channel has no secret to rotate.', { kind: row.kind });
    }
    const before = auditedChannel(row);
    row.secretEncrypted = encryptSecret(secret, ctx.encryptionKey);
    await row.save({ transaction });
    await auditChannel(transaction, identity, 'rotate_secret', before, row, row.id);
    return row;
  });
  return { channel, secret };
}

/**
 * Resumes a channel its circuit breaker paused (docs/api/monitoring-and-notifications.md "Delivery guarantees"): the failure count starts again
 * and its waiting deliveries go out: queued at once when there is a queue (if the queue is down they stay due),
 * else sent by the next check_rules run. A channel that is not paused is answered unchanged.
 */
export async function resumeChannel(ctx: MonitorContext, identity: Identity, id: string): Promise<ChannelView> {
  let resumed = false;
  const channel = await ctx.sequelize.transaction(async (transaction) => {
    const row = await findOwned(NotificationChannel, id, identity.companyId, { transaction, lock: true, what: 'Channel' });
    if (row.pausedAt === null && row.consecutiveFailures === 0) return row;
    resumed = row.pausedAt !== null;
    const before = auditedChannel(row);
    await closeBreaker(ctx.sequelize, transaction, row.id);
    const after = await row.reload({ transaction });
    await auditChannel(transaction, identity, 'resume', before, after, row.id);
    return after;
  });
  if (resumed) {
    ctx.logger?.info({ channel_id: channel.id, user_id: identity.principal.id }, 'channel resumed by an admin');
    if (ctx.queue) {
      const due = await dueDeliveryIdsOfChannel(ctx.sequelize, channel.id, new Date());
      await dispatchDeliveries(ctx.sequelize, due, ctx.config, ctx.queue).catch((err: Error) =>
        ctx.logger?.warn(
          { channel_id: channel.id, err: { message: err.message } },
          'deliveries of the resumed channel not queued; the next check_rules run queues them',
        ),
      );
    }
  }
  return view(ctx, channel);
}

export interface TestSend {
  /** True when the delivery went to the queue (the notifier sends it); false when it was attempted here. */
  queued: boolean;
  delivery: DeliveryView;
}

/**
 * Sends a TEST event through the channel now: one delivery (the webhook body, type TEST, no event log entry),
 * attempted in this request when there is no queue, else queued (and if the queue is down, left due in the
 * outbox for the next check_rules run). It is sent whether or not the channel lists
 * TEST in `events` (an admin asked for this one channel); an inactive channel answers 409 `channel_inactive`,
 * a paused one 409 `channel_paused`.
 * A failed first attempt is retried on the usual schedule, like any delivery.
 */
export async function sendTestDelivery(ctx: MonitorContext, identity: Identity, id: string): Promise<TestSend> {
  const channel = await findChannel(identity, id);
  if (!channel.isActive) {
    throw new ConflictError('channel_inactive', 'The channel is inactive; activate it (PATCH is_active: true) to test it.', { is_active: false });
  }
  if (channel.pausedAt) {
    throw new ConflictError('channel_paused', 'The channel is paused after repeated failed attempts; resume it (POST …/resume/) to test it.', {
      state: 'paused',
      paused_at: channel.pausedAt.toISOString(),
    });
  }
  const target = { id: channel.id, companyId: channel.companyId, events: ['TEST' as const], isActive: true, maxAttempts: channel.maxAttempts };
  const [created] = await createDeliveries(ctx.sequelize, null, {
    companyId: identity.companyId,
    eventId: null,
    eventType: 'TEST',
    body: buildTestBody(identity.companyId, new Date()),
    channels: [target],
  });
  try {
    await dispatchDeliveries(ctx.sequelize, [created.id], ctx.config, ctx.queue, { logger: ctx.logger });
  } catch (err) {
    // Only the queue can fail here (a synchronous attempt records its failures). The delivery is in the outbox,
    // due now: the next check_rules run queues it again, so the request is still accepted (202).
    if (!ctx.queue) throw err;
    ctx.logger?.warn({ delivery_id: created.id, err: { message: (err as Error).message } }, 'test delivery not queued; the next check_rules run queues it');
  }
  const delivery = await NotificationDelivery.findByPk(created.id, { raw: true });
  // Deleted meanwhile (the channel with it): answer what was created.
  const [view] = await withAttempts([delivery ?? created]);
  return { queued: ctx.queue !== undefined, delivery: view };
}
