import { describe, expect, it } from 'vitest';
import { runChaosSeed } from '../test/chaos/run-seed';
import { availableBackends } from '../test/database';
import { describeDifference } from '../test/oracle/compare';

const [backend] = await availableBackends();

/**
 * CI's share of `npm run chaos`: a few seeds, each a scenario with reorgs, indexer SIGKILLs and
 * RPC faults, compared answer by answer with the oracle, and a stream consumer holding
 * `/api/v1/stream` through it and a failing webhook receiver compared with the oracle too. The deep run is documented in
 * docs/testing.md.
 */
describe(`seeded chaos against the oracle (${backend})`, () => {
  for (const seed of [101, 102]) {
    it(`seed ${seed}: after reorgs, kills and RPC faults every answer, and what the stream delivered, equals the oracle`, async () => {
      if (!backend) throw new Error('no backend');
      const result = await runChaosSeed({ seed, backend });
      expect(result.differences.slice(0, 3).map(describeDifference).join('\n\n')).toBe('');
      expect(result.reorgs.length).toBeGreaterThan(0);
      expect(result.kills).toBeGreaterThan(1);
      expect(result.answers).toBeGreaterThan(200);
      // The stream consumer's comparison is among the differences; it also followed the seed.
      expect(result.stream.events).toBeGreaterThan(0);
      if (backend === 'postgres') expect(result.stream.connections).toBeGreaterThan(2);
      // So is the webhook receiver's; it got every event at least once.
      expect(result.webhooks?.applied).toBeGreaterThan(0);
    }, 300_000);
  }
});
