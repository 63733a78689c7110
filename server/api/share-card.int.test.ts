import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableBackends } from '../_test/database';
import { type IndexedStack, startIndexedStack } from '../_test/stack';
import { createFinalizeFlow } from '../metadata/_test/finalize-flow';

const [backend] = await availableBackends();

/** The `content` of `<meta property|name="key" content="…">` in a page. */
function meta(html: string, key: string): string | undefined {
  const tag = html.match(new RegExp(`<meta[^>]+(?:property|name)="${key}"[^>]*>`))?.[0];
  return tag?.match(/content="([^"]*)"/)?.[1]?.replace(/&amp;/g, '&');
}

describe(`a shared token link unfurls into a card (${backend})`, () => {
  let stack: IndexedStack;

  beforeAll(async () => {
    if (!backend) throw new Error('no backend');
    stack = await startIndexedStack(backend, { seed: 61, launches: 4, actions: 30 });
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

    const page = await fetch(`${stack.server.baseUrl}/tokens/${launched.token}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(meta(html, 'og:title')).toBe(`${launched.fields.name} (${launched.fields.symbol})`);
    expect(meta(html, 'og:description')).toContain(`${launched.fields.symbol} on Launchdex: price $`);
    expect(meta(html, 'twitter:card')).toBe('summary_large_image');
    const image = meta(html, 'og:image');
    expect(image).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:\\d+/tokens/${launched.token}/opengraph-image`),
    );
    expect(meta(html, 'og:image:width')).toBe('1200');
    expect(meta(html, 'og:image:height')).toBe('630');

    const card = await fetch(image as string);
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
});
