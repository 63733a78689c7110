import { describe, expect, it } from 'vitest';
import { createWorkerLimits, type LimitChannel, type WorkerLimits } from './limit-client';
import { createLimitTable, type LimitTable } from './limit-table';
import type { LimitAnswers, LimitRequests } from './protocol';

/**
 * A worker's channel to the table, as the cluster's IPC is: asynchronous both ways, in order.
 * `sent` records every message, to count round trips.
 */
function loopback(table: LimitTable, holder: number, options: { answer?: boolean } = {}) {
  const sent: LimitRequests[] = [];
  let deliver: (answers: LimitAnswers) => void = () => {};
  const channel: LimitChannel = {
    send(requests) {
      sent.push(structuredClone(requests));
      if (options.answer === false) return;
      setImmediate(() => deliver(table.answer(holder, requests)));
    },
    onAnswers(listener) {
      deliver = listener;
    },
  };
  return { channel, sent };
}

const reads = { perMinute: 60, burst: 5 };
/** Every message sent so far has been delivered and answered. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 5));

function twoWorkers(table: LimitTable): [WorkerLimits, WorkerLimits] {
  return [createWorkerLimits(loopback(table, 1).channel), createWorkerLimits(loopback(table, 2).channel)];
}

describe('limits held by the cluster primary', () => {
  it('a client has one bucket across workers: its burst is spent once, not once per worker', async () => {
    const table = createLimitTable(() => 1_000_000);
    const workers = twoWorkers(table);
    const allowed: boolean[] = [];
    for (let i = 0; i < 12; i++) {
      const worker = workers[i % 2] as WorkerLimits;
      allowed.push((await worker.rateLimiter.take('reads:203.0.113.9', reads, 1)).allowed);
    }
    expect(allowed).toEqual([true, true, true, true, true, false, false, false, false, false, false, false]);
    // Another client is another bucket.
    expect((await workers[1].rateLimiter.take('reads:203.0.113.10', reads, 1)).allowed).toBe(true);
  });

  it('answers carry the bucket state the RateLimit headers are made of', async () => {
    const table = createLimitTable(() => 1_000_000);
    const [worker] = twoWorkers(table);
    expect(await worker.rateLimiter.take('reads:a', reads, 3)).toEqual({
      allowed: true,
      remaining: 2,
      resetMs: 3_000,
      retryAfterMs: 0,
    });
    expect(await worker.rateLimiter.take('reads:a', reads, 3)).toMatchObject({
      allowed: false,
      retryAfterMs: 1_000,
    });
  });

  it('everything one turn of a worker asks for travels in one message', async () => {
    const table = createLimitTable(() => 1_000_000);
    const { channel, sent } = loopback(table, 1);
    const worker = createWorkerLimits(channel);
    const decisions = await Promise.all(
      Array.from({ length: 20 }, (_, i) => worker.rateLimiter.take(`reads:client-${i % 3}`, reads, 1)),
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]?.takes).toHaveLength(20);
    // In order: client-0 asked 7 times, its sixth and seventh are refused.
    expect(decisions.filter((d) => !d.allowed)).toHaveLength(20 - 3 * 5);
  });

  it('upload and stream slots are counted across workers and come back when released', async () => {
    const table = createLimitTable();
    const [one, two] = twoWorkers(table);
    const first = await one.concurrency.acquire('streams:c', 2);
    const second = await two.concurrency.acquire('streams:c', 2);
    expect(first).toBeTypeOf('function');
    expect(second).toBeTypeOf('function');
    expect(await one.concurrency.acquire('streams:c', 2)).toBeUndefined();
    expect(one.concurrency.held('streams:c')).toBe(1);
    second?.();
    second?.(); // released once only
    await settled();
    expect(table.held('streams:c')).toBe(1);
    expect(await one.concurrency.acquire('streams:c', 2)).toBeTypeOf('function');
    expect(table.held('streams:c')).toBe(2);
  });

  it('a worker that exits gives back every slot it held, and only its own', () => {
    const table = createLimitTable();
    expect(table.acquire(1, 'connections:c', 3)).toBe(true);
    expect(table.acquire(1, 'connections:c', 3)).toBe(true);
    expect(table.acquire(2, 'connections:c', 3)).toBe(true);
    expect(table.acquire(2, 'connections:c', 3)).toBe(false);
    expect(table.releaseAll(1)).toBe(2);
    expect(table.held('connections:c')).toBe(1);
    // A release of a slot a worker does not hold changes nothing.
    table.release(1, 'connections:c');
    expect(table.held('connections:c')).toBe(1);
    table.release(2, 'connections:c');
    expect(table.held('connections:c')).toBe(0);
  });

  it('a primary that does not answer lets requests through after the timeout, and says so', async () => {
    const table = createLimitTable();
    const { channel } = loopback(table, 1, { answer: false });
    let unanswered = 0;
    const worker = createWorkerLimits(channel, {
      timeoutMs: 20,
      onUnanswered: (count) => {
        unanswered += count;
      },
    });
    const [decision, release] = await Promise.all([
      worker.rateLimiter.take('reads:c', reads, 1),
      worker.concurrency.acquire('uploads:c', 1),
    ]);
    expect(decision).toMatchObject({ allowed: true, remaining: 5 });
    expect(release).toBeTypeOf('function');
    expect(unanswered).toBe(2);
  });

  it('a slot granted after its request gave up waiting is given back at once', async () => {
    const table = createLimitTable();
    const held: LimitRequests[] = [];
    let deliver: (answers: LimitAnswers) => void = () => {};
    const worker = createWorkerLimits(
      {
        send: (requests) => {
          held.push(requests);
          if (held.length > 1) table.answer(1, requests);
        },
        onAnswers: (listener) => {
          deliver = listener;
        },
      },
      { timeoutMs: 10 },
    );
    await worker.concurrency.acquire('uploads:c', 1);
    // The primary answers the first request late: the slot is granted, then released.
    deliver(table.answer(1, held[0] as LimitRequests));
    expect(table.held('uploads:c')).toBe(1);
    await settled();
    expect(held[1]?.releases).toEqual(['uploads:c']);
    expect(table.held('uploads:c')).toBe(0);
  });
});
