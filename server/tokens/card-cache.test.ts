import { describe, expect, it } from 'vitest';
import { createCardCache } from './card-cache';

const png = (bytes: number, fill = 1) => Buffer.alloc(bytes, fill);

/** A render that counts its calls and finishes when told to. */
function controlledRender(card: Buffer | null) {
  let finish: (() => void) | undefined;
  const render = {
    calls: 0,
    fn: () => {
      render.calls++;
      return new Promise<Buffer | null>((resolve) => {
        finish = () => resolve(card);
      });
    },
    finish: () => finish?.(),
  };
  return render;
}

describe('share card cache', () => {
  it('draws a card once per token and version: repeats are hits, a new version draws again', async () => {
    const cache = createCardCache(1_000_000);
    let draws = 0;
    const render = async () => {
      draws++;
      return png(1_000, draws);
    };
    expect((await cache.get('0xa', 7n, render)).outcome).toBe('rendered');
    for (let i = 0; i < 5; i++) {
      const again = await cache.get('0xa', 7n, render);
      expect(again.outcome).toBe('hit');
      expect(again.card?.[0]).toBe(1);
    }
    const next = await cache.get('0xa', 8n, render);
    expect(next.outcome).toBe('rendered');
    expect(next.card?.[0]).toBe(2);
    expect(draws).toBe(2);
    // One entry per token: the newer card replaced the older one.
    expect(cache.entries).toBe(1);
    expect(cache.stats).toMatchObject({ hit: 5, rendered: 2 });
  });

  it('concurrent requests for a card being drawn wait for that drawing: ten requests, one draw', async () => {
    const cache = createCardCache(1_000_000);
    const render = controlledRender(png(500));
    const answers = Promise.all(Array.from({ length: 10 }, () => cache.get('0xa', 1n, render.fn)));
    await new Promise((resolve) => setImmediate(resolve));
    render.finish();
    const outcomes = (await answers).map((a) => a.outcome).sort();
    expect(render.calls).toBe(1);
    expect(outcomes).toEqual([...Array(9).fill('joined'), 'rendered']);
  });

  it('keeps "no card" answers (unknown or hidden tokens) at the cost of the entry overhead only', async () => {
    const cache = createCardCache(1_000_000);
    let draws = 0;
    const none = async () => {
      draws++;
      return null;
    };
    expect(await cache.get('0xdead', 3n, none)).toEqual({ card: null, outcome: 'rendered' });
    expect(await cache.get('0xdead', 3n, none)).toEqual({ card: null, outcome: 'hit' });
    expect(draws).toBe(1);
    expect(cache.bytes).toBe(200);
  });

  it('stays within its bytes, dropping the least recently asked for first', async () => {
    const cache = createCardCache(10_000);
    const card = async () => png(2_000);
    for (const token of ['0x1', '0x2', '0x3', '0x4']) await cache.get(token, 1n, card);
    // 0x1 asked for again: now the most recent, so 0x2 is the oldest.
    expect((await cache.get('0x1', 1n, card)).outcome).toBe('hit');
    await cache.get('0x5', 1n, card);
    expect(cache.bytes).toBeLessThanOrEqual(10_000);
    expect(cache.entries).toBe(4);
    expect(cache.stats.evicted).toBe(1);
    expect((await cache.get('0x1', 1n, card)).outcome).toBe('hit');
    expect((await cache.get('0x2', 1n, card)).outcome).toBe('rendered');
    // A card larger than the whole cache is served but not kept.
    const huge = await cache.get('0x6', 1n, async () => png(20_000));
    expect(huge.card?.length).toBe(20_000);
    expect((await cache.get('0x6', 1n, async () => png(20_000))).outcome).toBe('rendered');
    expect(cache.bytes).toBeLessThanOrEqual(10_000);
  });

  it('a slow drawing of an older version does not replace the newer card', async () => {
    const cache = createCardCache(1_000_000);
    const old = controlledRender(png(100, 1));
    const pendingOld = cache.get('0xa', 1n, old.fn);
    await cache.get('0xa', 2n, async () => png(100, 2));
    old.finish();
    expect((await pendingOld).card?.[0]).toBe(1);
    const current = await cache.get('0xa', 2n, async () => png(100, 3));
    expect(current).toMatchObject({ outcome: 'hit' });
    expect(current.card?.[0]).toBe(2);
  });

  it('a failed drawing is not kept: every waiter sees the failure, the next request draws again', async () => {
    const cache = createCardCache(1_000_000);
    let fail = true;
    const render = async () => {
      if (fail) throw new Error('database unavailable');
      return png(10);
    };
    const both = [cache.get('0xa', 1n, render), cache.get('0xa', 1n, render)];
    for (const answer of both) await expect(answer).rejects.toThrow('database unavailable');
    fail = false;
    expect((await cache.get('0xa', 1n, render)).outcome).toBe('rendered');
  });
});
