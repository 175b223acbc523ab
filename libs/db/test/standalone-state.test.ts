import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  freePort,
  loadOrCreateStandaloneState,
  StandaloneStartError,
  readStandaloneState,
  settleEmbeddedPort,
  sharedSettingsOf,
  standaloneEnvironment,
  writeStandaloneState,
} from '../src';

function occupy(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

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

  it('is replaced whole or not at all: a write that fails midway (a full disk, here a file size limit) leaves the old file as it was', async () => {
    const before = await loadOrCreateStandaloneState(dir, 0);
    const bigger = { ...before, settings: { PUBLIC_BASE_URL: `http://localhost:8000/${'x'.repeat(64 * 1024)}` } };
    // A real fault: under `ulimit -f 8` the kernel refuses the writer's writes beyond 8 KB (EFBIG), as a full
    // disk refuses them (ENOSPC). Written in place, the file was left cut short at 8 KB.
    const writer = `require(${JSON.stringify(path.resolve(__dirname, '../src'))}).writeStandaloneState(process.argv[1], JSON.parse(process.argv[2]))`;
    const run = spawnSync('sh', ['-c', 'ulimit -f 8; exec "$0" -e "$1" "$2" "$3"', process.execPath, writer, dir, JSON.stringify(bigger)], {
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).to.equal(1);
    expect(run.stderr).to.include('EFBIG');
    expect(readStandaloneState(dir)).to.deep.equal(before);
    expect(fs.readdirSync(dir), 'the unfinished copy is removed').to.deep.equal(['standalone.json']);
    // Where nothing stops it, the same write replaces the file.
    writeStandaloneState(dir, bigger);
    expect(readStandaloneState(dir)).to.deep.equal(bigger);
    expect(fs.statSync(path.join(dir, 'standalone.json')).mode & 0o777).to.equal(0o600);
  });

  it('says which file is broken, and what it holds, when standalone.json is not JSON', async () => {
    await loadOrCreateStandaloneState(dir, 0);
    fs.writeFileSync(path.join(dir, 'standalone.json'), '{"postgres": {"port": 54');
    expect(() => readStandaloneState(dir))
      .to.throw(StandaloneStartError)
      .with.property('message')
      .that.matches(
        /^\S+standalone\.json is not valid JSON \(.+\)\. It holds the embedded database's password and the secrets: restore it from a backup of DATA_DIR\.$/,
      );
  });

  it('says why a DATA_DIR cannot be used, naming it: a file, a folder below a file, a folder below a link to nothing', async () => {
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, 'not a folder');
    const dangling = path.join(dir, 'volume');
    fs.symlinkSync(path.join(dir, 'not-mounted'), dangling);
    const cases = [
      [file, 'it, or a folder above it, is a file, not a folder'],
      [path.join(file, 'data'), 'it, or a folder above it, is a file, not a folder'],
      [path.join(dangling, 'data'), 'a folder above it is a link to something that does not exist'],
    ];
    for (const [dataDir, reason] of cases) {
      const failed = await loadOrCreateStandaloneState(dataDir, 0).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failed, dataDir).to.be.instanceOf(StandaloneStartError);
      expect((failed as Error).message).to.equal(`DATA_DIR ${dataDir} cannot be used: ${reason}`);
    }
    expect(fs.readFileSync(file, 'utf8')).to.equal('not a folder');
    expect(fs.existsSync(path.join(dir, 'not-mounted'))).to.equal(false);
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

describe('standalone: the embedded database port', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-port-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps a free remembered port, and takes EMBEDDED_PG_PORT over it, remembering that one from then on', async () => {
    const state = await loadOrCreateStandaloneState(dir, await freePort());
    const remembered = state.postgres.port;
    expect(await settleEmbeddedPort(dir, state)).to.equal(undefined);
    expect(readStandaloneState(dir)!.postgres.port).to.equal(remembered);
    const requested = await freePort();
    expect(await settleEmbeddedPort(dir, state, requested)).to.equal(undefined);
    expect(state.postgres.port).to.equal(requested);
    expect(readStandaloneState(dir)!.postgres.port).to.equal(requested);
  });

  it('moves off a remembered port another program holds, and remembers the new one', async () => {
    const state = await loadOrCreateStandaloneState(dir, await freePort());
    const remembered = state.postgres.port;
    const squatter = await occupy(remembered);
    try {
      const note = await settleEmbeddedPort(dir, state);
      expect(state.postgres.port).to.not.equal(remembered);
      expect(note).to.include(`port ${remembered} is in use by another program`).and.include(`port ${state.postgres.port}`);
      expect(readStandaloneState(dir)!.postgres.port).to.equal(state.postgres.port);
    } finally {
      squatter.close();
    }
  });

  it('refuses an EMBEDDED_PG_PORT another program holds, naming it, and remembers nothing', async () => {
    const state = await loadOrCreateStandaloneState(dir, await freePort());
    const taken = await freePort();
    const squatter = await occupy(taken);
    try {
      let error: Error | undefined;
      await settleEmbeddedPort(dir, state, taken).catch((err: Error) => (error = err));
      expect(error?.message).to.include(`EMBEDDED_PG_PORT ${taken} is in use by another program`);
      expect(readStandaloneState(dir)!.postgres.port).to.not.equal(taken);
    } finally {
      squatter.close();
    }
  });
});

describe('standalone: settings shared with the commands', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-settings-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('are debug mode (console email) in development unless a mail server is named, and nothing else the environment lacks', () => {
    expect(sharedSettingsOf({})).to.deep.equal({ DEBUG: 'true' });
    expect(sharedSettingsOf({ NODE_ENV: 'development', ALLOW_LOOPBACK_WEBHOOKS: 'true', LOG_LEVEL: 'warn' })).to.deep.equal({
      NODE_ENV: 'development',
      DEBUG: 'true',
      ALLOW_LOOPBACK_WEBHOOKS: 'true',
    });
    expect(sharedSettingsOf({ EMAIL_HOST: 'mail.example.com' })).to.deep.equal({ DEBUG: 'true', EMAIL_BACKEND: 'smtp', EMAIL_HOST: 'mail.example.com' });
    expect(sharedSettingsOf({ EMAIL_HOST: 'mail.example.com', EMAIL_BACKEND: 'console' })).to.include({ EMAIL_BACKEND: 'console' });
    expect(sharedSettingsOf({ NODE_ENV: 'production' })).to.deep.equal({ NODE_ENV: 'production' });
    expect(sharedSettingsOf({ DEBUG: 'false' })).to.deep.equal({ DEBUG: 'false' });
  });

  it("complete a command's environment from DATA_DIR: generated secrets, then the recorded settings, then its own; DATABASE_URL means deployed mode", async () => {
    const state = await loadOrCreateStandaloneState(dir, await freePort());
    state.settings = { ALLOW_LOOPBACK_WEBHOOKS: 'true', DEBUG: 'true', SECRET_ENCRYPTION_KEY: 'given-to-npm-start' };
    writeStandaloneState(dir, state);
    const env = standaloneEnvironment({ DATA_DIR: dir, DEBUG: 'false' });
    expect(env).to.include({
      ALLOW_LOOPBACK_WEBHOOKS: 'true',
      DEBUG: 'false',
      SECRET_ENCRYPTION_KEY: 'given-to-npm-start',
      JWT_SECRET: state.secrets.JWT_SECRET,
    });
    const deployed = { DATA_DIR: dir, DATABASE_URL: 'postgres://db.example/inventory' };
    expect(standaloneEnvironment(deployed)).to.equal(deployed);
    // A data directory from before settings were recorded: the secrets, and standalone's defaults.
    writeStandaloneState(dir, { postgres: state.postgres, secrets: state.secrets });
    expect(standaloneEnvironment({ DATA_DIR: dir })).to.deep.equal({ ...state.secrets, DEBUG: 'true', DATA_DIR: dir });
    expect(standaloneEnvironment({ DATA_DIR: path.join(dir, 'none') })).to.deep.equal({ DATA_DIR: path.join(dir, 'none') });
  });
});
