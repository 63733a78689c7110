import type postgres from 'postgres';
import { DEV, GENESIS_NUMBER } from './chain';

/**
 * `--on-top-of`: the benchmark indexes into a database that holds the seeded dataset. What the
 * run would disturb there is set aside before it and put back after it.
 */

/**
 * The benchmark chain starts above the seeded history, so no seeded row shares its blocks: only
 * the checkpoint, the recent block hashes and any creator row of the benchmark's creator move
 * to `bench_aside_*` tables for the run.
 */
export async function setSeededRowsAside(admin: postgres.Sql) {
  await admin.begin(async (tx) => {
    await tx.unsafe(`create table bench_aside_checkpoint as select * from indexer_checkpoint`);
    await tx.unsafe(`create table bench_aside_blocks as select * from recent_blocks`);
    await tx.unsafe(`create table bench_aside_creators as select * from creators where address = '${DEV}'`);
    await tx.unsafe(`delete from indexer_checkpoint; delete from recent_blocks`);
    await tx.unsafe(`delete from creators where address = '${DEV}'`);
  });
}

/** Removes everything the run indexed and puts the seeded rows back. */
export async function restoreSeededRows(admin: postgres.Sql) {
  const tokens = `(select address from tokens where creator = '${DEV}' and created_block >= ${GENESIS_NUMBER})`;
  await admin.begin(async (tx) => {
    for (const table of [
      'balances',
      'balance_history',
      'candles',
      'token_search_terms',
      'traders',
      'trader_totals',
    ])
      await tx.unsafe(`delete from ${table} where token_address in ${tokens}`);
    for (const table of ['trades', 'chain_events'])
      await tx.unsafe(`delete from ${table} where block_number >= ${GENESIS_NUMBER}`);
    await tx.unsafe(`delete from tokens where address in ${tokens}`);
    await tx.unsafe(`delete from creators where address = '${DEV}'`);
    await tx.unsafe(`delete from indexer_checkpoint; delete from recent_blocks`);
    await tx.unsafe(`insert into indexer_checkpoint select * from bench_aside_checkpoint`);
    await tx.unsafe(`insert into recent_blocks select * from bench_aside_blocks`);
    await tx.unsafe(`insert into creators select * from bench_aside_creators`);
    for (const aside of ['checkpoint', 'blocks', 'creators'])
      await tx.unsafe(`drop table bench_aside_${aside}`);
  });
  console.log('  (seeded rows restored; the indexed rows removed)');
}
