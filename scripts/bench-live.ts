/**
 * `npm run bench:live`: head-to-API latency. A private anvil mines one block with a curve trade
 * at a steady rate; the production server (`npm run serve`, its indexer embedded, default poll
 * unless `--poll-ms`) indexes it; a client polls the REST trades list of the token every 10 ms.
 * For each block: the time from the block being mined (its transaction's send returning, under
 * automine) to the first REST answer that lists the trade. Prints the distribution.
 *
 *   npm run bench:live -- [--database-url postgres://postgres@127.0.0.1:5432/postgres]
 *     [--blocks 200] [--interval-ms 450] [--poll-ms N]
 *
 * Needs the production build (`npm run build`).
 */
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import type { Address, Hash } from 'viem';
import { startAppServer } from '../server/_test/app-server';
import { DEPLOYER, GENESIS, startTestChain } from '../server/_test/chain';
import { bondingCurveAbi } from '../server/chain/abis';
import { WAD } from '../shared/units';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    blocks: { type: 'string', default: '200' },
    'interval-ms': { type: 'string', default: '450' },
    'poll-ms': { type: 'string' },
  },
});
const blocks = Number(values.blocks);
const intervalMs = Number(values['interval-ms']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

console.log('▶ starting anvil and deploying the launchpad…');
const chain = await startTestChain({ genesisTimestamp: GENESIS });
const launched = await chain.actions.launch({
  creator: DEPLOYER,
  name: 'Live Bench',
  symbol: 'LIVE',
  supply: 1_000_000_000n * WAD,
  metadataHash: `0x${'01'.padStart(64, '0')}`,
  firstBuy: WAD / 100n,
});
const token = launched.token.toLowerCase() as Address;
const curve = launched.curve;

const admin = postgres(values['database-url'], { max: 1, onnotice: () => {} });
const dbName = `launchdex_live_${process.pid}`;
await admin.unsafe(`create database ${dbName}`);
const url = new URL(values['database-url']);
url.pathname = `/${dbName}`;

let server: Awaited<ReturnType<typeof startAppServer>> | undefined;
try {
  console.log('▶ starting the server with its indexer embedded…');
  server = await startAppServer({
    DATABASE_URL: url.toString(),
    RPC_URL: chain.anvil.rpcUrl,
    CHAIN_ID: '31337',
    FACTORY_ADDRESS: chain.deployment.contracts.factory,
    START_BLOCK: String(chain.deployment.startBlock),
    INDEXER_MODE: 'embedded',
    DEV_WALLET: 'off',
    ...(values['poll-ms'] ? { INDEXER_POLL_MS: values['poll-ms'] } : {}),
  });
  const base = server.baseUrl;
  const recentTrades = async (): Promise<string[]> => {
    const response = await fetch(`${base}/api/v1/tokens/${token}/trades?limit=20`);
    if (response.status !== 200) return [];
    const body = (await response.json()) as { items: { transaction_hash: string }[] };
    return body.items.map((item) => item.transaction_hash);
  };
  const firstHash = launched.hash.toLowerCase();
  for (const deadline = Date.now() + 60_000; !(await recentTrades()).includes(firstHash); await sleep(50)) {
    if (Date.now() > deadline) throw new Error('the launch did not reach the API within 60 s');
  }

  const send = (): Promise<Hash> =>
    chain.client.writeContract({
      address: curve,
      abi: bondingCurveAbi,
      functionName: 'buy',
      args: [0n, 2n ** 40n],
      value: WAD / 1000n,
      account: DEPLOYER,
      gas: 300_000n,
    });

  // Open loop: blocks are mined on a fixed schedule whatever the API does, and one client
  // watches the newest trades, so each block meets the poll at its own phase.
  console.log(`▶ ${blocks} blocks, one trade each, every ${intervalMs} ms…`);
  const minedAt = new Map<string, number>();
  const latencies: number[] = [];
  let sending = true;
  const watcher = (async () => {
    while (sending || minedAt.size > 0) {
      const now = performance.now();
      for (const hash of await recentTrades()) {
        const mined = minedAt.get(hash);
        if (mined === undefined) continue;
        latencies.push(now - mined);
        minedAt.delete(hash);
      }
      for (const [hash, mined] of minedAt)
        if (now - mined > 30_000) throw new Error(`trade ${hash} did not reach the API within 30 s`);
      await sleep(10);
    }
  })();
  const started = performance.now();
  for (let i = 0; i < blocks; i++) {
    const hash = (await send()).toLowerCase();
    // Under automine the block exists when the send returns.
    minedAt.set(hash, performance.now());
    if ((i + 1) % 50 === 0) console.log(`  ${i + 1}/${blocks}`);
    await sleep(Math.max(0, started + (i + 1) * intervalMs - performance.now()));
  }
  sending = false;
  await watcher;

  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const ms = (v: number) => `${Math.round(v)} ms`;
  const poll = values['poll-ms'] ?? 'default';
  console.log(
    `\n✔ head to API over ${latencies.length} blocks (poll ${poll}): p50 ${ms(at(0.5))} · p90 ${ms(at(0.9))} · p99 ${ms(at(0.99))} · max ${ms(at(1))} · min ${ms(at(0))}`,
  );
  const buckets = [100, 200, 300, 400, 500, 750, 1000, 1500, Number.POSITIVE_INFINITY];
  let lower = 0;
  for (const upper of buckets) {
    const count = latencies.filter((v) => v >= lower && v < upper).length;
    const label = Number.isFinite(upper) ? `< ${upper} ms` : `≥ ${lower} ms`;
    console.log(
      `  ${label.padEnd(10)} ${String(count).padStart(4)} ${'█'.repeat(Math.round((count / latencies.length) * 50))}`,
    );
    lower = upper;
  }
  console.log(
    `\n| ${new Date().toISOString().slice(0, 10)} | ${cpus()[0]?.model.trim()} ×${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB | poll ${poll} | ${latencies.length} blocks every ${intervalMs} ms | ${ms(at(0.5))} | ${ms(at(0.9))} | ${ms(at(0.99))} | ${ms(at(1))} |`,
  );
} finally {
  await server?.stop();
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  await chain.stop();
}
