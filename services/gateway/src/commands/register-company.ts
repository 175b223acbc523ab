/**
 * A new company, in one transaction: the company, its two VIRTUAL system locations (Inbound, Outbound) that
 * the stock ledger books additions and subtractions against, its first admin user, and its first API key
 * (read + write, the company's widget key). Used by registration and by `npm run admin -- create-company`.
 */
import { ApiKey, Company, Identity, Location, User, generateKeyValue, permissionsOfRole, recordAudits } from '@pi/common';
import type { GatewayContext } from '../context';
import { auditedKey } from './api-keys';
import { assertStrongPassword } from '../auth/password-policy';
import { hashPassword } from '../auth/passwords';
import { auditedUser, rethrowUsernameTaken, USER_SECRETS } from './users';

export interface RegistrationInput {
  companyName: string;
  username: string;
  password: string;
  email?: string | null;
}

/**
 * The audit log's first entries name who made the company: its new admin on registration, the operator for
 * `npm run admin -- create-company` (`byOperator`).
 */
export async function registerCompany(
  { sequelize }: Pick<GatewayContext, 'sequelize'>,
  input: RegistrationInput,
  passwordCost: number,
  { byOperator = false } = {},
) {
  assertStrongPassword(input.password, { username: input.username, email: input.email, companyName: input.companyName });
  const passwordHash = await hashPassword(input.password, passwordCost);
  const key = generateKeyValue();
  return sequelize
    .transaction(async (transaction) => {
      const company = await Company.create({ name: input.companyName }, { transaction });
      await Location.bulkCreate(
        [
          { companyId: company.id, name: 'Inbound', type: 'VIRTUAL', systemRole: 'INBOUND', isActive: true },
          { companyId: company.id, name: 'Outbound', type: 'VIRTUAL', systemRole: 'OUTBOUND', isActive: true },
        ],
        { transaction },
      );
      const user = await User.create(
        { companyId: company.id, username: input.username, email: input.email ?? null, passwordHash, role: 'admin', isActive: true },
        { transaction },
      );
      const apiKey = await ApiKey.create(
        {
          companyId: company.id,
          name: 'Widget key',
          prefix: key.prefix,
          keyHash: key.hash,
          permissions: ['read', 'write'],
          allowedDomains: [],
          tier: 'free',
          isWidgetKey: true,
          usageCount: '0',
          createdByUserId: user.id,
        },
        { transaction },
      );
      const founder: Identity = { companyId: company.id, principal: { kind: 'user', id: user.id }, permissions: permissionsOfRole('admin'), role: 'admin' };
      await recordAudits(transaction, company.id, byOperator ? null : founder, [
        { action: 'create', resourceType: 'company', resourceId: company.id, after: { name: company.name } },
        { action: 'create', resourceType: 'user', resourceId: user.id, after: auditedUser(user), secretFields: USER_SECRETS },
        { action: 'create', resourceType: 'api_key', resourceId: apiKey.id, after: auditedKey(apiKey), secretFields: ['key'] },
      ]);
      return { company, user, apiKey, keyValue: key.value };
    })
    .catch(rethrowUsernameTaken);
}
