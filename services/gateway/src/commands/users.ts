/** Company users: listing, creation, changes and deactivation, always inside the caller's company. */
import {
  AuditSnapshot,
  Company,
  ConflictError,
  Identity,
  ListOrdering,
  OrderTerm,
  PageRequest,
  Role,
  User,
  findOwned,
  pageWindow,
  recordAudit,
  rethrowAlreadyExists,
  sequelizeOrder,
} from '@pi/common';
import { Op, type Transaction } from 'sequelize';
import type { GatewayContext } from '../context';
import { assertStrongPassword } from '../auth/password-policy';
import { hashPassword } from '../auth/passwords';

export const rethrowUsernameTaken = rethrowAlreadyExists('That username is already taken.', 'username', 'is already taken');

/** What the user list may be sorted by (docs/api/ordering-and-search.md); usernames are unique ignoring case. */
export const USER_ORDERING: ListOrdering = {
  fields: { username: { sql: ['lower(username)'], unique: true }, role: 'role', created_at: 'created_at' },
  default: 'created_at',
};

export async function listUsers(_ctx: GatewayContext, identity: Identity, page: PageRequest & { ordering?: OrderTerm[] }) {
  const { rows, count } = await User.findAndCountAll({
    where: { companyId: identity.companyId },
    order: sequelizeOrder(USER_ORDERING, page.ordering),
    ...pageWindow(page),
    raw: true,
  });
  return { rows, count };
}

export function getUser(_ctx: GatewayContext, identity: Identity, id: string) {
  return findOwned(User, id, identity.companyId, { what: 'User' });
}

export interface NewUser {
  username: string;
  password: string;
  email?: string | null;
  role: Role;
}

/** The company's name, which a password of its users must not be (docs/api/authentication.md "Passwords"). */
async function companyNameOf(companyId: string): Promise<string | undefined> {
  return (await Company.findByPk(companyId, { attributes: ['name'], raw: true }))?.name;
}

/**
 * A new password for a user of the caller's company, checked against that user's names. A user of another
 * company (or none) is left to the change itself, which answers 403/404 without saying more.
 */
async function assertStrongNewPassword(identity: Identity, userId: string, password: string, newEmail?: string | null) {
  const user = await User.findOne({ where: { id: userId, companyId: identity.companyId }, attributes: ['username', 'email'], raw: true });
  if (!user) return;
  const companyName = await companyNameOf(identity.companyId);
  assertStrongPassword(password, { username: user.username, email: newEmail ?? user.email, companyName });
}

/** A user's fields as the audit log records them (docs/api/roles-and-audit-log.md): the password only as "[changed]". */
export function auditedUser(user: User): AuditSnapshot {
  return { username: user.username, email: user.email, role: user.role, is_active: user.isActive, password: user.passwordHash };
}
export const USER_SECRETS = ['password'] as const;

export async function createUser({ sequelize, config }: GatewayContext, identity: Identity, input: NewUser) {
  assertStrongPassword(input.password, { username: input.username, email: input.email, companyName: await companyNameOf(identity.companyId) });
  const passwordHash = await hashPassword(input.password, config.PASSWORD_HASH_COST);
  return sequelize
    .transaction(async (transaction) => {
      const user = await User.create(
        { companyId: identity.companyId, username: input.username, email: input.email ?? null, passwordHash, role: input.role, isActive: true },
        { transaction },
      );
      await recordAudit(transaction, identity.companyId, identity, {
        action: 'create',
        resourceType: 'user',
        resourceId: user.id,
        after: auditedUser(user),
        secretFields: USER_SECRETS,
      });
      return user;
    })
    .catch(rethrowUsernameTaken);
}

export interface UserChanges {
  email?: string | null;
  password?: string;
  role?: Role;
  is_active?: boolean;
}

/**
 * Applies changes; a company never loses its last active admin. A change that can take an admin away locks
 * the company's active admins and the user together, in id order: two admins demoting each other at once
 * then wait in line, and the second sees the first's change, instead of each holding its own row while waiting
 * for the other's (a deadlock). The user is in that set whether or not they are an admin as the set is read,
 * so the order never depends on a promotion that commits meanwhile. The locks are NO KEY UPDATE: a key minted
 * for a user's scan references the user (a key-share lock), and need not wait for a change of the user.
 */
export async function updateUser(
  { sequelize, config }: GatewayContext,
  identity: Identity,
  id: string,
  changes: UserChanges,
  action: 'update' | 'deactivate' = 'update',
) {
  if (changes.password) await assertStrongNewPassword(identity, id, changes.password, changes.email);
  const passwordHash = changes.password ? await hashPassword(changes.password, config.PASSWORD_HASH_COST) : undefined;
  return sequelize.transaction(async (transaction) => {
    const activeAdminIds = removesAnAdmin(changes) ? await lockActiveAdminsAnd(identity.companyId, id, transaction) : [];
    const user = await findOwned(User, id, identity.companyId, { transaction, lock: transaction.LOCK.NO_KEY_UPDATE, what: 'User' });
    const before = auditedUser(user);
    const losesAdmin = user.role === 'admin' && user.isActive && removesAnAdmin(changes);
    if (losesAdmin && !activeAdminIds.some((adminId) => adminId !== user.id)) throw lastAdminError(changes);
    if (changes.email !== undefined) user.email = changes.email;
    if (changes.role !== undefined) user.role = changes.role;
    if (changes.is_active !== undefined) user.isActive = changes.is_active;
    if (passwordHash) user.passwordHash = passwordHash;
    await user.save({ transaction });
    await recordAudit(transaction, identity.companyId, identity, {
      action,
      resourceType: 'user',
      resourceId: user.id,
      before,
      after: auditedUser(user),
      secretFields: USER_SECRETS,
    });
    return user;
  });
}

/** Whether these changes, made to an active admin, leave them no longer one. */
function removesAnAdmin(changes: UserChanges): boolean {
  return (changes.role !== undefined && changes.role !== 'admin') || changes.is_active === false;
}

/** Locks the company's active admins and the user `userId` in id order; answers the ids of the active admins. */
async function lockActiveAdminsAnd(companyId: string, userId: string, transaction: Transaction): Promise<string[]> {
  const rows = await User.findAll({
    where: { companyId, [Op.or]: [{ role: 'admin', isActive: true }, { id: userId }] },
    order: [['id', 'ASC']],
    lock: transaction.LOCK.NO_KEY_UPDATE,
    transaction,
    attributes: ['id', 'role', 'isActive'],
  });
  return rows.filter((row) => row.role === 'admin' && row.isActive).map((row) => row.id);
}

/** 409 naming the field whose change would leave the company without an active admin. */
function lastAdminError(changes: UserChanges): ConflictError {
  const field = changes.is_active === false ? 'is_active' : 'role';
  return new ConflictError('last_admin', 'A company needs at least one active admin.', { [field]: 'cannot remove the last active admin' });
}
