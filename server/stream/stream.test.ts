import { describe, expect, it } from 'vitest';
import { formatResumeToken, parseResumeToken, streamQuery } from '../../shared/api/stream';
import { eventToken, type LiveEvent, passesTokenFilter } from '../../shared/stream/events';
import { encodeEvent, heartbeat, resumePoint } from './encode';
import { createSubscriber } from './subscriber';

const trade = (token: string, block: number): LiveEvent => ({
  type: 'trade',
  data: {
    token_address: token,
    trader: '0x01',
    side: 'buy',
    source: 'curve',
    token_amount: '10',
    reserve_amount: '1',
    curve_value: '1',
    protocol_fee: '0',
    creator_fee: '0',
    block_number: block,
    block_timestamp: 1,
    transaction_index: 0,
    transaction_hash: '0xab',
    log_index: 1,
  },
});

/** The first `count` chunks of a stream, as text, leaving it open. */
async function readFrames(stream: ReadableStream<Uint8Array>, count: number): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (let i = 0; i < count; i++) {
    const { value } = await reader.read();
    text += decoder.decode(value);
  }
  reader.releaseLock();
  return text;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of stream) text += decoder.decode(chunk);
  return text;
}

describe('stream encoding', () => {
  it('writes one SSE frame per event; checkpoints carry the block as id for resumption', () => {
    expect(encodeEvent({ type: 'checkpoint', data: { indexed_through_block: 42 } })).toBe(
      'event: checkpoint\nid: 42\ndata: {"indexed_through_block":42}\n\n',
    );
    const frame = encodeEvent(trade('0xaa', 7));
    expect(frame.startsWith('event: trade\ndata: {')).toBe(true);
    expect(frame).not.toContain('\nid:');
    expect(frame.endsWith('\n\n')).toBe(true);
    expect(frame.split('\n').filter((line) => line.startsWith('data:'))).toHaveLength(1);
    expect(heartbeat.startsWith(':')).toBe(true);
  });

  it('resumes from Last-Event-ID, else ?since=; a Last-Event-ID that is no id this stream sends is unreadable', () => {
    expect(resumePoint('120-7', undefined)).toEqual({ block: 120, seq: 7 });
    expect(resumePoint('0-0', undefined)).toEqual({ block: 0, seq: 0 });
    // Bare block ids of earlier versions resume without a rollback check.
    expect(resumePoint('120', undefined)).toEqual({ block: 120, seq: undefined });
    expect(resumePoint('0', undefined)).toEqual({ block: 0, seq: undefined });
    const since = { block: 7, seq: 3 };
    expect(resumePoint(null, since)).toBe(since);
    expect(resumePoint('120-9', since)).toEqual({ block: 120, seq: 9 });
    // EventSource sends no header without an id; an empty one is no resume point either.
    expect(resumePoint('', since)).toBe(since);
    for (const bad of [
      '-1',
      '1.5',
      'abc',
      '1e3',
      '007',
      '-0',
      '+5',
      ' 5',
      '0x10',
      '9'.repeat(16),
      '5-',
      '-5',
      '5-07',
      '5-1-2',
      '5--1',
      `5-${'9'.repeat(16)}`,
      '5_1',
    ])
      expect(resumePoint(bad, since), bad).toBe('unreadable');
    expect(resumePoint(null, undefined)).toBeUndefined();
  });

  it('ids are <block>-<seq>-<database>, read back as they were written; since takes the same ids or is a 400', () => {
    expect(formatResumeToken(120, 7, '0a1b2c3d')).toBe('120-7-0a1b2c3d');
    expect(formatResumeToken(120, 7, '')).toBe('120-7');
    expect(parseResumeToken(formatResumeToken(999_999_999_999_999, 999_999_999_999_999, 'ffffffff'))).toEqual(
      {
        block: 999_999_999_999_999,
        seq: 999_999_999_999_999,
        database: 'ffffffff',
      },
    );
    expect(
      encodeEvent({
        type: 'reorg',
        data: { indexed_through_block: 40 },
        id: formatResumeToken(40, 9, '0a1b2c3d'),
      }),
    ).toBe('event: reorg\nid: 40-9-0a1b2c3d\ndata: {"indexed_through_block":40}\n\n');
    expect(streamQuery.parse({ since: '40-9-0a1b2c3d' }).since).toEqual({
      block: 40,
      seq: 9,
      database: '0a1b2c3d',
    });
    // Ids of earlier versions still parse.
    expect(streamQuery.parse({ since: '40-9' }).since).toEqual({ block: 40, seq: 9, database: undefined });
    expect(streamQuery.parse({ since: '40' }).since).toEqual({
      block: 40,
      seq: undefined,
      database: undefined,
    });
    expect(streamQuery.parse({}).since).toBeUndefined();
    for (const bad of [
      '',
      '40-',
      '040-1',
      '40-01',
      '-40',
      '40-9-1',
      '40-9-0A1B2C3D',
      '40-9-0a1b2c3',
      '40--0a1b2c3d',
    ])
      expect(streamQuery.safeParse({ since: bad }).success, bad).toBe(false);
  });

  it('names the token of token events only', () => {
    expect(eventToken(trade('0xaa', 1))).toBe('0xaa');
    expect(eventToken({ type: 'checkpoint', data: { indexed_through_block: 1 } })).toBeNull();
  });

  it('a token filter keeps that token and stream-wide events; no filter keeps everything', () => {
    const reset: LiveEvent = { type: 'reset', data: { indexed_through_block: 3, reason: 'r' } };
    expect(passesTokenFilter(trade('0xaa', 1), '0xaa')).toBe(true);
    expect(passesTokenFilter(trade('0xbb', 1), '0xaa')).toBe(false);
    expect(passesTokenFilter(reset, '0xaa')).toBe(true);
    expect(passesTokenFilter(trade('0xbb', 1), undefined)).toBe(true);
  });
});

describe('stream subscriber', () => {
  it('with a token filter passes that token and stream-wide events, nothing else', async () => {
    const subscriber = createSubscriber({ token: '0xaa', maxQueued: 100, onClose: () => {} });
    subscriber.send(trade('0xaa', 1));
    subscriber.send(trade('0xbb', 2));
    subscriber.send({ type: 'checkpoint', data: { indexed_through_block: 2 } });
    expect(subscriber.queued).toBe(2);
    const text = await readFrames(subscriber.stream, 2);
    expect(text.match(/^event: \w+/gm)).toEqual(['event: trade', 'event: checkpoint']);
    expect(text).toContain('"token_address":"0xaa"');
    expect(text).not.toContain('0xbb');
    expect(subscriber.queued).toBe(0);
  });

  it('hands a chunk to a waiting reader at once: only what it has not asked for counts', async () => {
    const subscriber = createSubscriber({ token: undefined, maxQueued: 1, onClose: () => {} });
    const reader = subscriber.stream.getReader();
    const first = reader.read();
    // The stream has started and asked for a chunk.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(subscriber.send(trade('0xaa', 1))).toBe(true);
    expect(subscriber.queued).toBe(0);
    expect(new TextDecoder().decode((await first).value)).toMatch(/^event: trade/);
    expect(subscriber.send(trade('0xaa', 2))).toBe(true);
    expect(subscriber.closed).toBe(false);
  });

  it('drops a client that stops reading once its queue is full: its queue is freed, a final overflow remains', async () => {
    let closed = 0;
    const subscriber = createSubscriber({ token: undefined, maxQueued: 5, onClose: () => closed++ });
    let accepted = 0;
    for (let i = 0; i < 50; i++) if (subscriber.send(trade('0xaa', i))) accepted++;
    expect(accepted).toBe(5);
    expect(subscriber.closed).toBe(true);
    expect(closed).toBe(1);
    expect(subscriber.queued).toBe(1);
    const text = await readAll(subscriber.stream);
    expect(text.match(/^event: \w+/gm)).toEqual(['event: overflow']);
    expect(subscriber.queued).toBe(0);
    expect(subscriber.send(trade('0xaa', 99))).toBe(false);
    expect(subscriber.sendRaw(': ping\n\n')).toBe(false);
    expect(closed).toBe(1);
  });

  it('a reader that cancels releases the subscriber, once, and its queue', async () => {
    let closed = 0;
    const subscriber = createSubscriber({ token: undefined, maxQueued: 5, onClose: () => closed++ });
    subscriber.send(trade('0xaa', 1));
    await subscriber.stream.cancel();
    expect(closed).toBe(1);
    expect(subscriber.queued).toBe(0);
    expect(subscriber.send(trade('0xaa', 1))).toBe(false);
    subscriber.close();
    expect(closed).toBe(1);
  });

  it('close() drops the queue, ends the stream and releases once however often it is called', async () => {
    let closed = 0;
    const subscriber = createSubscriber({ token: undefined, maxQueued: 5, onClose: () => closed++ });
    subscriber.send(trade('0xaa', 1));
    subscriber.send(trade('0xaa', 2));
    subscriber.close();
    subscriber.close();
    expect(closed).toBe(1);
    expect(subscriber.queued).toBe(0);
    expect(await readAll(subscriber.stream)).toBe('');
    await subscriber.stream.cancel();
    expect(closed).toBe(1);
  });

  it('an aborted signal closes the subscriber: before it was created, or later; once either way', async () => {
    const gone = new AbortController();
    gone.abort();
    const released: unknown[] = [];
    const early = createSubscriber({
      token: undefined,
      maxQueued: 5,
      signal: gone.signal,
      onClose: (s) => released.push(s),
    });
    expect(early.closed).toBe(true);
    expect(released).toEqual([early]);
    expect(early.send(trade('0xaa', 1))).toBe(false);

    const leaving = new AbortController();
    let closed = 0;
    const late = createSubscriber({
      token: undefined,
      maxQueued: 5,
      signal: leaving.signal,
      onClose: () => closed++,
    });
    late.send(trade('0xaa', 1));
    leaving.abort();
    expect(closed).toBe(1);
    expect(late.queued).toBe(0);
    late.close();
    await late.stream.cancel();
    expect(closed).toBe(1);
  });
});
