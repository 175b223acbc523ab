/**
 * The benchmark harness still runs (`npm run bench` itself is not part of the tests): one scenario for a
 * second, against this test system and its database, must print its ratio row and pass its stock check.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { system, testDatabaseUrl } from '../support/hooks';

const ROOT = path.resolve(__dirname, '../../..');

function runBench(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench/run.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('benchmark harness (smoke)', () => {
  it('runs the hot-row scenario for a second against a running gateway and prints its ratio to raw SQL', async function () {
    this.timeout(60_000);
    const { code, stdout, stderr } = await runBench(['--only', 'hot-row', '--duration', '1', '--warmup', '0', '--pairs', '1', '--connections', '2'], {
      BENCH_URL: system().url,
      BENCH_DATABASE_URL: testDatabaseUrl(),
      BENCH_ANALYZE: '0',
    });
    expect(code, stderr).to.equal(0);
    const row = stdout.split('\n').find((line) => line.startsWith('| hot-row | 2 |'));
    expect(row, stdout).to.be.a('string');
    const [, , , system_, raw, ratio, target] = row!.split('|').map((c) => c.trim());
    expect(Number(system_.replace(/,/g, ''))).to.be.greaterThan(0);
    expect(Number(raw.replace(/,/g, ''))).to.be.greaterThan(0);
    expect(Number(ratio)).to.be.greaterThan(0);
    expect(target).to.match(/^≥ 0\.70 (met|NOT MET)$/);
    expect(row).to.match(/stock check ok \(\d+ subtractions in the ledger\)/);
  });

  it('refuses a target outside loopback', async () => {
    const { code, stderr } = await runBench(['--only', 'hot-row', '--duration', '1'], { BENCH_URL: 'http://192.0.2.10:8000' });
    expect(code).to.equal(1);
    expect(stderr).to.include('BENCH_URL must be a loopback address');
  });
});
