import { randomBytes } from 'node:crypto';
import path from 'node:path';
import sharp from 'sharp';
import { FormData } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedLimits } from '../../test/app-server';
import { fetchFrom, freshLoopbackClient } from '../../test/client-fetch';
import { availableBackends } from '../../test/database';
import { ATTACK_MS, attackRound } from '../../test/http/attack-round';
import {
  directoryBytes,
  floodBody,
  percentile,
  pipelineFlood,
  startMeasuredReader,
} from '../../test/http/hostile-clients';
import { rawRequest } from '../../test/raw-http';
import { type IndexedStack, startIndexedStack } from '../../test/stack';
import { parseConfig } from '../config';
import { MAX_IMAGE_BYTES } from '../metadata/image';
import { excludeToken, includeToken } from '../tokens/moderation';

const [backend] = await availableBackends();

describe(`hostile clients against one server (${backend})`, () => {
  let stack: IndexedStack;
  let port: number;
  beforeAll(async () => {
    if (!backend) throw new Error('no backend');
    // Shipped defaults throughout.
    stack = await startIndexedStack(backend, { seed: 12, launches: 8, actions: 60 }, shippedLimits);
    port = Number(new URL(stack.server.baseUrl).port);
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('a normal reader keeps p99 < 100 ms and the server grows < 100 MB while six attackers run', async () => {
    const base = stack.server.baseUrl;
    // Next.js loads each route's bundle on its first request: load them all before measuring.
    const warmer = fetchFrom(freshLoopbackClient());
    for (const path of [
      '/',
      '/api/trpc/tokens.list?input=%7B%22json%22%3A%7B%7D%7D',
      '/objects/x.png',
      '/api/v1/openapi.json',
    ])
      await (await warmer(`${base}${path}`)).arrayBuffer();
    // The write paths too (body streaming, multipart, JSON): their code loads on first use.
    const warmForm = new FormData();
    warmForm.append('name', 'warm');
    await (
      await warmer(`${base}/api/v1/token-metadata`, { method: 'POST', body: warmForm as never })
    ).arrayBuffer();
    await floodBody(
      port,
      'POST /api/v1/token-metadata HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XX\r\nTransfer-Encoding: chunked\r\n\r\n',
      8 * 2 ** 20,
      freshLoopbackClient(),
    );
    await (
      await warmer(`${base}/api/v1/token-metadata/d_AAAAAAAAAAAAAAAA/finalize`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      })
    ).arrayBuffer();
    const warmStream = new AbortController();
    await warmer(`${base}/api/v1/stream`, { signal: warmStream.signal });
    warmStream.abort();
    // The first round meets every path cold, in the server and in this attacking process,
    // which share the machine's two cores with the probe and PostgreSQL: its slow answers
    // (up to ~330 ms, all in its first 700 ms) were JIT and first use, gone from later rounds
    // (max 35-63 ms). The bound is about a server under a sustained attack, so it holds for
    // the round after; the cold one is reported, and its attackers must still be held.
    const cold = await attackRound(stack, base, port);
    console.log('hostile-client run (cold)', JSON.stringify(cold.report, null, 1));
    expect(cold.failures).toEqual([]);
    expect(cold.report.streamTally).toEqual({ 200: 8, 429: 12 });
    expect(cold.growth).toBeLessThan(100 * 2 ** 20);
    const { report, failures, latencies, growth } = await attackRound(stack, base, port);
    console.log('hostile-client run', JSON.stringify(report, null, 1));

    expect(failures).toEqual([]);
    expect(latencies).toBeGreaterThan(200);
    expect(report.probeP99).toBeLessThan(100);
    expect(growth).toBeLessThan(100 * 2 ** 20);
    // Each attacker was held to the shipped limits.
    expect(report.batchTally['429'] ?? 0).toBeGreaterThan(0);
    expect(Object.keys(report.oversizeTally).every((status) => status === '400' || status === '429')).toBe(
      true,
    );
    expect(report.bodyResults.trpc?.status).toBe(405);
    expect(report.bodyResults.upload?.status).toBe(413);
    expect(report.bodyResults.finalize?.status).toBe(413);
    // The server stopped taking bytes soon after it answered: back-pressure, not a 100 MB read.
    for (const flood of Object.values(report.bodyResults)) expect(flood.sent).toBeLessThan(40 * 1024 * 1024);
    for (const status of report.dripStatuses.split(',')) expect(['408', '429']).toContain(status);
    expect(report.spoofTally['429'] ?? 0).toBeGreaterThan(0);
    // The shipped uploads bucket: a burst of 20, then 20 a minute, whatever the forwarded address.
    expect(report.spoofTally['415'] ?? 0).toBeLessThanOrEqual(
      20 + Math.ceil((20 * (ATTACK_MS + 1_000)) / 60_000),
    );
    expect(report.streamTally).toEqual({ 200: 8, 429: 12 });
  }, 180_000);
  it("hosts: 6 Hosts the URL parser rejects are each a 400 at the front (none a 500); a forged Host is in 0 of a page's URLs", async () => {
    const base = stack.server.baseUrl;
    const client = freshLoopbackClient();
    const list = (await (await fetchFrom(client)(`${base}/api/v1/tokens?limit=1`)).json()) as {
      items: { address: string }[];
    };
    const token = list.items[0]?.address as string;
    const page = (host: string, extra = '') =>
      rawRequest(
        port,
        `GET /tokens/${token} HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`,
        {
          localAddress: client,
          timeoutMs: 30_000,
        },
      );
    // IPv4 past 255, an invalid punycode label, a port past 65535, a forbidden code point once
    // percent-decoded, an empty Host, IPv4 with an octet past 255 in hex.
    for (const host of ['1.1.1.256', 'xn--a', 'example.com:99999', 'a%20b', '', '0x1.1.1.0x100']) {
      const answer = await page(host);
      expect([host, answer.status]).toEqual([host, 400]);
      const { error } = JSON.parse(answer.body) as { error: { code: string; message: string } };
      expect(error.code).toBe('bad_request');
      expect(error.message).toMatch(/Host/);
    }

    const forged = await page(
      'evil.example',
      'X-Forwarded-Host: evil-forwarded.example\r\nX-Forwarded-Proto: https\r\n',
    );
    expect(forged.status).toBe(200);
    expect(forged.body).not.toMatch(/evil/);
    const absolute = [...forged.body.matchAll(/(?:content|href)="(https?:\/\/[^"]*)"/g)].map(
      (m) => m[1] as string,
    );
    // og:image, og:url, twitter:image and the canonical link, all on the configured base.
    expect(absolute.length).toBeGreaterThanOrEqual(4);
    for (const url of absolute) expect(url.startsWith(`${base}/`)).toBe(true);
  });

  it('cards: unknown tokens are a 404; a card asked for 20 times in one indexed block is drawn once (1 miss, 19 hits)', async () => {
    const base = stack.server.baseUrl;
    const reader = fetchFrom(freshLoopbackClient());
    const unknown = await reader(`${base}/tokens/0x${'22'.repeat(20)}/opengraph-image`);
    expect([unknown.status, unknown.headers.get('content-type')]).toEqual([
      404,
      'application/json; charset=utf-8',
    ]);
    await unknown.arrayBuffer();

    const list = (await (await reader(`${base}/api/v1/tokens?limit=2&view=top`)).json()) as {
      items: { address: string }[];
    };
    const url = `${base}/tokens/${list.items[1]?.address}/opengraph-image`;
    const outcomes: string[] = [];
    const hitMs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const answer = await reader(url);
      expect(answer.status).toBe(200);
      await answer.arrayBuffer();
      outcomes.push(answer.headers.get('x-card-cache') ?? 'none');
      if (i > 0) hitMs.push(performance.now() - started);
    }
    expect(outcomes).toEqual(['miss', ...Array(19).fill('hit')]);
    console.log(`hostile cards: 19 cached answers, max ${Math.max(...hitMs).toFixed(1)} ms`);
  });

  // PGlite lets one process open its database; moderation is a second writer on PostgreSQL only.
  if (backend === 'postgres')
    it("cards: a hidden (moderated) token's card is a 404 on the next request (0 cached cards of it served)", async () => {
      const base = stack.server.baseUrl;
      const reader = fetchFrom(freshLoopbackClient());
      const list = (await (await reader(`${base}/api/v1/tokens?limit=1&view=top`)).json()) as {
        items: { address: string }[];
      };
      const address = list.items[0]?.address as string;
      const url = `${base}/tokens/${address}/opengraph-image`;
      await (await reader(url)).arrayBuffer();
      expect((await reader(url)).headers.get('x-card-cache')).toBe('hit');
      const handle = await stack.database.open();
      try {
        await excludeToken(handle.db, address, 'hostile card test');
        const hidden = await reader(url);
        expect(hidden.status).toBe(404);
        await hidden.arrayBuffer();
      } finally {
        await includeToken(handle.db, address);
        await handle.close();
      }
    });

  it('upload volume: one address stores at most its 50 MB budget, not the 6 GB an hour its upload rate allows', async () => {
    const { drafts, rateLimits } = parseConfig({});
    const objectsDir = path.join(stack.database.env.DATA_DIR as string, 'objects');
    const diskBefore = directoryBytes(objectsDir);
    const uploader = fetchFrom(freshLoopbackClient());
    // Incompressible images just under the 5 MB limit, each new: content addressing saves nothing.
    const largest = async () => {
      const side = 1280;
      const raw = randomBytes(side * side * 3);
      return sharp(raw, { raw: { width: side, height: side, channels: 3 } })
        .png({ compressionLevel: 0 })
        .toBuffer();
    };
    const tally: Record<string, number> = {};
    let accepted = 0;
    // Two at a time (the concurrent upload limit), until the budget has refused a few.
    while ((tally.storage_budget_exceeded ?? 0) < 4 && accepted + (tally.storage_budget_exceeded ?? 0) < 30) {
      const answers = await Promise.all(
        [0, 1].map(async () => {
          const form = new FormData();
          form.append('name', 'Volume');
          form.append('symbol', 'VOL');
          form.append('initial_supply', (10n ** 27n).toString());
          form.append('image', new Blob([new Uint8Array(await largest())], { type: 'image/png' }), 'v.png');
          const answer = await uploader(`${stack.server.baseUrl}/api/v1/token-metadata`, {
            method: 'POST',
            body: form as never,
          });
          const body = (await answer.json()) as { error?: { code: string } };
          return answer.status === 201 ? 'created' : `${answer.status} ${body.error?.code}`;
        }),
      );
      for (const outcome of answers) {
        if (outcome === 'created') accepted++;
        const key = outcome === '429 storage_budget_exceeded' ? 'storage_budget_exceeded' : outcome;
        tally[key] = (tally[key] ?? 0) + 1;
      }
    }
    const grown = directoryBytes(objectsDir) - diskBefore;
    const rateOnlyPerHour = rateLimits.uploads.perMinute * 60 * MAX_IMAGE_BYTES;
    console.log(
      'upload volume',
      JSON.stringify({
        tally,
        accepted,
        diskGrownMb: grown / 1e6,
        budgetMb: drafts.budgetBytes / 1e6,
        rateOnlyPerHourGb: rateOnlyPerHour / 1e9,
      }),
    );
    // The figure docs/security.md states: one address holds at most the budget (50 MB) of unbound
    // drafts, whatever its upload rate would carry (20/min × 5 MB ≈ 6 GB an hour).
    expect(grown).toBeLessThanOrEqual(drafts.budgetBytes);
    expect(grown).toBeGreaterThan(drafts.budgetBytes - 2 * MAX_IMAGE_BYTES);
    expect(tally.storage_budget_exceeded).toBeGreaterThanOrEqual(4);
    expect(Object.keys(tally).sort()).toEqual(['created', 'storage_budget_exceeded']);
    expect(rateOnlyPerHour).toBeGreaterThan(100 * drafts.budgetBytes);
  }, 180_000);

  it('20,000 pipelined GETs per connection, again each second: every connection cut at once, the reader keeps p50 < 20 ms and max < 1 s', async () => {
    const base = stack.server.baseUrl;
    await (await fetchFrom(freshLoopbackClient())(`${base}/api/v1/tokens?limit=20`)).arrayBuffer();
    const reader = await startMeasuredReader(base, stack.server);
    const { baseline, rssBefore } = reader;
    const attacker = freshLoopbackClient();
    const floods: { answers: number; closedAfterMs: number }[] = [];
    const until = Date.now() + ATTACK_MS;
    while (Date.now() < until) {
      floods.push(await pipelineFlood(port, '/api/v1/tokens?limit=20', 20_000, attacker));
      // The refusal says Retry-After: 1; a flooder that honours it comes back each second.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const { result, rssMax } = await reader.stop();
    const report = {
      connections: floods.length,
      maxAnswers: Math.max(...floods.map((f) => f.answers)),
      maxClosedAfterMs: Math.round(Math.max(...floods.map((f) => f.closedAfterMs))),
      baselineP99: percentile(baseline.latencies, 99),
      probeRequests: result.latencies.length,
      probeP50: percentile(result.latencies, 50),
      probeP99: percentile(result.latencies, 99),
      probeMax: Math.max(...result.latencies),
      rssGrowthMb: Math.round((rssMax - rssBefore) / 2 ** 20),
    };
    console.log('hostile pipelines', JSON.stringify(report));
    expect(result.failures).toEqual([]);
    expect(report.connections).toBeGreaterThanOrEqual(5);
    // Each of the 20,000-request connections: at most its 4 in-flight answers and the 429.
    expect(report.maxAnswers).toBeLessThanOrEqual(5);
    expect(report.maxClosedAfterMs).toBeLessThan(1_000);
    // What is left: each flood's one socket read (~1,700 requests) is parsed before the cut, a
    // stall of tens of ms on a quiet core (up to ~600 ms recorded on this shared, loaded box).
    // Before the cap, the same flood was answered in full for ~10 s at p99 1,020 ms.
    expect(report.probeP50).toBeLessThan(20);
    expect(report.probeMax).toBeLessThan(1_000);
    expect(rssMax - rssBefore).toBeLessThan(50 * 2 ** 20);
  }, 120_000);
});
