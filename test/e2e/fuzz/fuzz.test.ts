/**
 * A property-based fuzz suite over the served OpenAPI document (docs/api/paths-and-hostile-input.md "Hostile input"): for every
 * operation, generated requests (generate.ts) with the caller's credentials (and sometimes without, or with
 * another company's), checked by invariants.ts: never a 5xx, every error in the error shape with its request
 * id, and a refused request changes nothing. Seeded with fast-check: a failure prints the operation, the
 * request, the seed and the path that replay it (`npm run fuzz -- --operation <id> --seed <s> --path <p>`).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { get } from '../../support/api';
import { system } from '../../support/hooks';
import { openApiDocument } from '../../support/openapi';
import { Receiver, startReceiver } from '../../support/receiver';
import { FuzzOperation, FuzzRequest, operationsOf, requestFor } from './generate';
import { describeRequest, hangReport, problemsOf, send, snapshot } from './invariants';
import { fuzzSettings, operationSeed } from './settings';
import { BuiltWorld, buildWorld } from './world';

const settings = fuzzSettings();
/** The operations as built here; the ones actually fuzzed are the served document's (checked equal below). */
const planned = operationsOf(openApiDocument() as any).filter((op) => !settings.operations.length || settings.operations.includes(op.id));

describe(`fuzz: every operation of the OpenAPI document (${settings.runs} requests each, seed ${settings.seed})`, function () {
  this.timeout(0);
  let receiver: Receiver;
  let world: BuiltWorld;
  let served: Map<string, FuzzOperation>;

  before(async () => {
    receiver = await startReceiver();
    world = await buildWorld(receiver.url);
    const document = await get('/api/schema/');
    expect(document.status).to.equal(200);
    served = new Map(operationsOf(document.body).map((op) => [op.id, op]));
  });
  after(async () => {
    await receiver?.close();
  });

  it('fuzzes the operations the gateway serves', () => {
    expect([...served.keys()]).to.include.members(planned.map((op) => op.id));
  });

  for (const { id } of planned) {
    it(`${id}: no 5xx, errors in the error shape, refusals change nothing`, async () => {
      const op = served.get(id)!;
      const companies = [world.company.id, world.other.id];
      let failure: { request: FuzzRequest; problems: string[] } | undefined;
      // Nothing but these requests writes meanwhile, so the state after one is the state before the next.
      let state = await snapshot(companies);
      const property = fc.asyncProperty(requestFor(op, world), async (request) => {
        const before = state;
        let problems: string[];
        const logLine = system().logs.lines.length;
        try {
          const answer = await send(request);
          state = await snapshot(companies);
          problems = problemsOf(request, answer, before, state);
        } catch (err) {
          state = await snapshot(companies);
          problems = [`no answer: ${(err as Error).message}`, await hangReport(logLine)];
        }
        if (problems.length) {
          failure = { request, problems };
          throw new Error(problems.join('; '));
        }
      });
      const seed = operationSeed(settings.seed, id);
      const details = await fc.check(property, { seed, numRuns: settings.runs, path: settings.path, endOnFailure: true });
      if (details.failed) {
        const replay = `npm run fuzz -- --operation ${id} --seed ${settings.seed} --path ${details.counterexamplePath}`;
        const report = failure ? `${failure.problems.join('\n  ')}\nrequest: ${describeRequest(failure.request)}` : String(details.errorInstance);
        throw new Error(`fuzz failure in ${id} (${op.method} ${op.template})\n  ${report}\nreplay: ${replay}`);
      }
    });
  }
});
