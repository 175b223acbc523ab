/**
 * How long the fuzz suite runs and what it replays. `npm test` runs the bounded default; `npm run fuzz`
 * (cli.ts) passes its options here through the environment of the mocha it starts.
 */
export interface FuzzSettings {
  /** Generated requests per operation. */
  runs: number;
  /** The run's seed; each operation's own seed is derived from it and the operation id. */
  seed: number;
  /** Only these operation ids (all when empty). */
  operations: string[];
  /** A fast-check replay path (with one operation and its seed): runs that one case again. */
  path?: string;
  /** Rounds of requests sent together (races.test.ts). */
  raceRounds: number;
}

/** `npm test`'s bounded run: the same seed every time, so CI is reproducible. */
export const DEFAULT_RUNS = 8;
export const DEFAULT_SEED = 1_2_2026;
export const DEFAULT_RACE_ROUNDS = 12;

export function fuzzSettings(env: NodeJS.ProcessEnv = process.env): FuzzSettings {
  const runs = Number(env.FUZZ_RUNS ?? DEFAULT_RUNS);
  const seed = Number(env.FUZZ_SEED ?? DEFAULT_SEED);
  const raceRounds = Number(env.FUZZ_RACE_ROUNDS || DEFAULT_RACE_ROUNDS);
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`FUZZ_RUNS must be a positive integer, not ${env.FUZZ_RUNS}`);
  if (!Number.isSafeInteger(raceRounds) || raceRounds < 1) throw new Error(`FUZZ_RACE_ROUNDS must be a positive integer, not ${env.FUZZ_RACE_ROUNDS}`);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${env.FUZZ_SEED}`);
  return { runs, seed, operations: (env.FUZZ_OPERATIONS ?? '').split(',').filter(Boolean), path: env.FUZZ_PATH || undefined, raceRounds };
}

/** The seed of one operation: the run's seed mixed with the operation id (FNV-1a), as a 32-bit integer. */
export function operationSeed(seed: number, operationId: string): number {
  let hash = 0x811c9dc5 ^ (seed | 0);
  for (const ch of operationId) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193);
  return hash | 0;
}
