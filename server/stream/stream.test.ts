import { describe, expect, it } from 'vitest';
import { encodeEvent, heartbeat, resumeBlock } from './encode';
import { eventToken, type LiveEvent } from './events';
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

  it('resumes from Last-Event-ID, else ?since=, and ignores anything that is not a block number', () => {
    expect(resumeBlock('120', null)).toBe(120);
    expect(resumeBlock(null, '7')).toBe(7);
    expect(resumeBlock('120', '7')).toBe(120);
    for (const bad of ['', '-1', '1.5', 'abc', '1e3', '9'.repeat(16)])
      expect(resumeBlock(bad, null)).toBeUndefined();
    expect(resumeBlock(null, null)).toBeUndefined();
  });

  it('names the token of token events only', () => {
    expect(eventToken(trade('0xaa', 1))).toBe('0xaa');
    expect(eventToken({ type: 'checkpoint', data: { indexed_through_block: 1 } })).toBeNull();
  });
});

describe('stream subscriber', () => {
  it('with a token filter passes that token and stream-wide events, nothing else', async () => {
    const subscriber = createSubscriber({ token: '0xaa', maxQueued: 100, onClose: () => {} });
    subscriber.send(trade('0xaa', 1));
    subscriber.send(trade('0xbb', 2));
    subscriber.send({ type: 'checkpoint', data: { indexed_through_block: 2 } });
    subscriber.close();
    const text = await readAll(subscriber.stream);
    expect(text.match(/^event: \w+/gm)).toEqual(['event: trade', 'event: checkpoint']);
    expect(text).toContain('"token_address":"0xaa"');
    expect(text).not.toContain('0xbb');
  });

  it('drops a client that stops reading once its queue is full, with a final overflow event', async () => {
    let closed = 0;
    const subscriber = createSubscriber({ token: undefined, maxQueued: 5, onClose: () => closed++ });
    let accepted = 0;
    for (let i = 0; i < 50; i++) if (subscriber.send(trade('0xaa', i))) accepted++;
    expect(accepted).toBe(5);
    expect(subscriber.closed).toBe(true);
    expect(closed).toBe(1);
    const text = await readAll(subscriber.stream);
    expect(text.match(/^event: \w+/gm)).toEqual([...Array(5).fill('event: trade'), 'event: overflow']);
    expect(subscriber.send(trade('0xaa', 99))).toBe(false);
  });

  it('a reader that cancels releases the subscriber', async () => {
    let closed = 0;
    const subscriber = createSubscriber({ token: undefined, maxQueued: 5, onClose: () => closed++ });
    await subscriber.stream.cancel();
    expect(closed).toBe(1);
    expect(subscriber.send(trade('0xaa', 1))).toBe(false);
  });
});
