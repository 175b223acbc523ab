import { expect } from 'chai';
import { loadGatewayConfig } from '../src/config';

describe('PASSWORD_HASH_COST', () => {
  const settings = (env: Record<string, string>) => ({
    DATABASE_URL: 'postgres://pi@127.0.0.1:5432/pi',
    INTERNAL_JWT_SECRET: 'i'.repeat(40),
    JWT_SECRET: 'j'.repeat(40),
    PUBLIC_BASE_URL: 'http://localhost:8000',
    INVENTORY_URL: 'http://127.0.0.1:8001',
    QR_URL: 'http://127.0.0.1:8002',
    MONITOR_URL: 'http://127.0.0.1:8003',
    NOTIFIER_URL: 'http://127.0.0.1:8004',
    ...env,
  });

  it('goes down to 10 only with NODE_ENV=test, where the suite builds thousands of accounts', () => {
    expect(loadGatewayConfig(settings({ NODE_ENV: 'test', PASSWORD_HASH_COST: '10' })).PASSWORD_HASH_COST).to.equal(10);
    expect(() => loadGatewayConfig(settings({ NODE_ENV: 'test', PASSWORD_HASH_COST: '9' }))).to.throw(/PASSWORD_HASH_COST.*10/);
  });

  it('keeps 14 as the floor anywhere else, and 16 as the default', () => {
    for (const NODE_ENV of ['production', 'development']) {
      expect(() => loadGatewayConfig(settings({ NODE_ENV, PASSWORD_HASH_COST: '13' })), NODE_ENV).to.throw(/PASSWORD_HASH_COST.*14/);
      expect(loadGatewayConfig(settings({ NODE_ENV, PASSWORD_HASH_COST: '14' })).PASSWORD_HASH_COST).to.equal(14);
      expect(loadGatewayConfig(settings({ NODE_ENV })).PASSWORD_HASH_COST).to.equal(16);
    }
  });
});
