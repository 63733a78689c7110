import { describe, expect, it } from 'vitest';
import { loopbackNodeForTests } from '../../../test/indexer/loopback-node';
import { createRpcClient, RpcRangeError } from './client';
import { type Answer, concatAnswers, createResultScanner } from './result-stream';

/** Log-shaped objects whose strings hold what a careless scanner would trip on. */
const logs = Array.from({ length: 300 }, (_, i) => ({
  blockNumber: `0x${(100 + Math.floor(i / 7)).toString(16)}`,
  logIndex: `0x${i.toString(16)}`,
  topics: [`0x${'ab'.repeat(32)}`],
  data:
    i % 50 === 0
      ? 'a "quoted" {brace} [bracket] \\ back\\"slash'
      : i % 50 === 1
        ? 'ends in a backslash \\'
        : `0x${i.toString(16).padStart(64, '0')}`,
}));
const answer = (id: number) => `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(logs)}}`;

describe('result scanner', () => {
  it('finds every element of the result array whatever the pieces it arrives in', () => {
    const pretty = `{\n  "jsonrpc": "2.0",\n  "id": 7,\n  "result": ${JSON.stringify(logs, null, 2)}\n}`;
    for (const [text, size] of [answer(7), pretty].flatMap((text) =>
      [1, 2, 3, 7, 13, 64, 1000, text.length].map((size) => [text, size] as const),
    )) {
      const scanner = createResultScanner();
      const runs: string[] = [];
      for (let i = 0; i < text.length; i += size) {
        const run = scanner.push(text.slice(i, i + size));
        if (run) runs.push(run);
      }
      // Each run on its own: a scanner lost inside a string could still cover the whole array.
      expect(runs.flatMap((run) => JSON.parse(`[${run}]`) as unknown[])).toEqual(logs);
      // Fed a character at a time, each element completes in a piece of its own.
      if (size === 1) expect(runs).toHaveLength(logs.length);
      expect(scanner.ended).toBe(true);
      expect(scanner.failed).toBe(false);
    }
  });

  it('tells an error answer apart, and an empty result', () => {
    const error = createResultScanner();
    expect(
      error.push('{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"[too] many {results}"}}'),
    ).toBe('');
    expect(error.failed).toBe(true);
    const empty = createResultScanner();
    expect(empty.push('{"id":1,"result":[],"jsonrpc":"2.0"}')).toBe('');
    expect(empty.ended).toBe(true);
  });
});

/** A node on loopback: eth_getLogs answers per its first param, in 1 kB pieces. */
let hungUp = 0;
const node = loopbackNodeForTests<{ kind: 'logs' | 'error' | 'truncated' | 'large'; declare: boolean }>(
  (id, { kind, declare }, response) => {
    const full =
      kind === 'error'
        ? `{"jsonrpc":"2.0","id":${id},"error":{"code":-32005,"message":"query returned more than 10000 results ${'.'.repeat(4000)}"}}`
        : kind === 'large'
          ? `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(Array.from({ length: 500 }, () => logs).flat())}}`
          : answer(id);
    const text = kind === 'truncated' ? full.slice(0, Math.floor(full.length / 2)) : full;
    response.writeHead(200, {
      'content-type': 'application/json',
      ...(declare ? { 'content-length': String(Buffer.byteLength(text)) } : {}),
    });
    let at = 0;
    let closed = false;
    response.on('close', () => {
      if (at < text.length) hungUp++;
      closed = true;
    });
    const pump = () => {
      while (!closed && at < text.length) {
        const piece = text.slice(at, at + 1024);
        at += piece.length;
        if (!response.write(piece)) return void response.once('drain', pump);
      }
      if (!closed) response.end();
    };
    pump();
  },
);

async function drain(stream: { next(): Promise<unknown[] | undefined> }) {
  const all: unknown[] = [];
  for (let batch = await stream.next(); batch; batch = await stream.next()) all.push(...batch);
  return all;
}

describe('requestOrStream', () => {
  it('reads an answer within the limit whole', async () => {
    const client = createRpcClient({ url: node.url, maxResponseBytes: 1024 * 1024 });
    const answered = await client.requestOrStream('eth_getLogs', [{ kind: 'logs', declare: true }]);
    expect(answered).toEqual({ whole: logs });
  });

  it('streams an answer over the limit, declared or not, every element in order', async () => {
    for (const declare of [true, false]) {
      const client = createRpcClient({ url: node.url, maxResponseBytes: 4 * 1024 });
      const answered = await client.requestOrStream('eth_getLogs', [{ kind: 'logs', declare }]);
      if (!('stream' in answered)) throw new Error('expected a stream');
      if (declare) expect(answered.stream.declaredBytes).toBeGreaterThan(4 * 1024);
      else expect(answered.stream.declaredBytes).toBeUndefined();
      expect(await drain(answered.stream)).toEqual(logs);
    }
  });

  it('reports an error answer over the limit as the error it is', async () => {
    const client = createRpcClient({ url: node.url, maxResponseBytes: 1024, maxRetries: 0 });
    const answered = await client.requestOrStream('eth_getLogs', [{ kind: 'error', declare: true }]);
    if (!('stream' in answered)) throw new Error('expected a stream');
    await expect(drain(answered.stream)).rejects.toBeInstanceOf(RpcRangeError);
  });

  it('fails an answer cut off inside its array, and a cancel hangs up', async () => {
    const client = createRpcClient({ url: node.url, maxResponseBytes: 1024 });
    const truncated = await client.requestOrStream('eth_getLogs', [{ kind: 'truncated', declare: false }]);
    if (!('stream' in truncated)) throw new Error('expected a stream');
    await expect(drain(truncated.stream)).rejects.toThrow(/ended inside its result array/);
    // Megabytes: more than the sockets between them hold, so the server is still sending.
    const cancelled = await client.requestOrStream('eth_getLogs', [{ kind: 'large', declare: false }]);
    if (!('stream' in cancelled)) throw new Error('expected a stream');
    const before = hungUp;
    await cancelled.stream.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hungUp).toBe(before + 1);
  });
});

describe('concatAnswers', () => {
  it('hands on answers whole and streamed as one stream, in the order asked', async () => {
    // Answers over 4 kB stream, the others are read whole: the first and last are whole here.
    const client = createRpcClient({ url: node.url, maxResponseBytes: 1024 * 1024 });
    const ask = (limit: number) =>
      client.requestOrStream<unknown>('eth_getLogs', [{ kind: 'logs', declare: true }], {
        maxResponseBytes: limit,
      });
    const answers = [ask(1024 * 1024), ask(4096), ask(4096), ask(1024 * 1024)];
    const kinds = (await Promise.all(answers)).map((a) => ('whole' in a ? 'whole' : 'stream'));
    expect(kinds).toEqual(['whole', 'stream', 'stream', 'whole']);
    expect(await drain(concatAnswers(answers))).toEqual([...logs, ...logs, ...logs, ...logs]);
  });

  it('fails when a failed answer comes to its turn, not before', async () => {
    const failed = Promise.reject(new Error('slice 2 failed'));
    const stream = concatAnswers<number>([Promise.resolve({ whole: [1, 2] }), failed]);
    expect(await stream.next()).toEqual([1, 2]);
    await expect(stream.next()).rejects.toThrow('slice 2 failed');
  });

  it('skips empty answers, and a cancel hangs up those streaming and those still to come', async () => {
    const empty = concatAnswers<number>([{ whole: [] }, { whole: [] }].map((a) => Promise.resolve(a)));
    expect(await empty.next()).toBeUndefined();
    const client = createRpcClient({ url: node.url, maxResponseBytes: 1024 });
    const large = () =>
      client.requestOrStream<unknown>('eth_getLogs', [{ kind: 'large', declare: false }]) as Promise<
        Answer<unknown>
      >;
    const first = large();
    let release: (answer: Answer<unknown>) => void = () => {};
    const later = new Promise<Answer<unknown>>((resolve) => {
      release = resolve;
    });
    const stream = concatAnswers([first, later]);
    expect((await stream.next())?.length).toBeGreaterThan(0);
    const before = hungUp;
    await stream.cancel();
    // The answer still to come is hung up as it arrives.
    release(await large());
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(hungUp).toBe(before + 2);
    expect(await stream.next()).toBeUndefined();
  });
});
