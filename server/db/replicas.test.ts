import { describe, expect, it } from 'vitest';
import { createReplicaSet, type ReplayPosition } from './replicas';

/** Databases are names here: the set only passes them to `readPosition` and back. */
function setOver(positions: Record<string, ReplayPosition | Error>, maxLagBlocks = 10) {
  const changes: string[] = [];
  const set = createReplicaSet<string>({
    primary: 'primary',
    replicas: Object.keys(positions)
      .filter((name) => name !== 'primary')
      .map((name) => ({ name, db: name })),
    readPosition: async (db) => {
      const position = positions[db];
      if (position instanceof Error) throw position;
      if (!position) throw new Error(`no position for ${db}`);
      return position;
    },
    maxLagBlocks,
    pollMs: 60_000,
    pollDeadlineMs: 1_000,
    onChange: (health) => changes.push(`${health.name}:${health.healthy ? 'in' : 'out'}`),
  });
  return { set, changes };
}

const at = (block: number): ReplayPosition => ({ block, version: BigInt(block) });

describe('createReplicaSet', () => {
  it('sends reads to the primary until a replica has been polled', () => {
    const { set } = setOver({ primary: at(100), a: at(100) });
    expect(set.route().name).toBe('primary');
    expect(set.health()[0]).toMatchObject({ name: 'a', healthy: false, reason: 'not polled yet' });
  });

  it('spreads reads over the replicas that qualify, round robin', async () => {
    const { set } = setOver({ primary: at(100), a: at(100), b: at(99) });
    await set.poll();
    expect([set.route(), set.route(), set.route(), set.route()].map((route) => route.name)).toEqual([
      'a',
      'b',
      'a',
      'b',
    ]);
    expect(set.health().map((health) => health.reads)).toEqual([2, 2]);
  });

  it('skips a replica below the block the client has seen; the primary when none has it', async () => {
    const { set } = setOver({ primary: at(100), a: at(95), b: at(98) });
    await set.poll();
    expect(set.route(98).name).toBe('b');
    expect(set.route(98).name).toBe('b');
    expect(set.route(95).name).not.toBe('primary');
    // Exactly the block it replayed qualifies; one above does not.
    expect(set.route(99).name).toBe('primary');
    // Ahead of every database (a client that saw a block before a reorg): the primary.
    expect(set.route(1_000).name).toBe('primary');
  });

  it('leaves out a replica more than maxLagBlocks behind and takes it back when it catches up', async () => {
    const positions: Record<string, ReplayPosition> = { primary: at(100), a: at(89) };
    const { set, changes } = setOver(positions, 10);
    await set.poll();
    expect(set.route().name).toBe('primary');
    expect(set.health()[0]).toMatchObject({ healthy: false, lagBlocks: 11 });
    expect(set.health()[0]?.reason).toContain('11 blocks behind');
    positions.a = at(90);
    await set.poll();
    expect(set.route().name).toBe('a');
    expect(set.health()[0]).toMatchObject({ healthy: true, lagBlocks: 10, reason: null });
    expect(changes).toEqual(['a:out', 'a:in']);
  });

  it('leaves out a replica whose poll or read fails until a poll succeeds', async () => {
    const positions: Record<string, ReplayPosition | Error> = {
      primary: at(100),
      a: new Error('connect ECONNREFUSED'),
      b: at(100),
    };
    const { set } = setOver(positions);
    await set.poll();
    expect(set.health()[0]?.reason).toBe('poll failed: connect ECONNREFUSED');
    expect([set.route().name, set.route().name]).toEqual(['b', 'b']);
    set.failed('b', new Error('terminating connection due to administrator command'));
    expect(set.route().name).toBe('primary');
    expect(set.health()[1]?.reason).toContain('read failed: terminating connection');
    positions.a = at(100);
    await set.poll();
    expect(new Set([set.route().name, set.route().name])).toEqual(new Set(['a', 'b']));
  });

  it('keeps serving when the primary cannot be polled: lag is then unknown, not a reason to leave', async () => {
    const { set } = setOver({ primary: new Error('down'), a: at(100) });
    await set.poll();
    expect(set.primaryPosition()).toBeNull();
    expect(set.health()[0]).toMatchObject({ healthy: true, lagBlocks: null });
    expect(set.route().name).toBe('a');
  });

  it('with no replicas configured, every read is the primary', async () => {
    const { set } = setOver({ primary: at(5) });
    await set.poll();
    expect(set.route().name).toBe('primary');
    expect(set.route(5).name).toBe('primary');
    expect(set.health()).toEqual([]);
  });

  it('judges each database on its own deadline: a poll that never answers is overdue, the others are not delayed', async () => {
    const overdue: string[] = [];
    let thaw: (position: ReplayPosition) => void = () => {};
    const frozen = new Promise<ReplayPosition>((resolve) => {
      thaw = resolve;
    });
    const set = createReplicaSet<string>({
      primary: 'primary',
      replicas: [
        { name: 'frozen', db: 'frozen' },
        { name: 'fine', db: 'fine' },
      ],
      readPosition: (db) => (db === 'frozen' ? frozen : Promise.resolve(at(100))),
      maxLagBlocks: 10,
      pollMs: 60_000,
      pollDeadlineMs: 50,
      onOverdue: (name) => overdue.push(name),
    });
    const started = performance.now();
    await set.poll();
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(set.primaryPosition()).toEqual(at(100));
    expect(set.health()).toMatchObject([
      { name: 'frozen', healthy: false, reason: 'poll overdue: no answer within 50 ms' },
      { name: 'fine', healthy: true, reason: null },
    ]);
    expect(overdue).toEqual(['frozen']);
    expect([set.route().name, set.route().name]).toEqual(['fine', 'fine']);
    // The same poll still pending: polling again does not stack a second one on it.
    await set.poll();
    expect(overdue).toEqual(['frozen']);
    thaw(at(100));
    await frozen;
    await set.poll();
    expect(set.health()[0]).toMatchObject({ name: 'frozen', healthy: true });
    expect(new Set([set.route().name, set.route().name])).toEqual(new Set(['frozen', 'fine']));
    set.stop();
  });
});
