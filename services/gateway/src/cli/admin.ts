/**
 * Operator commands: `npm run admin -- <command>`. Works on DATABASE_URL, or on the standalone system of
 * DATA_DIR (running or not), with the settings its last `npm start` had (PASSWORD_HASH_COST among them).
 *
 *   create-company --name <company> --username <admin> [--email <email>] [--password-stdin]
 *   set-tier <api-key-id> <free|standard|premium>
 *   list-companies
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import Joi from 'joi';
import { Company, TIERS, Tier, connectDatabase, operatorMessage, validateValue } from '@pi/common';
import { openDatabaseUrl, standaloneEnvironment } from '@pi/db';
import type { Sequelize } from 'sequelize';
import { setApiKeyTier } from '../commands/api-keys';
import { passwordHashCost } from '../config';
import { registerCompany } from '../commands/register-company';
import { presentApiKey, presentCompany, presentUser } from '../presenters';
import { registerBody } from '../routes/register/schema';

const USAGE = `usage: npm run admin -- <command>
  create-company --name <company> --username <admin> [--email <email>] [--password-stdin]
  set-tier <api-key-id> <free|standard|premium>
  list-companies`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

async function createCompany(sequelize: Sequelize, args: string[], env: NodeJS.ProcessEnv) {
  const { values } = parseArgs({
    args,
    options: { name: { type: 'string' }, username: { type: 'string' }, email: { type: 'string' }, 'password-stdin': { type: 'boolean' } },
  });
  const generated = values['password-stdin'] ? undefined : randomBytes(12).toString('base64url');
  const password = generated ?? (await readStdin());
  const input = validateValue(registerBody, { company_name: values.name, username: values.username, email: values.email, password });
  const cost = validateValue(passwordHashCost, env.PASSWORD_HASH_COST, 'PASSWORD_HASH_COST');
  const { company, user, apiKey, keyValue } = await registerCompany(
    { sequelize },
    { companyName: input.company_name, username: input.username, password: input.password, email: input.email },
    cost,
    { byOperator: true },
  );
  return {
    company: presentCompany(company),
    user: presentUser(user),
    ...(generated ? { password: generated } : {}),
    api_key: presentApiKey(apiKey, keyValue),
  };
}

function setTierArguments(args: string[]): { id: string; tier: Tier } {
  const [id, tier] = args;
  validateValue(Joi.string().guid().required(), id, 'api-key-id');
  validateValue(
    Joi.string()
      .valid(...TIERS)
      .required(),
    tier,
    'tier',
  );
  return { id, tier: tier as Tier };
}

async function setTier(sequelize: Sequelize, { id, tier }: { id: string; tier: Tier }) {
  await setApiKeyTier({ sequelize }, id, tier);
  return { id, tier };
}

async function listCompanies() {
  const rows = await Company.findAll({ order: [['createdAt', 'ASC']], raw: true });
  return rows.map(presentCompany);
}

async function run(command: string | undefined, args: string[], sequelize: Sequelize, env: NodeJS.ProcessEnv) {
  switch (command) {
    case 'create-company':
      return createCompany(sequelize, args, env);
    case 'set-tier':
      return setTier(sequelize, setTierArguments(args));
    case 'list-companies':
      return listCompanies();
    default:
      throw new Error(USAGE);
  }
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === 'set-tier') setTierArguments(args); // refuse bad arguments before starting a database
  const env = standaloneEnvironment(process.env);
  const target = await openDatabaseUrl(env);
  const db = connectDatabase({ url: target.url, poolMax: 2, applicationName: 'pi-admin' });
  try {
    process.stdout.write(`${JSON.stringify(await run(command, args, db.sequelize, env), null, 2)}\n`);
  } finally {
    await db.close();
    await target.release();
  }
}

main().catch((err: Error & { details?: unknown }) => {
  process.stderr.write(`admin: ${operatorMessage(err)}${err.details && Object.keys(err.details).length ? ` ${JSON.stringify(err.details)}` : ''}\n`);
  process.exit(1);
});
