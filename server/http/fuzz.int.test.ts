import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFrom, freshLoopbackClient } from '../../test/client-fetch';
import { availableBackends } from '../../test/database';
import { type Corpus, collectCorpus } from '../../test/fuzz/corpus';
import { FUZZ_SERVER_ENV, runFuzz, servedOperations } from '../../test/fuzz/runner';
import type { RestOperation } from '../../test/fuzz/targets';
import { trpcProcedures } from '../../test/fuzz/targets';
import { type IndexedStack, startIndexedStack } from '../../test/stack';

const [backend] = await availableBackends();
/** Runs per property: 34 properties × (70 + 10 warm-up) ≈ 2,700 requests, about a minute here. */
const RUNS = 70;
/** Fixed, so CI repeats itself; a failure prints fast-check's seed and path to replay with `npm run fuzz`. */
const SEED = 20_260_101;

describe(`property-based fuzzer over every route and procedure (${backend})`, () => {
  let stack: IndexedStack;
  let corpus: Corpus;
  let operations: RestOperation[];
  const clients = [0, 1, 2, 3].map(() => fetchFrom(freshLoopbackClient()));

  beforeAll(async () => {
    if (!backend) throw new Error('no backend');
    stack = await startIndexedStack(backend, { seed: 7, launches: 12, actions: 160 }, FUZZ_SERVER_ENV);
    operations = await servedOperations(stack.server.baseUrl, clients[0] as typeof fetch);
    corpus = await collectCorpus(stack.server.baseUrl, clients[0] as typeof fetch, operations);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers every generated request without a 5xx, in its transport’s error shape with a known code, within 1 s, with bounded RSS', async () => {
    const report = await runFuzz({
      baseUrl: stack.server.baseUrl,
      clients,
      corpus,
      runs: RUNS,
      seed: SEED,
      residentBytes: () => stack.server.residentBytes(),
    });
    console.log(report.summary.join('\n'));
    expect(report.failures).toEqual([]);
    expect(report.stats.serverErrors).toBe(0);

    // Coverage: the fuzzer reached every operation of the served document and every query
    // procedure, and got past validation on each read (else it would only be testing zod).
    for (const operation of operations) {
      const classes = report.stats.routes.get(`${operation.method} ${operation.path}`);
      expect(classes, operation.path).toBeDefined();
      if (operation.method === 'GET') expect(classes?.get('2xx') ?? 0, operation.path).toBeGreaterThan(0);
    }
    for (const procedure of trpcProcedures())
      expect(report.stats.procedures.get(procedure.path) ?? 0, procedure.path).toBeGreaterThan(0);
    expect(report.stats.requests).toBeGreaterThan(2_000);
  });
});
