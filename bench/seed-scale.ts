/**
 * `npm run seed:scale -- --database-url postgres://… [--tokens 1000000] [--trades 20000000]`
 *
 * Fills an empty PostgreSQL database (migrated first) with synthetic but well-formed projections
 * at production scale: tokens with search terms and bound metadata, creators, trades skewed
 * towards popular tokens (one token gets 6 % of all trades), their decoded events with the
 * launches and graduations, candles of every interval, balances, their history and traders
 * (bench/lib/seed-sql.ts).
 * For query plans (docs/api.md) and read benchmarks, never for tests of correctness (those index
 * a real chain).
 *
 * Fast by construction: rows are generated inside PostgreSQL (no row crosses the socket; at this
 * box's speeds generating a row costs about what COPY spends parsing one), the tables' indexes
 * and keys are dropped first and built once at the end, two connections work at once, candles
 * are aggregated interval by interval from the one below, and a closing VACUUM ANALYZE leaves
 * nothing for autovacuum to do during a benchmark. Progress is printed as it goes; the last step
 * records the run on the database (`comment on database`, read by `npm run bench`).
 */
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { openDatabase } from '../server/db/client';
import { migrateDatabase } from '../server/db/migrate';
import { createPartitionKeeper } from '../server/db/partitions';
import { HISTORY_SEGMENT_MIN_EVENTS } from '../server/db/schema';
import { requireDatabaseUrl } from './lib/database-url';
import {
  balanceHistoryStatements,
  candleLevels,
  headOf,
  insertBalances,
  insertCheckpoint,
  insertCreators,
  insertDrafts,
  insertSearchTerms,
  insertTokenEvents,
  insertTokens,
  insertTradeEvents,
  insertTraders,
  insertTrades,
  SEED_VERSION,
} from './lib/seed-sql';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    tokens: { type: 'string', default: '1000000' },
    trades: { type: 'string', default: '20000000' },
  },
});
const url = requireDatabaseUrl(values['database-url'], ' (the data is large; PGlite is not the target)');
const tokenCount = Number(values.tokens);
const tradeCount = Number(values.trades);
const tables = [
  'tokens',
  'token_search_terms',
  'metadata_drafts',
  'creators',
  'trades',
  'chain_events',
  'candles',
  'balances',
  'balance_history',
  'traders',
];
const started = performance.now();
const seconds = (since: number) => (performance.now() - since) / 1000;
const count = (n: number) => n.toLocaleString('en-US');

const migrating = await openDatabase({ kind: 'postgres', url }, { max: 1 });
await migrateDatabase(migrating);
// The block partitions the rows land in: launches and graduations from block 1,001, trades and
// their events from 5,000,000 (seed-sql.ts).
const partitions = createPartitionKeeper(migrating.db);
await partitions.ensure(1_000, 1_001 + tokenCount);
await partitions.ensure(5_000_000, headOf(tradeCount).block);
await migrating.close();

const sql = postgres(url, {
  max: 2,
  onnotice: () => {},
  // Session settings for a bulk load: no wait for WAL flushes, room for the big aggregations and
  // index builds, and one core per build (two run at once on two connections).
  connection: {
    application_name: 'launchdex-seed',
    synchronous_commit: 'off',
    work_mem: '1GB',
    maintenance_work_mem: '1GB',
    max_parallel_maintenance_workers: '0',
  },
});
const [filled] = await sql`select exists (select 1 from tokens) as filled`;
if (filled?.filled) {
  console.error(
    'The database already holds tokens: seed:scale fills an empty database (drop it and run again).',
  );
  await sql.end();
  process.exit(2);
}

interface Job {
  label: string;
  text: string;
  /** Rows the job writes, for its rate; series jobs report progress of their series. */
  rows?: number;
  series?: { name: string; done: number; total: number; since: number };
}

async function runJob(job: Job): Promise<void> {
  const since = performance.now();
  await sql.unsafe(job.text);
  const took = seconds(since);
  const rate = job.rows ? `, ${count(Math.round(job.rows / took))} rows/s` : '';
  if (job.series) {
    const { name, total, since: seriesSince } = job.series;
    job.series.done += job.rows ?? 0;
    const done = job.series.done;
    const overall = done / seconds(seriesSince);
    console.log(
      `  ${name} ${count(done)} / ${count(total)} (${Math.round((done / total) * 100)} %), ${count(Math.round(overall))} rows/s, ~${Math.round((total - done) / overall)} s left`,
    );
  } else {
    console.log(`  ✓ ${job.label} ${took.toFixed(1)} s${rate}`);
  }
}

/** Runs jobs in order on two connections at once. */
async function inTwoLanes(jobs: Job[]): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) await runJob(jobs[next++] as Job);
  };
  await Promise.all([lane(), lane()]);
}

async function inOrder(jobs: Job[]): Promise<void> {
  for (const job of jobs) await runJob(job);
}

function chunks(total: number, size: number): [number, number][] {
  const ranges: [number, number][] = [];
  for (let from = 1; from <= total; from += size) ranges.push([from, Math.min(total, from + size - 1)]);
  return ranges;
}

function series(
  name: string,
  total: number,
  size: number,
  text: (from: number, to: number) => string,
): Job[] {
  const progress = { name, done: 0, total, since: performance.now() };
  return chunks(total, size).map(([from, to]) => ({
    label: `${name} ${from}-${to}`,
    text: text(from, to),
    rows: to - from + 1,
    series: progress,
  }));
}

function phase(title: string): () => void {
  const since = performance.now();
  console.log(`▶ ${title}`);
  return () => console.log(`  (${title}: ${seconds(since).toFixed(1)} s)`);
}

// 1. Keys and indexes off: each is built once over the whole table instead of row by row.
const indexes = await sql<{ table: string; name: string; definition: string; constraint: string | null }[]>`
  select c.relname as table, i.relname as name,
         coalesce(pg_get_constraintdef(con.oid), pg_get_indexdef(i.oid)) as definition, con.conname as constraint
    from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class c on c.oid = x.indrelid
    left join pg_constraint con on con.conindid = i.oid and con.contype in ('p', 'u')
   where c.relnamespace = 'public'::regnamespace and c.relname = any(${tables})`;
for (const index of indexes) {
  await sql.unsafe(
    index.constraint
      ? `alter table "${index.table}" drop constraint "${index.constraint}"`
      : `drop index "${index.name}"`,
  );
}

let done = phase(`rows: ${count(tokenCount)} tokens, ${count(tradeCount)} trades and their events`);
await inTwoLanes(series('tokens', tokenCount, 250_000, (from, to) => insertTokens(from, to, tradeCount)));
const tradeJobs = series('trades', tradeCount, 1_000_000, (from, to) => insertTrades(from, to, tokenCount));
const eventJobs = series('trade events', tradeCount, 1_000_000, (from, to) =>
  insertTradeEvents(from, to, tokenCount),
);
await inTwoLanes(tradeJobs.flatMap((job, index) => [job, eventJobs[index] as Job]));
done();

done = phase(
  'derived tables: candles of every interval; balances, search terms, metadata, creators, launches',
);
await Promise.all([
  inOrder(candleLevels.map(({ seconds, sql: text }) => ({ label: `candles ${seconds} s`, text }))),
  inOrder([
    { label: 'balances', text: insertBalances },
    ...balanceHistoryStatements(HISTORY_SEGMENT_MIN_EVENTS).map((text, step) => ({
      label: `balance history (${step + 1})`,
      text,
    })),
    { label: 'traders', text: insertTraders },
    { label: 'search terms', text: insertSearchTerms },
    { label: 'bound metadata', text: insertDrafts },
    { label: 'creators', text: insertCreators },
    { label: 'launch and graduation events', text: insertTokenEvents },
    { label: 'checkpoint', text: insertCheckpoint(tradeCount) },
  ]),
]);
done();

// 2. Keys and indexes back, largest tables first so the two lanes finish together.
done = phase(`${indexes.length} keys and indexes`);
const sizes = new Map(
  (
    await sql<{ table: string; bytes: string }[]>`
      select relname as table,
             (pg_relation_size(oid) + coalesce((select sum(pg_relation_size(inhrelid)) from pg_inherits where inhparent = c.oid), 0))::text as bytes
        from pg_class c where relnamespace = 'public'::regnamespace and relname = any(${tables})`
  ).map((row) => [row.table, Number(row.bytes)]),
);
await inTwoLanes(
  [...indexes]
    .sort((a, b) => (sizes.get(b.table) ?? 0) - (sizes.get(a.table) ?? 0))
    .map((index) => ({
      label: `${index.table}: ${index.constraint ?? index.name}`,
      text: index.constraint
        ? `alter table "${index.table}" add constraint "${index.constraint}" ${index.definition}`
        : // A partitioned table's index prints as `ON ONLY`, which would build it on no partition.
          index.definition.replace(' ON ONLY ', ' ON '),
    })),
);
done();

done = phase('vacuum analyze');
await inTwoLanes(
  [...tables]
    .sort((a, b) => (sizes.get(b) ?? 0) - (sizes.get(a) ?? 0))
    .map((table) => ({ label: table, text: `vacuum (analyze) "${table}"` })),
);
done();

const total = seconds(started);
const [size] = await sql<
  { size: string }[]
>`select pg_size_pretty(pg_database_size(current_database())) as size`;
const database = decodeURIComponent(new URL(url).pathname.slice(1));
await sql.unsafe(
  `comment on database "${database}" is 'launchdex seed-scale v${SEED_VERSION} tokens=${tokenCount} trades=${tradeCount} seconds=${Math.round(total)} date=${new Date().toISOString().slice(0, 10)}'`,
);
console.log(
  `▶ seeded in ${total.toFixed(0)} s (${Math.floor(total / 60)} min ${Math.round(total % 60)} s); database ${size?.size}`,
);
await sql.end();
