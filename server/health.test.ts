import { describe, expect, it } from 'vitest';
import { type Health, readinessOf } from './health';

const healthy = (indexed: number | null): Health => ({
  status: 'ok',
  database: { driver: 'postgres', reachable: true, migrations: { applied: 3, shipped: 3, current: true } },
  indexer: { indexed_through_block: indexed },
});
/** The primary database out of reach. */
const down: Health = {
  status: 'degraded',
  database: { driver: 'postgres', reachable: false, migrations: null, error: 'connect ECONNREFUSED' },
  indexer: { indexed_through_block: null },
};

describe('readiness', () => {
  it('is ready when the database is current and the index within the lag limit', () => {
    const ready = readinessOf({ health: healthy(100), head: 164, chainConfigured: true, maxLag: 64 });
    expect(ready.status).toBe('ready');
    expect(ready.indexer.lag_blocks).toBe(64);
    expect(ready.reasons).toEqual([]);
  });

  it('is not ready one block past the limit, and says by how much', () => {
    const ready = readinessOf({ health: healthy(100), head: 165, chainConfigured: true, maxLag: 64 });
    expect(ready.status).toBe('unready');
    expect(ready.reasons).toEqual(['index 65 blocks behind the chain head (limit 64)']);
  });

  it("is stale, still in rotation, when the chain head is unknown: the RPC is every instance's", () => {
    const ready = readinessOf({ health: healthy(100), head: null, chainConfigured: true, maxLag: 64 });
    expect(ready.status).toBe('stale');
    expect(ready.reasons).toEqual(['chain head unknown (RPC did not answer): serving what is indexed']);
    expect(ready.indexer).toMatchObject({ indexed_through_block: 100, chain_head: null, lag_blocks: null });
  });

  it('without a chain, readiness is the database alone', () => {
    expect(readinessOf({ health: healthy(null), head: null, chainConfigured: false, maxLag: 0 }).status).toBe(
      'ready',
    );
  });

  it('is not ready when the database is unreachable or behind on migrations', () => {
    expect(readinessOf({ health: down, head: 10, chainConfigured: true, maxLag: 64 }).reasons).toEqual([
      'database unreachable',
    ]);
    const behind = healthy(10);
    behind.database.migrations = { applied: 2, shipped: 3, current: false };
    expect(readinessOf({ health: behind, head: 10, chainConfigured: true, maxLag: 64 }).reasons).toEqual([
      'database migrations not current',
    ]);
  });

  it('is read_only while the primary is unreachable and a replica serves; unready when none does', () => {
    const replica = (name: string, block: number, healthy: boolean) => ({
      name,
      position: { block, version: 1n },
      lagBlocks: null,
      healthy,
      reason: healthy ? null : 'poll failed',
      reads: 0,
    });
    const withReplicas = (head: number, replicas: ReturnType<typeof replica>[]) =>
      readinessOf({ health: down, head, chainConfigured: true, maxLag: 64, replicas });
    const readOnly = withReplicas(110, [replica('r1', 100, true), replica('r2', 105, false)]);
    expect(readOnly.status).toBe('read_only');
    expect(readOnly.reasons).toEqual([
      'primary database unreachable: 1 replica(s) serving reads, writes refused',
    ]);
    // The lag is the serving replica's: a stale replica is not read_only but unready.
    expect(readOnly.indexer).toMatchObject({ indexed_through_block: 100, lag_blocks: 10 });
    const stale = withReplicas(200, [replica('r1', 100, true)]);
    expect(stale.status).toBe('unready');
    expect(stale.reasons).toContain('index 100 blocks behind the chain head (limit 64)');
    const none = withReplicas(110, [replica('r1', 100, false)]);
    expect(none.status).toBe('unready');
    expect(none.reasons).toEqual(['database unreachable']);
  });
});
