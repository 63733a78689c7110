import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as shared from '../shared/stream/events';
import type { LaunchdexClient, ListItem, StreamEvent } from './index';
import { retryAfterMs } from './retry';
import type { GraduationEventData, LaunchEventData, TradeEventData } from './stream';
import { followStream } from './stream';

/*
 * The client's protocol handling without a server: how it reads Retry-After and the event-stream
 * format, on inputs a server could send but ours does not (client.int.test.ts runs it against the
 * real server). The types are checked by `tsc`: an unused @ts-expect-error fails it.
 */

const refusal = (status: number, retryAfter?: string) =>
  new Response(null, { status, headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter } });

describe('Retry-After', () => {
  it('is read from 429 and 503 only, in seconds or as an HTTP date', () => {
    expect(retryAfterMs(refusal(429, '1'))).toBe(1_000);
    expect(retryAfterMs(refusal(503, ' 5 '))).toBe(5_000);
    expect(retryAfterMs(refusal(429, '0'))).toBe(0);
    const now = Date.parse('2026-05-02T10:00:00Z');
    expect(retryAfterMs(refusal(429, 'Sat, 02 May 2026 10:00:30 GMT'), now)).toBe(30_000);
    expect(retryAfterMs(refusal(429, 'Sat, 02 May 2026 09:00:00 GMT'), now)).toBe(0);
  });

  it('is no wait when absent, unreadable, or on another status', () => {
    for (const value of [undefined, '', 'soon', '-1', '1.5', '1e3', '0x10', '2026-05-02', 'Sat, 02 May 2026'])
      expect(retryAfterMs(refusal(429, value)), String(value)).toBeUndefined();
    expect(retryAfterMs(refusal(500, '1'))).toBeUndefined();
    expect(retryAfterMs(refusal(200, '1'))).toBeUndefined();
  });
});

/** A connection whose body arrives in these chunks and then ends (or, `hang`, never does). */
function body(chunks: string[], hang = false): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      if (!hang) controller.close();
    },
  });
}

/** Follows connections made of `connections` in turn, collecting `count` events and every `lastId` opened with. */
async function follow(
  connections: (() => ReadableStream<Uint8Array>)[],
  count: number,
  idleTimeoutMs = 5_000,
) {
  const opened: (string | undefined)[] = [];
  const events: StreamEvent[] = [];
  const stop = new AbortController();
  for await (const event of followStream(
    async (lastId, signal) => {
      opened.push(lastId);
      const next = connections.shift();
      if (next) return next();
      // No more connections: one that never answers, as a fetch does until it is aborted.
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    },
    { idleTimeoutMs, signal: stop.signal },
  )) {
    events.push(event);
    if (events.length === count) stop.abort();
  }
  return { events, opened };
}

const trade = (block: number, log: number) =>
  `event: trade\ndata: {"token_address":"0xa","block_number":${block},"log_index":${log},"transaction_hash":"0x${block}"}\n\n`;

describe('followStream', () => {
  it('parses frames split anywhere, CRLF and CR line ends, multi-line data and comments', async () => {
    const text = `retry: 5\n\n: ping\n\n${trade(7, 1)}event: overflow\rdata: {"reason":"slow"}\r\revent: checkpoint\r\nid: 7-1-0a0b0c0d\r\ndata: {"indexed_through_block":\r\ndata: 7}\r\n\r\n`;
    const chunks = [...text].map((_, i) => text.slice(i, i + 1));
    const { events } = await follow([() => body(chunks)], 3);
    // The overflow is handed over at once, the trade with the checkpoint that covers it.
    expect(events).toEqual([
      { type: 'overflow', data: { reason: 'slow' } },
      {
        type: 'trade',
        data: { token_address: '0xa', block_number: 7, log_index: 1, transaction_hash: '0x7' },
      },
      { type: 'checkpoint', id: '7-1-0a0b0c0d', data: { indexed_through_block: 7 } },
    ]);
  });

  it('hands events over with the checkpoint that covers them; reconnects with the last id, dropping the uncovered', async () => {
    const { events, opened } = await follow(
      [
        () =>
          body([
            'retry: 10\n\n',
            'event: checkpoint\nid: 5-1-0a0b0c0d\ndata: {"indexed_through_block":5}\n\n',
            trade(6, 0),
            // The connection drops here: the trade of block 6 was never covered.
          ]),
        () =>
          body([
            'event: reorg\nid: 4-3-0a0b0c0d\ndata: {"indexed_through_block":4}\n\n',
            trade(5, 9),
            'event: checkpoint\nid: 6-4-0a0b0c0d\ndata: {"indexed_through_block":6}\n\n',
          ]),
      ],
      4,
    );
    expect(opened).toEqual([undefined, '5-1-0a0b0c0d']);
    expect(events.map((e) => `${e.type}:${'id' in e ? e.id : ''}`)).toEqual([
      'checkpoint:5-1-0a0b0c0d',
      'reorg:4-3-0a0b0c0d',
      'trade:',
      'checkpoint:6-4-0a0b0c0d',
    ]);
    expect(events[2]?.data).toMatchObject({ block_number: 5, log_index: 9 });
  });

  it('drops held events a reorg replaced, and skips event types it does not know', async () => {
    const { events } = await follow(
      [
        () =>
          body([
            trade(3, 0),
            trade(4, 0),
            'event: novelty\ndata: {}\n\n',
            'event: reorg\nid: 3-2-0a0b0c0d\ndata: {"indexed_through_block":3}\n\n',
          ]),
      ],
      2,
    );
    expect(events.map((e) => [e.type, 'block_number' in e.data ? e.data.block_number : undefined])).toEqual([
      ['trade', 3],
      ['reorg', undefined],
    ]);
  });

  it('reconnects from a connection that stays silent past idleTimeoutMs', async () => {
    const started = Date.now();
    const { events, opened } = await follow(
      [
        () =>
          body(
            ['retry: 10\n\nevent: checkpoint\nid: 1-1-0a0b0c0d\ndata: {"indexed_through_block":1}\n\n'],
            true,
          ),
        () => body(['event: reset\nid: 9-9-0a0b0c0d\ndata: {"indexed_through_block":9,"reason":"r"}\n\n']),
      ],
      2,
      300,
    );
    expect(opened).toEqual([undefined, '1-1-0a0b0c0d']);
    expect(events.map((e) => e.type)).toEqual(['checkpoint', 'reset']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('stops on data that is not JSON instead of reconnecting for ever', async () => {
    await expect(follow([() => body(['event: trade\ndata: {not json\n\n'])], 1)).rejects.toThrow(
      'stream event trade carries no JSON: {not json',
    );
  });
});

describe('types', () => {
  it('match the server: stream events as shared/stream/events.ts declares them, list items from the document', () => {
    expectTypeOf<LaunchEventData>().toEqualTypeOf<shared.LaunchEventData>();
    expectTypeOf<TradeEventData>().toEqualTypeOf<shared.TradeEventData>();
    expectTypeOf<GraduationEventData>().toEqualTypeOf<shared.GraduationEventData>();
    expectTypeOf<StreamEvent['type']>().toEqualTypeOf<shared.LiveEventType>();
    expectTypeOf<ListItem<'/api/v1/tokens/{address}/holders'>>().toHaveProperty('balance');
  });

  it('refuse what the API does not take', () => {
    // Compiled, never run: `tsc` fails on a directive that has no error under it.
    async function misuse(client: LaunchdexClient) {
      // @ts-expect-error: a token's trades need its address
      client.pages('/api/v1/tokens/{address}/trades');
      // @ts-expect-error: one token is no list
      client.pages('/api/v1/tokens/{address}', { path: { address: '0x' } });
      // @ts-expect-error: the walk owns the cursor
      client.pages('/api/v1/tokens', { query: { cursor: 'v2.x' } });
      // @ts-expect-error: view is one of four
      client.pages('/api/v1/tokens', { query: { view: 'best' } });
      for await (const item of client.pages('/api/v1/tokens/{address}/trades', { path: { address: '0x' } })) {
        // @ts-expect-error: trades carry no such field
        console.log(item.price_in_gold);
      }
    }
    expect(misuse).toBeTypeOf('function');
  });
});
