/**
 * `npm run bench:risk -- [--wallets 100000] [--database-url postgres://postgres@127.0.0.1:5432/postgres] [--requests 200]`
 *
 * The token detail's risk summary with many labelled wallets (docs/api.md "Traders, PnL and
 * labels"). On a private anvil, one launch is bought by a contract (BundleBuyer) in transactions
 * of 400 recipients each until `--wallets` wallets hold its tokens: every one is a bundler.
 * The indexer indexes that chain into a fresh PostgreSQL database (its fold labels them and keeps
 * the token's trader_totals row), then Launchdex's production server (indexer off, no read
 * cache) answers `GET /api/v1/tokens/{address}` `--requests` times, one at a time, before and
 * after the database's first analyze. Prints the median and p90 of those answers and, on the
 * same database, of the risk summary's statement alone, beside the per-request aggregate over
 * the labelled rows it replaced.
 */
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { type Address, keccak256, toHex } from 'viem';
import { startAnvil } from '../server/chain/anvil';
import { createDevnetClient } from '../server/chain/clients';
import { deployLaunchpad } from '../server/chain/deploy';
import { createLaunchpadActions } from '../server/chain/launchpad-actions';
import { openDatabase } from '../server/db/client';
import { migrateDatabase } from '../server/db/migrate';
import { createIndexer } from '../server/indexer/indexer';
import { createRpcClient } from '../server/indexer/rpc/client';
import { WAD } from '../shared/units';
import { freePort, startAppServer } from '../test/app-server';
import { outOfReachLimits } from './lib/servers';

const { values } = parseArgs({
  options: {
    wallets: { type: 'string', default: '100000' },
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    requests: { type: 'string', default: '200' },
  },
});
const wallets = Number(values.wallets);
const requests = Number(values.requests);
// Under the per-transaction gas cap (2^24 since Osaka: about 600 fresh transfers).
const PER_BUNDLE = 400;
const DEV: Address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

const quantile = (ms: number[], q: number) =>
  [...ms].sort((a, b) => a - b)[Math.floor(q * (ms.length - 1))] ?? 0;
const fixed = (ms: number) => ms.toFixed(2);

const anvil = await startAnvil({ port: await freePort(), gasLimit: 1_000_000_000n });
const admin = postgres(values['database-url'], { max: 1, onnotice: () => {} });
const dbName = `launchdex_risk_${process.pid}`;
await admin.unsafe(`create database ${dbName}`);
const url = new URL(values['database-url']);
url.pathname = `/${dbName}`;
const handle = await openDatabase({ kind: 'postgres', url: url.toString() }, { max: 4 });
try {
  const client = createDevnetClient(31337, anvil.rpcUrl);
  const deployment = await deployLaunchpad(client, DEV);
  const actions = createLaunchpadActions(client, deployment);
  console.log(`▶ one launch bought for ${wallets} wallets, ${PER_BUNDLE} a transaction…`);
  const started = Date.now();
  const { token } = await actions.launch({
    creator: DEV,
    name: 'Airdropped',
    symbol: 'AIR',
    supply: 10n ** 27n,
    metadataHash: `0x${'11'.repeat(32)}`,
  });
  const bundler = await actions.deployBundleBuyer(DEV);
  for (let sent = 0; sent < wallets; sent += PER_BUNDLE) {
    const recipients = Array.from(
      { length: Math.min(PER_BUNDLE, wallets - sent) },
      (_, i) => `0x${keccak256(toHex(`risk:${sent + i}`)).slice(-40)}` as Address,
    );
    await actions.bundleBuy({ account: DEV, bundler, token, recipients, value: WAD / 100n });
  }
  console.log(`  built in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  await migrateDatabase(handle);
  const indexer = createIndexer({
    db: handle.db,
    rpc: createRpcClient({ url: anvil.rpcUrl }),
    chain: {
      rpcUrl: anvil.rpcUrl,
      chainId: 31337,
      factoryAddress: deployment.contracts.factory,
      startBlock: BigInt(deployment.startBlock),
      finalityDepth: 64,
      maxRange: 50_000,
      pollIntervalMs: 100,
    },
    logger: { info: () => {}, warn: () => {}, error: (_, message) => console.log(`  error: ${message}`) },
  });
  const indexStarted = Date.now();
  await indexer.syncToHead();
  console.log(`▶ indexed in ${((Date.now() - indexStarted) / 1000).toFixed(1)} s`);

  const address = token.toLowerCase();
  const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
  const [labelled] =
    await sql`select count(*)::int as n from traders where token_address = ${address} and bundler`;
  console.log(`  ${labelled?.n} bundler rows of the token`);
  const timeStatement = async (text: string) => {
    const ms: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await sql.unsafe(text, [address]);
      ms.push(performance.now() - t);
    }
    return ms;
  };
  const now =
    await timeStatement(`select r.* from tokens left join trader_totals r on r.token_address = tokens.address
      where tokens.address = $1`);
  // What the detail ran per request before trader_totals: every labelled row and its balance.
  const before =
    await timeStatement(`select count(*) filter (where x.bundler), sum(b.balance) filter (where x.bundler),
        count(*) filter (where x.sniper), count(*) filter (where x.creator_linked)
      from traders x left join balances b on b.token_address = x.token_address and b.wallet = x.wallet
      where x.token_address = $1 and (x.sniper or x.bundler or x.creator_linked)`);
  await sql.end();

  const server = await startAppServer({
    DATABASE_URL: url.toString(),
    INDEXER_MODE: 'off',
    READ_CACHE_MB: '0',
    ...outOfReachLimits,
  });
  try {
    const detail = `${server.baseUrl}/api/v1/tokens/${address}`;
    const first = (await (await fetch(detail)).json()) as { risk: Record<string, number> };
    console.log(`  risk: ${JSON.stringify(first.risk)}`);
    const timeDetail = async () => {
      const ms: number[] = [];
      for (let i = 0; i < requests; i++) {
        const t = performance.now();
        const response = await fetch(detail);
        await response.arrayBuffer();
        ms.push(performance.now() - t);
      }
      return ms;
    };
    // A database fresh from its backfill has no statistics until autovacuum's first analyze;
    // the detail's other groups are planned blind until then. Measured both ways.
    const unanalyzed = await timeDetail();
    const analyzer = postgres(url.toString(), { max: 1, onnotice: () => {} });
    await analyzer.unsafe('analyze');
    await analyzer.end();
    const ms = await timeDetail();
    console.log(`\n| measure | median ms | p90 ms |\n| --- | --- | --- |`);
    console.log(
      `| GET /api/v1/tokens/{address}, uncached, ${wallets} bundlers | ${fixed(quantile(ms, 0.5))} | ${fixed(quantile(ms, 0.9))} |`,
    );
    console.log(
      `| the same before the database's first analyze | ${fixed(quantile(unanalyzed, 0.5))} | ${fixed(quantile(unanalyzed, 0.9))} |`,
    );
    console.log(
      `| risk statement: trader_totals row | ${fixed(quantile(now, 0.5))} | ${fixed(quantile(now, 0.9))} |`,
    );
    console.log(
      `| risk statement: labelled rows aggregated (before) | ${fixed(quantile(before, 0.5))} | ${fixed(quantile(before, 0.9))} |`,
    );
  } finally {
    await server.stop();
  }
} finally {
  await handle.close();
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  await anvil.stop();
}
