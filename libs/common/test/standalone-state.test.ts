import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadOrCreateStandaloneState, readStandaloneState } from '../src';

describe('standalone state (DATA_DIR/standalone.json)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-state-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates every secret once, readable by the owner only, and returns the same state again', async () => {
    const first = await loadOrCreateStandaloneState(dir, 0);
    expect(Object.keys(first.secrets).sort()).to.deep.equal(['INTERNAL_JWT_SECRET', 'JWT_SECRET', 'QR_TOKEN_SECRET', 'SECRET_ENCRYPTION_KEY']);
    expect(new Set(Object.values(first.secrets)).size).to.equal(4);
    expect(fs.statSync(path.join(dir, 'standalone.json')).mode & 0o777).to.equal(0o600);
    expect(await loadOrCreateStandaloneState(dir)).to.deep.equal(first);
  });

  it('adds the secrets an older data directory lacks and keeps the ones it has', async () => {
    const old = await loadOrCreateStandaloneState(dir, 0);
    const { QR_TOKEN_SECRET: _dropped, ...olderSecrets } = old.secrets;
    fs.writeFileSync(path.join(dir, 'standalone.json'), JSON.stringify({ ...old, secrets: olderSecrets }));
    const upgraded = await loadOrCreateStandaloneState(dir);
    expect(upgraded.secrets.JWT_SECRET).to.equal(old.secrets.JWT_SECRET);
    expect(upgraded.secrets.QR_TOKEN_SECRET).to.be.a('string').with.length.greaterThan(30);
    expect(readStandaloneState(dir)!.secrets.QR_TOKEN_SECRET).to.equal(upgraded.secrets.QR_TOKEN_SECRET);
  });
});
