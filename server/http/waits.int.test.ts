import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type AppServer, shippedLimits } from '../../test/app-server';
import { appServerForTests } from '../../test/app-server-hooks';
import { fetchFrom, freshLoopbackClient } from '../../test/client-fetch';
import { availableBackends } from '../../test/database';
import { storeLargeObject } from '../../test/large-object';

const [backend] = await availableBackends();

/** What one connection got back for the bytes it wrote, and when the server closed it. */
interface ConnectionOutcome {
  statuses: number[];
  text: string;
  closedAfterMs: number | undefined;
}

/**
 * Writes `bytes` on one connection from `localAddress` and collects every answer until the server
 * closes it (or `waitMs` passes).
 */
function converse(port: number, bytes: string, localAddress: string, waitMs = 5_000) {
  return new Promise<ConnectionOutcome>((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    const started = performance.now();
    let text = '';
    let closedAfterMs: number | undefined;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
      resolve({ statuses, text, closedAfterMs });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closedAfterMs = performance.now() - started;
      finish();
    });
    socket.write(bytes);
  });
}

const healthGet = 'GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n';
/** The reads bucket of the server below: a burst far beyond these tests, refilled slowly. */
const READS_BURST = 100_000;

describe(`connections and waits (${backend})`, () => {
  let server: AppServer;
  let port: number;
  let bigObject: { key: string; length: number; dir: string };

  appServerForTests(
    backend,
    (database) => {
      // Stored in the database's data directory before the server that serves it starts.
      bigObject = storeLargeObject(database.env.DATA_DIR as string);
      return {
        ...shippedLimits,
        OBJECTS_DIR: bigObject.dir,
        // The budget is not what stops a pipeline here: it only shows what the pipeline cost.
        RATE_LIMIT_READS_PER_MINUTE: '6000',
        RATE_LIMIT_READS_BURST: String(READS_BURST),
        // One call in flight per client: a slot a slow reader holds is a slot its next request needs.
        WORK_PER_CLIENT: '1',
        HTTP_SEND_TIMEOUT_MS: '1500',
      };
    },
    async (started) => {
      server = started.server;
      port = Number(new URL(server.baseUrl).port);
      // Next.js loads a route's code on its first request: not a cost to measure below.
      await (await fetchFrom(freshLoopbackClient())(`${server.baseUrl}/api/health`)).arrayBuffer();
    },
    { hookTimeoutMs: 120_000 },
  );

  it('a connection pipelining 6 requests gets 4 answers, then 429 rate_limited, then is closed', async () => {
    const outcome = await converse(port, healthGet.repeat(6), freshLoopbackClient());
    expect(outcome.statuses).toEqual([200, 200, 200, 200, 429]);
    const refusal = outcome.text.slice(outcome.text.lastIndexOf('HTTP/1.1 429'));
    expect(refusal).toMatch(/\r\nconnection: close\r\n/i);
    expect(refusal).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(refusal).toContain('"code":"rate_limited"');
    expect(refusal).toContain('at most 4 requests in flight per connection');
    expect(outcome.closedAfterMs).toBeLessThan(2_000);
    // Four in flight is fine: all answered, the connection kept.
    const four = await converse(port, healthGet.repeat(4), freshLoopbackClient(), 1_500);
    expect(four.statuses).toEqual([200, 200, 200, 200]);
    expect(four.closedAfterMs).toBeUndefined();
  });

  it('20,000 pipelined GETs on one connection: at most one socket read is parsed, each refused one costs a read, the connection is cut at once', async () => {
    const attacker = freshLoopbackClient();
    const rssBefore = server.residentBytes();
    // Another client's latency meanwhile is the hostile suite's to measure (hostile-stalls.int.test.ts).
    const outcome = await converse(port, healthGet.repeat(20_000), attacker, 10_000);
    const rssGrowth = server.residentBytes() - rssBefore;
    // What the pipeline cost its client: the reads bucket's remaining budget, asked at once.
    const after = await fetchFrom(attacker)(`${server.baseUrl}/api/health`);
    await after.arrayBuffer();
    const remaining = Number(/r=(\d+)/.exec(after.headers.get('ratelimit') ?? '')?.[1]);
    const charged = READS_BURST - remaining;
    console.log('pipeline of 20,000', {
      answers: outcome.statuses.length,
      closedAfterMs: Math.round(outcome.closedAfterMs ?? -1),
      charged,
      rssGrowthMb: Math.round(rssGrowth / 2 ** 20),
    });
    // Cut, not served: no answer past the fifth, the connection closed by the server.
    expect(outcome.statuses.length).toBeLessThanOrEqual(5);
    expect(outcome.closedAfterMs).toBeLessThan(3_000);
    // Parsed: one read of the socket (64 KiB, ~1,700 of these requests) at most, not 20,000;
    // and every parsed request was charged (more than the 4 served).
    expect(charged).toBeGreaterThan(5);
    expect(charged).toBeLessThan(5_000);
    expect(rssGrowth).toBeLessThan(40 * 2 ** 20);
    expect(after.status).toBe(200);
  });

  it('a reader that stops reading a 4.5 MB object is cut at the 1.5 s send deadline, and its work slot is free again', async () => {
    const client = freshLoopbackClient();
    const socket = connect({ port, host: '127.0.0.1', localAddress: client });
    let received = 0;
    let closedAt: number | undefined;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closedAt = performance.now();
    });
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`GET /objects/${bigObject.key} HTTP/1.1\r\nHost: x\r\n\r\n`);
    // The client reads nothing: its receive buffer fills, and the server's send stalls.
    socket.pause();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 300));

    // The same client's next request needs the one work slot the stalled answer holds.
    const next = fetchFrom(client)(`${server.baseUrl}/api/health`);
    const nextStatus = await next.then(async (answer) => {
      await answer.arrayBuffer();
      return answer.status;
    });
    const nextMs = performance.now() - started;
    expect(nextStatus).toBe(200);
    // Freed by the deadline (1.5 s, checked every 375 ms), not before: the slot was held.
    expect(nextMs).toBeGreaterThanOrEqual(1_400);
    expect(nextMs).toBeLessThan(1_500 + 375 + 1_000);

    // The stalled connection was destroyed: reading now gets part of the object, then the end.
    socket.resume();
    await new Promise<void>((resolve) => {
      const check = () => (closedAt !== undefined ? resolve() : setTimeout(check, 20));
      check();
    });
    expect(received).toBeLessThan(bigObject.length);
  });
});
