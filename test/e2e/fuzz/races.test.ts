/**
 * The fuzz suite's requests sent together (docs/api/paths-and-hostile-input.md "Hostile input"): each round
 * sends a handful of generated requests at the same moment, mostly changes to the same few records of one
 * company, as people and scripts do. Each answer must still be no 5xx and every error in the error shape (two
 * changes that lock the same rows in opposite orders deadlock, and the loser used to answer 500), and after
 * each round the data must keep its rules (consistency.ts). Which request wins a race is not checked: only
 * that every one is answered as a single request would be, and that nothing is left half done.
 */
import http from 'node:http';
import { expect } from 'chai';
import fc from 'fast-check';
import { get } from '../../support/api';
import { system } from '../../support/hooks';
import { Receiver, startReceiver } from '../../support/receiver';
import { brokenRules } from './consistency';
import { FuzzRequest, operationsOf, plainRequestFor, requestFor } from './generate';
import { answerProblems, describeRequest, hangReport, send } from './invariants';
import { fuzzSettings, operationSeed } from './settings';
import { BuiltWorld, buildWorld } from './world';

const settings = fuzzSettings();
/** Requests per round: more than the two cores' worth, few enough that each round meets on the same records. */
const ROUND_SIZE = 8;
const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

describe(`fuzz: requests sent together (${settings.raceRounds} rounds of ${ROUND_SIZE}, seed ${settings.seed})`, function () {
  this.timeout(0);
  let receiver: Receiver;
  let world: BuiltWorld;
  const agent = new http.Agent({ keepAlive: true, maxSockets: ROUND_SIZE });

  before(async () => {
    receiver = await startReceiver();
    world = await buildWorld(receiver.url);
  });
  after(async () => {
    agent.destroy();
    await receiver?.close();
  });

  it('answers every request of a round without a 5xx, errors in the error shape, and leaves the data keeping its rules', async () => {
    const document = await get('/api/schema/');
    expect(document.status).to.equal(200);
    const changes = operationsOf(document.body).filter((op) => CHANGES.has(op.method));
    // A round is made of one or two operations, so that its requests meet on the same records: mostly as
    // documented (they reach the rows and the locks), some bent as the single-request suite bends them.
    const round = fc.shuffledSubarray(changes, { minLength: 1, maxLength: 2 }).chain((ops) => {
      const request = fc.oneof(
        { arbitrary: fc.oneof(...ops.map((op) => plainRequestFor(op, world))), weight: 4 },
        { arbitrary: fc.oneof(...ops.map((op) => requestFor(op, world))), weight: 1 },
      );
      return fc.array(request, { minLength: ROUND_SIZE, maxLength: ROUND_SIZE });
    });
    const companies = [world.company.id, world.other.id];
    let failure: { requests: FuzzRequest[]; problems: string[] } | undefined;
    const property = fc.asyncProperty(round, async (requests) => {
      const logLine = system().logs.lines.length;
      const answers = await Promise.allSettled(requests.map((request) => send(request, agent)));
      const problems = answers.flatMap((answer, i) =>
        answer.status === 'fulfilled'
          ? answerProblems(requests[i], answer.value).map((p) => `request ${i + 1}: ${p}`)
          : [`request ${i + 1}: no answer: ${(answer.reason as Error).message}`],
      );
      if (answers.some((answer) => answer.status === 'rejected' || answer.value.status >= 500)) problems.push(await hangReport(logLine));
      problems.push(...(await brokenRules(companies)));
      if (problems.length) {
        failure = { requests, problems };
        throw new Error(problems.join('; '));
      }
    });
    const seed = operationSeed(settings.seed, 'races');
    const details = await fc.check(property, { seed, numRuns: settings.raceRounds, path: settings.path, endOnFailure: true });
    if (details.failed) {
      const requests = failure ? failure.requests.map((r, i) => `request ${i + 1}: ${describeRequest(r)}`).join('\n') : '';
      const report = failure ? failure.problems.join('\n  ') : String(details.errorInstance);
      const replay = `npm run fuzz -- --races ${settings.raceRounds} --seed ${settings.seed} --path ${details.counterexamplePath}`;
      throw new Error(
        `fuzz failure in a round of requests sent together\n  ${report}\n${requests}\nreplay: ${replay} (timing decides a race, so a replay may pass)`,
      );
    }
  });
});
