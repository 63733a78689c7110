import { FormData } from 'undici';
import { fetchFrom, freshLoopbackClient } from '../client-fetch';
import { rawRequest } from '../raw-http';
import type { IndexedStack } from '../stack';
import { floodBody, percentile, ramp, repeat, startMeasuredReader } from './hostile-clients';

/** How long each attacker of a round keeps attacking. */
export const ATTACK_MS = 10_000;
/** For investigating one attack at a time: HOSTILE_ATTACKS=batches,streams (default: all). */
const only = process.env.HOSTILE_ATTACKS?.split(',');
const enabled = (name: string) => !only || only.includes(name);

/**
 * One round of every enabled attack against the server while a normal reader (the probe) reads,
 * with the reader's baseline just before it. What each attacker got back is in the report.
 */
export async function attackRound(stack: IndexedStack, base: string, port: number) {
  const reader = await startMeasuredReader(base, stack.server);
  const { baseline, rssBefore } = reader;
  const until = Date.now() + ATTACK_MS;

  const batchClient = fetchFrom(freshLoopbackClient());
  const tenCalls = Array.from({ length: 10 }, () => 'tokens.list').join(',');
  const tenInputs = encodeURIComponent(
    JSON.stringify(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [i, { json: { limit: 100 } }]))),
  );
  const batches = repeat(enabled('batches') ? until : 0, 6, async () => {
    const answer = await batchClient(`${base}/api/trpc/${tenCalls}?batch=1&input=${tenInputs}`);
    await answer.arrayBuffer();
    return String(answer.status);
  });

  const oversizeClient = fetchFrom(freshLoopbackClient());
  const manyCalls = Array.from({ length: 225 }, () => 'tokens.list').join(',');
  const oversized = repeat(enabled('oversize') ? until : 0, 4, async () => {
    const answer = await oversizeClient(`${base}/api/trpc/${manyCalls}?batch=1`);
    await answer.arrayBuffer();
    return String(answer.status);
  });

  const bodyAddress = freshLoopbackClient();
  const hundredMb = 100 * 1024 * 1024;
  const bodies = (async () => {
    if (!enabled('bodies')) return {};
    const results: Record<string, { status: number; sent: number }> = {};
    results.trpc = await floodBody(
      port,
      `POST /api/trpc/metadata.finalize HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${hundredMb}\r\n\r\n`,
      hundredMb,
      bodyAddress,
    );
    results.upload = await floodBody(
      port,
      'POST /api/v1/token-metadata HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XX\r\nTransfer-Encoding: chunked\r\n\r\n',
      hundredMb,
      bodyAddress,
    );
    results.finalize = await floodBody(
      port,
      'POST /api/v1/token-metadata/d_AAAAAAAAAAAAAAAA/finalize HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      hundredMb,
      bodyAddress,
    );
    return results;
  })();

  const dripAddress = freshLoopbackClient();
  const drips = Promise.all([
    ...Array.from({ length: enabled('drips') ? 30 : 0 }, () => {
      const parts: (string | number)[] = [
        'POST /api/v1/token-metadata HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XX\r\nContent-Length: 100000\r\n\r\n',
      ];
      for (let i = 0; i < 40; i++) parts.push(300, 'a');
      return ramp().then(() =>
        rawRequest(port, parts, { localAddress: dripAddress, timeoutMs: ATTACK_MS + 20_000 }),
      );
    }),
    ...Array.from({ length: enabled('drips') ? 30 : 0 }, () => {
      const parts: (string | number)[] = ['GET /api/v1/tokens HTTP/1.1\r\nHost: x\r\n'];
      for (let i = 0; i < 40; i++) parts.push(300, `X-${i}: a\r\n`);
      return ramp().then(() =>
        rawRequest(port, parts, { localAddress: dripAddress, timeoutMs: ATTACK_MS + 15_000 }),
      );
    }),
  ]);

  const spoofer = fetchFrom(freshLoopbackClient());
  let spoofed = 0;
  const spoofs = repeat(enabled('spoof') ? until : 0, 2, async () => {
    const form = new FormData();
    form.append('name', 'x');
    const answer = await spoofer(`${base}/api/v1/token-metadata`, {
      method: 'POST',
      body: 'not multipart',
      headers: { 'content-type': 'text/plain', 'x-forwarded-for': `203.0.113.${spoofed++ % 250}` },
    });
    await answer.arrayBuffer();
    return String(answer.status);
  });

  const streamAddress = freshLoopbackClient();
  const streamer = fetchFrom(streamAddress);
  const held: AbortController[] = [];
  const streams = (async () => {
    const tally: Record<string, number> = {};
    if (!enabled('streams')) return tally;
    await ramp();
    // Twenty at once, each read as a live client would, so none closes for overflowing.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const abort = new AbortController();
        held.push(abort);
        // A few resume from the start of the chain: far more than the queue holds.
        const query = i % 5 === 0 ? '?since=0' : '';
        return streamer(`${base}/api/v1/stream${query}`, { signal: abort.signal }).catch(() => undefined);
      }),
    );
    for (const answer of answers) {
      const key = String(answer?.status ?? 'error');
      tally[key] = (tally[key] ?? 0) + 1;
      if (answer?.status === 200) void answer.body?.pipeTo(new WritableStream()).catch(() => {});
      else await answer?.arrayBuffer();
    }
    return tally;
  })();

  const [batchTally, oversizeTally, bodyResults, dripAnswers, spoofTally, streamTally] = await Promise.all([
    batches,
    oversized,
    bodies,
    drips,
    spoofs,
    streams,
  ]);
  const { result, rssMax } = await reader.stop();
  for (const abort of held) abort.abort();
  const growth = rssMax - rssBefore;
  const report = {
    baselineP99: percentile(baseline.latencies, 99),
    probeRequests: result.latencies.length,
    probeP50: percentile(result.latencies, 50),
    probeP99: percentile(result.latencies, 99),
    probeMax: Math.max(...result.latencies),
    probeSlow: result.slow.map(([at, ms]) => `${at}:${ms}`).join(' '),
    rssBeforeMb: Math.round(rssBefore / 2 ** 20),
    rssGrowthMb: Math.round(growth / 2 ** 20),
    batchTally,
    oversizeTally,
    bodyResults,
    dripStatuses: dripAnswers.map((a) => a.status).join(','),
    spoofTally,
    streamTally,
  };
  return { report, failures: result.failures, latencies: result.latencies.length, growth };
}
