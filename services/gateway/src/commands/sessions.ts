/** Logging in and refreshing: credentials in, bearer tokens out. */
import { Op, fn, col, where } from 'sequelize';
import { AuthenticationError, User } from '@pi/common';
import { decoyHash, verifyPassword } from '../auth/passwords';
import { issueAccessToken, issueRefreshToken, verifyUserToken } from '../auth/user-tokens';
import type { GatewayContext } from '../context';

const BAD_CREDENTIALS = 'No active account found with the given credentials.';

export function findUserByUsername(_ctx: GatewayContext, username: string) {
  return User.findOne({ where: { [Op.and]: [where(fn('lower', col('username')), username.toLowerCase())] }, raw: true });
}

export async function logIn(ctx: GatewayContext, username: string, password: string) {
  const { config } = ctx;
  const user = await findUserByUsername(ctx, username);
  const hash = user?.passwordHash ?? (await decoyHash(config.PASSWORD_HASH_COST));
  const passwordOk = await verifyPassword(password, hash);
  if (!user || !passwordOk || !user.isActive) throw new AuthenticationError(BAD_CREDENTIALS);
  return {
    access: issueAccessToken(user, config.JWT_SECRET),
    refresh: issueRefreshToken(user, config.JWT_SECRET),
  };
}

export async function refreshAccess({ config }: GatewayContext, refreshToken: string) {
  const claims = verifyUserToken(refreshToken, 'refresh', config.JWT_SECRET);
  // Read from the database, not the credential cache: refreshes are rare, and this one must see the latest version.
  const user = await User.findByPk(claims.sub, { attributes: ['id', 'companyId', 'isActive', 'tokenVersion'], raw: true });
  if (!user || !user.isActive || user.companyId !== claims.cid || user.tokenVersion !== claims.ver)
    throw new AuthenticationError('Token is invalid or expired.');
  return { access: issueAccessToken(user, config.JWT_SECRET) };
}
