/**
 * `npm run fuzz -- [--runs N] [--seed S] [--operation <operationId>[,…]] [--path P]`: the fuzz suite of
 * fuzz.test.ts, longer or replaying one case, on a database of its own (as `npm test`). Without `--seed` a
 * new one is drawn and printed, so a failing run can be replayed. `--races N` runs races.test.ts instead:
 * N rounds of requests sent together.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string' }, seed: { type: 'string' }, operation: { type: 'string' }, path: { type: 'string' }, races: { type: 'string' } },
  strict: true,
});
const seed = values.seed ?? String(Math.floor(Math.random() * 2 ** 31));
const runs = values.runs ?? '100';
const suite = values.races ? 'races.test.js' : 'fuzz.test.js';
process.stdout.write(
  values.races
    ? `fuzz: ${values.races} rounds of requests sent together, seed ${seed}\n`
    : `fuzz: ${runs} requests per operation, seed ${seed}${values.operation ? `, operation ${values.operation}` : ''}\n`,
);
const dist = path.join(__dirname, '..', '..');
const result = spawnSync(
  process.execPath,
  [
    require.resolve('mocha/bin/mocha.js'),
    '--no-config',
    '--require',
    path.join(dist, 'support', 'hooks.js'),
    '--timeout',
    '0',
    '--exit',
    '--enable-source-maps',
    path.join(__dirname, suite),
  ],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      FUZZ_RUNS: runs,
      FUZZ_SEED: seed,
      FUZZ_OPERATIONS: values.operation ?? '',
      FUZZ_PATH: values.path ?? '',
      FUZZ_RACE_ROUNDS: values.races ?? '',
    },
  },
);
process.exit(result.status ?? 1);
