import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsHeaders } from '../../test/app-server';
import { fundedAddress } from '../../test/chain';
import { availableBackends } from '../../test/database';
import { type IndexedStack, startIndexedStack } from '../../test/stack';

const backends = await availableBackends();
const NO_METADATA: Hex = `0x${'00'.repeat(32)}`;

interface Frame {
  event: string;
  id?: string;
  data: string;
  comment?: string;
}

/** A live SSE connection read frame by frame, as EventSource would. */
async function openStream(url: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = await fetch(url, { headers, signal: abort.signal });
  const frames: Frame[] = [];
  let buffer = '';
  const reading = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame: Frame = { event: 'message', data: '' };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comment = line.slice(1).trim();
            else if (line.startsWith('event: ')) frame.event = line.slice(7);
            else if (line.startsWith('id: ')) frame.id = line.slice(4);
            else if (line.startsWith('data: ')) frame.data += line.slice(6);
            else if (line.startsWith('retry: ')) frame.event = 'retry';
          }
          frames.push(frame);
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    response,
    frames,
    events: (type?: string) =>
      frames
        .filter(
          (f) => f.event !== 'retry' && f.comment === undefined && (type === undefined || f.event === type),
        )
        .map((f) => ({ type: f.event, id: f.id, data: JSON.parse(f.data) as Record<string, unknown> })),
    close: async () => {
      abort.abort();
      await reading;
    },
  };
}

/** Waits until `stream` has sent the checkpoint of `head` (the block a test's own writes ended on). */
async function untilCheckpointAt(stream: Awaited<ReturnType<typeof openStream>>, head: number) {
  await expect
    .poll(() => stream.events('checkpoint').some((e) => e.data.indexed_through_block === head), {
      timeout: 15_000,
    })
    .toBe(true);
}

describe.each(backends)('live stream /api/v1/stream (%s)', (backend) => {
  let stack: IndexedStack;
  let creator: Address;
  const url = (query = '') => `${stack.server.baseUrl}/api/v1/stream${query}`;

  beforeAll(async () => {
    stack = await startIndexedStack(
      backend,
      { seed: 61, launches: 3, actions: 20 },
      { STREAM_POLL_MS: '100', STREAM_HEARTBEAT_MS: '400' },
    );
    creator = await fundedAddress(stack.chain, 61);
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
  });

  async function launchAndTrade(name: string) {
    const launched = await stack.chain.actions.launch({
      creator,
      name,
      symbol: name.slice(0, 4).toUpperCase(),
      supply: 10n ** 27n,
      metadataHash: NO_METADATA,
    });
    const token = launched.token.toLowerCase();
    const trader = await fundedAddress(stack.chain, 62);
    await stack.chain.actions.buy({ trader, token: launched.token, value: 2n * 10n ** 18n });
    await stack.chain.actions.sell({ trader, token: launched.token, amount: 10n ** 24n });
    return { token, head: await stack.waitForIndex() };
  }

  it('sends launches and trades of new blocks in chain order, each advance closed by a checkpoint', async () => {
    await stack.waitForIndex();
    const stream = await openStream(url());
    try {
      expect(stream.response.status).toBe(200);
      expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(stream.response.headers.get('cache-control')).toBe('no-cache, no-transform');
      await expect.poll(() => stream.events('checkpoint').length).toBeGreaterThan(0);
      const { token, head } = await launchAndTrade('Stream Alpha');
      await untilCheckpointAt(stream, head);
      const own = stream.events().filter((e) => e.data.address === token || e.data.token_address === token);
      expect(own.map((e) => `${e.type}:${e.data.side ?? ''}`)).toEqual([
        'launch:',
        'trade:buy',
        'trade:sell',
      ]);
      expect(own[0]?.data).toMatchObject({ name: 'Stream Alpha', creator: creator.toLowerCase() });
      // The trades are exactly what the REST API lists, newest first there, oldest first here.
      const rest = (await (await fetch(`${stack.server.baseUrl}/api/v1/tokens/${token}/trades`)).json()) as {
        items: Record<string, unknown>[];
      };
      expect(own.slice(1).map((e) => e.data)).toEqual(
        [...rest.items].reverse().map((item) => ({ ...item, token_address: token })),
      );
      // Every event comes before the checkpoint that covers its block.
      const sequence = stream.events();
      for (const [index, event] of sequence.entries()) {
        if (event.type === 'checkpoint') continue;
        const covering = sequence.findIndex(
          (e, i) =>
            i > index &&
            e.type === 'checkpoint' &&
            (e.data.indexed_through_block as number) >= (event.data.block_number as number),
        );
        expect(covering, JSON.stringify(event)).toBeGreaterThan(index);
      }
      // Heartbeats keep idle connections open.
      await expect.poll(() => stream.frames.some((f) => f.comment === 'ping'), { timeout: 5_000 }).toBe(true);
    } finally {
      await stream.close();
    }
  });

  it('token= passes only that token’s events; a malformed token is 400 invalid_address', async () => {
    const filtered = await openStream(url(`?token=${'0x'}${'0'.repeat(40)}`));
    const all = await openStream(url());
    try {
      await expect.poll(() => all.events('checkpoint').length).toBeGreaterThan(0);
      const { token, head } = await launchAndTrade('Stream Beta');
      await untilCheckpointAt(filtered, head);
      expect(filtered.events().filter((e) => e.type !== 'checkpoint')).toEqual([]);
      const mine = await openStream(url(`?token=${token.toUpperCase().replace('0X', '0x')}`));
      try {
        await expect.poll(() => mine.events('checkpoint').length).toBeGreaterThan(0);
        await stack.chain.actions.buy({
          trader: await fundedAddress(stack.chain, 63),
          token: token as Address,
          value: 10n ** 18n,
        });
        await launchAndTrade('Stream Noise');
        await expect.poll(() => mine.events('trade').length, { timeout: 15_000 }).toBe(1);
        expect(
          mine
            .events()
            .filter((e) => e.type !== 'checkpoint')
            .every((e) => e.data.token_address === token),
        ).toBe(true);
      } finally {
        await mine.close();
      }
    } finally {
      await filtered.close();
      await all.close();
    }
    for (const bad of ['0x12', 'nope', `0x${'g'.repeat(40)}`]) {
      const response = await fetch(url(`?token=${bad}`));
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_address');
    }
  });

  it('a reconnect with Last-Event-ID replays what it missed; one from too far back gets reset', async () => {
    const before = await stack.waitForIndex();
    const { token, head } = await launchAndTrade('Stream Gamma');
    const resumed = await openStream(url(), { 'last-event-id': String(before) });
    try {
      await expect.poll(() => resumed.events('checkpoint').length).toBeGreaterThan(0);
      const replayed = resumed
        .events()
        .filter((e) => e.data.address === token || e.data.token_address === token);
      expect(replayed.map((e) => e.type)).toEqual(['launch', 'trade', 'trade']);
      expect(resumed.events('checkpoint')[0]?.data.indexed_through_block).toBeGreaterThanOrEqual(head);
      // The id it ends with is a resume id; `since` takes it as Last-Event-ID does.
      const id = resumed.events('checkpoint')[0]?.id ?? '';
      expect(id).toMatch(/^\d+-\d+-[0-9a-f]{8}$/);
      const again = await openStream(url(`?since=${id}`));
      try {
        await expect.poll(() => again.events('checkpoint').length).toBeGreaterThan(0);
        expect(again.events().filter((e) => e.type !== 'checkpoint')).toEqual([]);
        expect(again.events('checkpoint')[0]?.data.indexed_through_block).toBe(Number(id.split('-')[0]));
      } finally {
        await again.close();
      }
    } finally {
      await resumed.close();
    }
    // The simulator history is a few hundred blocks; a resume point 1,001+ blocks back is too old.
    const ancient = await openStream(url(`?since=0`));
    try {
      await expect.poll(() => ancient.events().length).toBeGreaterThan(0);
      const first = ancient.events()[0];
      if (head > 1_000) expect(first?.type).toBe('reset');
      else expect(first?.type).toBe('launch');
    } finally {
      await ancient.close();
    }
  });

  it('a malformed since is 400 invalid_parameter; an unreadable Last-Event-ID gets one reset of the current block', async () => {
    for (const bad of [
      '007',
      '-1',
      '-0',
      '1e3',
      '%2B5',
      '%205',
      'abc',
      '',
      '1.5',
      '1&since=2',
      '5-',
      '5-07',
    ]) {
      const response = await fetch(url(`?since=${bad}`));
      expect(response.status, bad).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await response.json()) as { error: { code: string; details: { field: string }[] } };
      expect(body.error.code, bad).toBe('invalid_parameter');
      expect(body.error.details[0]?.field).toBe('since');
    }
    // A malformed since is refused even when Last-Event-ID would win: the URL itself is wrong.
    expect((await fetch(url('?since=01'), { headers: { 'last-event-id': '5' } })).status).toBe(400);

    const head = await stack.waitForIndex();
    let resetId = '';
    for (const unreadable of ['abc', '007', '-1', '1e3', `${head}x`, `${head}-`, `${head}-01`]) {
      const stream = await openStream(url(), { 'last-event-id': unreadable });
      try {
        expect(stream.response.status).toBe(200);
        await expect.poll(() => stream.events().length).toBeGreaterThan(0);
        const [first] = stream.events();
        expect(first?.type, unreadable).toBe('reset');
        expect(first?.data.reason).toBe('Last-Event-ID is not a stream id');
        expect(first?.id).toMatch(/^\d+-\d+-[0-9a-f]{8}$/);
        expect(Number(first?.id?.split('-')[0])).toBeGreaterThanOrEqual(head);
        expect(first?.data.indexed_through_block).toBe(Number(first?.id?.split('-')[0]));
        resetId = first?.id ?? '';
      } finally {
        await stream.close();
      }
    }
    // The reset's id is a resume point: reconnecting with it catches up with a checkpoint.
    const resumed = await openStream(url(), { 'last-event-id': resetId });
    try {
      await expect.poll(() => resumed.events('checkpoint').length).toBeGreaterThan(0);
      expect(resumed.events().map((e) => e.type)).not.toContain('reset');
    } finally {
      await resumed.close();
    }
  });

  it('HEAD answers as GET would, without a body or a subscription; a bad query is still 400', async () => {
    const head = await fetch(url(`?token=${creator}`), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(head.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(await head.text()).toBe('');
    expect((await fetch(url('?token=0x12'), { method: 'HEAD' })).status).toBe(400);
    const options = await fetch(url(), { method: 'OPTIONS' });
    expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect((await fetch(url(), { method: 'POST' })).status).toBe(405);
  });

  it('a client that disconnects is released; the connections gauge and the access log show it', async () => {
    const clients = async () => {
      const metrics = await (
        await fetch(`${stack.server.baseUrl}/api/metrics`, { headers: metricsHeaders })
      ).text();
      return Number(/^launchdex_stream_clients (\d+)$/m.exec(metrics)?.[1]);
    };
    await expect.poll(clients, { timeout: 5_000 }).toBe(0);
    const streams = await Promise.all([
      openStream(url()),
      openStream(url()),
      openStream(url(`?token=${creator}`)),
    ]);
    for (const stream of streams)
      await expect.poll(() => stream.events('checkpoint').length).toBeGreaterThan(0);
    expect(await clients()).toBe(3);
    for (const stream of streams) await stream.close();
    await expect.poll(clients, { timeout: 5_000 }).toBe(0);
    const metrics = await (
      await fetch(`${stack.server.baseUrl}/api/metrics`, { headers: metricsHeaders })
    ).text();
    expect(metrics).toMatch(
      /launchdex_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/stream",status="2xx"\} [1-9]/,
    );
  });
});
