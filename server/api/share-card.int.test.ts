import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableBackends } from '../../test/database';
import { createFinalizeFlow } from '../../test/finalize-flow';
import { rawRequest } from '../../test/raw-http';
import { type IndexedStack, startIndexedStack } from '../../test/stack';
import { excludeToken, includeToken } from '../tokens/moderation';

const [backend] = await availableBackends();

/** A card request: status, whether it was drawn for it, the bytes and the milliseconds it took. */
async function card(url: string) {
  const started = performance.now();
  const answer = await fetch(url);
  const body = Buffer.from(await answer.arrayBuffer());
  return {
    status: answer.status,
    cache: answer.headers.get('x-card-cache'),
    type: answer.headers.get('content-type'),
    body,
    ms: performance.now() - started,
  };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** The `content` of `<meta property|name="key" content="…">` in a page. */
function meta(html: string, key: string): string | undefined {
  const tag = html.match(new RegExp(`<meta[^>]+(?:property|name)="${key}"[^>]*>`))?.[0];
  return tag?.match(/content="([^"]*)"/)?.[1]?.replace(/&amp;/g, '&');
}

/** Where users reach the site: a proxy in front, not the loopback address the test server listens at. */
const PUBLIC_BASE_URL = 'https://cards.launchdex.example/explorer';

describe(`a shared token link unfurls into a card (${backend})`, () => {
  let stack: IndexedStack;

  beforeAll(async () => {
    if (!backend) throw new Error('no backend');
    stack = await startIndexedStack(backend, { seed: 61, launches: 4, actions: 30 }, { PUBLIC_BASE_URL });
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('the token page carries OpenGraph and Twitter metadata whose image is a 1200×630 PNG with the logo', async () => {
    const flow = await createFinalizeFlow(stack);
    const launched = await flow.draftAndLaunch();
    await stack.waitForIndex();
    expect(
      (await flow.finalize(launched.draftId, await flow.signedBody(launched.draftId, launched))).status,
    ).toBe(200);

    // A client-chosen Host and X-Forwarded-Host reach none of the absolute URLs.
    const page = await rawRequest(
      Number(new URL(stack.server.baseUrl).port),
      `GET /tokens/${launched.token} HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-Host: evil-forwarded.example\r\nConnection: close\r\n\r\n`,
      { timeoutMs: 30_000 },
    );
    expect(page.status).toBe(200);
    const html = page.body;
    expect(html).not.toMatch(/evil/);
    expect(meta(html, 'og:title')).toBe(`${launched.fields.name} (${launched.fields.symbol})`);
    expect(meta(html, 'og:description')).toContain(`${launched.fields.symbol} on Launchdex: price $`);
    expect(meta(html, 'twitter:card')).toBe('summary_large_image');
    const image = meta(html, 'og:image');
    expect(image?.startsWith(`${PUBLIC_BASE_URL}/tokens/${launched.token}/opengraph-image`)).toBe(true);
    // The canonical link and og:url are absolute on the same configured base.
    const canonical = html.match(/<link rel="canonical" href="([^"]*)"/)?.[1];
    expect(canonical).toBe(`${PUBLIC_BASE_URL}/tokens/${launched.token}`);
    expect(meta(html, 'og:url')).toBe(canonical);
    expect(meta(html, 'og:image:width')).toBe('1200');
    expect(meta(html, 'og:image:height')).toBe('630');

    // The proxy maps the public base onto the server's root.
    const card = await fetch((image as string).replace(PUBLIC_BASE_URL, stack.server.baseUrl));
    expect(card.status).toBe(200);
    expect(card.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await card.arrayBuffer());
    const { width, height } = await sharp(png).metadata();
    expect([width, height]).toEqual([1200, 630]);
    // The orange logo the draft carried is drawn at the top left (64 px padding, 200 px square).
    const { data } = await sharp(png).extract({ left: 150, top: 150, width: 1, height: 1 }).raw().toBuffer({
      resolveWithObject: true,
    });
    expect([...data.subarray(0, 3)]).toEqual([0xff, 0x88, 0x00]);
  });

  it('a token without bound metadata still gets a card (its symbol stands in for the logo)', async () => {
    const list = (await (await fetch(`${stack.server.baseUrl}/api/v1/tokens?limit=1&view=top`)).json()) as {
      items: { address: string }[];
    };
    const address = list.items[0]?.address;
    const card = await fetch(`${stack.server.baseUrl}/tokens/${address}/opengraph-image`);
    expect(card.status).toBe(200);
    const { width, height } = await sharp(Buffer.from(await card.arrayBuffer())).metadata();
    expect([width, height]).toEqual([1200, 630]);
  });
  it('unknown tokens and malformed addresses have no card: 404 with the JSON envelope, no PNG', async () => {
    for (const address of [`0x${'22'.repeat(20)}`, '0x1234', 'not-an-address']) {
      const answer = await card(`${stack.server.baseUrl}/tokens/${address}/opengraph-image`);
      expect(answer.status).toBe(404);
      expect(answer.type).toMatch(/^application\/json/);
      expect(JSON.parse(answer.body.toString()).error.code).toBe('not_found');
    }
  });

  it('a card is drawn once per token per indexed block: repeats and concurrent requests are served from memory', async () => {
    const base = stack.server.baseUrl;
    const flow = await createFinalizeFlow(stack);
    // A 36-megapixel logo: what every card request decoded before thumbnails.
    const logo = await sharp({ create: { width: 6000, height: 6000, channels: 3, background: '#ff8800' } })
      .png()
      .toBuffer();
    const launched = await flow.draftAndLaunch({ image: logo });
    await stack.waitForIndex();
    expect(
      (await flow.finalize(launched.draftId, await flow.signedBody(launched.draftId, launched))).status,
    ).toBe(200);
    const url = `${base}/tokens/${launched.token}/opengraph-image`;
    const other = `${base}/tokens/${(await flow.draftAndLaunch()).token}/opengraph-image`;
    await stack.waitForIndex();
    // The route's code loads on its first request: not part of what is measured.
    await card(other);

    const cold: number[] = [];
    const cached: number[] = [];
    for (let round = 0; round < 3; round++) {
      // A new indexed block is a new read-model version: the next request draws the card again.
      await stack.chain.client.test.mine({ blocks: 1 });
      await stack.waitForIndex();
      const first = await card(url);
      expect([first.status, first.cache]).toEqual([200, 'miss']);
      cold.push(first.ms);
      for (let i = 0; i < 5; i++) {
        const again = await card(url);
        expect([again.status, again.cache]).toEqual([200, 'hit']);
        expect(again.body.equals(first.body)).toBe(true);
        cached.push(again.ms);
      }
    }
    // The logo came from the thumbnail: the orange square is drawn.
    const { data } = await sharp((await card(url)).body)
      .extract({ left: 150, top: 150, width: 1, height: 1 })
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)]).toEqual([0xff, 0x88, 0x00]);

    // Ten unfurlers at once on a fresh block: one drawing, nine wait for it.
    await stack.chain.client.test.mine({ blocks: 1 });
    await stack.waitForIndex();
    const burst = await Promise.all(Array.from({ length: 10 }, () => card(url)));
    expect(burst.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(burst.filter((answer) => answer.cache === 'miss')).toHaveLength(1);

    console.log(
      `share card (36 MP logo): cold ${median(cold).toFixed(0)} ms (${cold.map((ms) => ms.toFixed(0)).join(', ')}), ` +
        `cached ${median(cached).toFixed(1)} ms median of ${cached.length}`,
    );
    expect(median(cached)).toBeLessThan(median(cold));
  });

  // PGlite lets one process open its database; moderation is a second writer on PostgreSQL only.
  if (backend === 'postgres')
    it('a hidden (moderated) token has no card, from the next request on; lifting the exclusion brings it back', async () => {
      const list = (await (await fetch(`${stack.server.baseUrl}/api/v1/tokens?limit=1&view=top`)).json()) as {
        items: { address: string }[];
      };
      const address = list.items[0]?.address as string;
      const url = `${stack.server.baseUrl}/tokens/${address}/opengraph-image`;
      expect((await card(url)).status).toBe(200);
      expect((await card(url)).cache).toBe('hit');
      const handle = await stack.database.open();
      try {
        await excludeToken(handle.db, address, 'card test');
        const hidden = await card(url);
        expect(hidden.status).toBe(404);
        expect(JSON.parse(hidden.body.toString()).error.code).toBe('not_found');
        await includeToken(handle.db, address);
        expect((await card(url)).status).toBe(200);
      } finally {
        await handle.close();
      }
    });
});
