import { sql } from 'drizzle-orm';
import { type Address, encodeFunctionData, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedChain, type TestChain } from '../../../test/chain';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../../test/database';
import { dumpIndexAndLogs, indexToHead } from '../../../test/indexer/harness';
import { bondingCurveAbi, launchFactoryAbi } from '../../chain/abis';
import { type DatabaseHandle, selectRows } from '../../db/client';
import { ReorgTooDeepError } from './find-ancestor';

const [backend] = await availableBackends();
const DEV: Address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

let chain: TestChain;
let database: TestDatabase;
let handle: DatabaseHandle;
let replacements = 0;

beforeAll(async () => {
  if (!backend) throw new Error('no database backend');
  ({ chain } = await startSimulatedChain({ seed: 21, launches: 14, actions: 160 }));
  database = await createTestDatabase(backend);
  handle = await database.open();
  await indexToHead(handle.db, chain);
}, 180_000);

afterAll(async () => {
  await handle?.close();
  await database?.drop();
  await chain?.stop();
});

/** Transactions the original blocks did not have: a buy on an open curve and a new launch. */
async function replacementTransactions(depth: number): Promise<[Record<string, Hex | Address>, number][]> {
  const open = await selectRows<{ curve_address: Address }>(
    handle.db,
    sql`select curve_address from tokens where lifecycle = 'curve' order by created_block limit 3`,
  );
  const txs: [Record<string, Hex | Address>, number][] = [];
  for (const [i, row] of open.entries()) {
    replacements++;
    txs.push([
      {
        from: DEV,
        to: row.curve_address,
        data: encodeFunctionData({ abi: bondingCurveAbi, functionName: 'buy', args: [0n, 2n ** 40n] }),
        value: `0x${(BigInt(replacements) * 10n ** 16n + 12345n).toString(16)}`,
        gas: '0x200000',
      },
      Math.min(i, depth - 1),
    ]);
  }
  replacements++;
  txs.push([
    {
      from: DEV,
      to: chain.deployment.contracts.factory,
      data: encodeFunctionData({
        abi: launchFactoryAbi,
        functionName: 'launch',
        args: [
          `Reorg Born ${replacements}`,
          `RB${replacements}`,
          10n ** 27n,
          `0x${replacements.toString(16).padStart(64, '0')}`,
        ],
      }),
      value: '0x2386f26fc10000',
      gas: '0x1000000',
    },
    depth - 1,
  ]);
  return txs;
}

async function freshIndexDump() {
  if (!backend) throw new Error('no backend');
  const scratch = await createTestDatabase(backend);
  const scratchHandle = await scratch.open();
  try {
    await indexToHead(scratchHandle.db, chain);
    return await dumpIndexAndLogs(scratchHandle.db);
  } finally {
    await scratchHandle.close();
    await scratch.drop();
  }
}

describe(`reorgs (${backend})`, () => {
  it.each([1, 2, 5, 20])(
    'a depth-%i reorg with different transactions leaves every table equal to a fresh index',
    async (depth) => {
      let graduatedBefore = 0;
      if (depth === 20) {
        // Put a graduation (new pool, burned tokens, DEX state) inside the blocks about to vanish.
        const whale = '0x00000000000000000000000000000000000b0a75' as Address;
        await chain.client.test.setBalance({ address: whale, value: 10n ** 24n });
        const [open] = await selectRows<{ address: Address }>(
          handle.db,
          sql`select address from tokens where lifecycle = 'curve' order by created_block desc limit 1`,
        );
        if (!open) throw new Error('no open curve');
        const mined = await chain.actions.buy({
          trader: whale,
          token: open.address,
          value: 200n * 10n ** 18n,
        });
        expect(mined.events.some((e) => e.eventName === 'Graduated')).toBe(true);
        await indexToHead(handle.db, chain);
        graduatedBefore = Number(
          (
            await selectRows<{ n: string }>(
              handle.db,
              sql`select count(*) as n from tokens where lifecycle = 'graduated'`,
            )
          )[0]?.n,
        );
      }
      const before = await chain.client.getBlock();
      const originalHashes = await Promise.all(
        Array.from({ length: depth }, (_, i) =>
          chain.client.getBlock({ blockNumber: before.number - BigInt(i) }).then((b) => b.hash),
        ),
      );
      await chain.client.request({
        method: 'anvil_reorg' as never,
        params: [depth, await replacementTransactions(depth)] as never,
      });
      const after = await chain.client.getBlock();
      expect(after.number).toBe(before.number);
      expect(after.hash).not.toBe(originalHashes[0]);
      if (depth >= 5) {
        // The index also has to continue past the reorged tip with new blocks.
        const trader = '0x0000000000000000000000000000000000c0ffee' as Address;
        await chain.client.test.setBalance({ address: trader, value: 10n ** 21n });
        const [token] = await selectRows<{ address: Address }>(
          handle.db,
          sql`select address from tokens where lifecycle = 'curve' limit 1`,
        );
        if (token) await chain.actions.buy({ trader, token: token.address, value: 10n ** 17n });
      }
      const indexer = await indexToHead(handle.db, chain);
      expect(indexer.status.reorgs).toBe(1);
      const fresh = await freshIndexDump();
      const incremental = await dumpIndexAndLogs(handle.db);
      for (const table of Object.keys(fresh)) expect(incremental[table], table).toEqual(fresh[table]);
      if (depth === 20) {
        const graduatedAfter = Number(
          (
            await selectRows<{ n: string }>(
              handle.db,
              sql`select count(*) as n from tokens where lifecycle = 'graduated'`,
            )
          )[0]?.n,
        );
        expect(graduatedAfter).toBe(graduatedBefore - 1);
      }
      const reorgBorn = await selectRows<{ n: string | number }>(
        handle.db,
        sql`select count(*) as n from tokens where name like 'Reorg Born%'`,
      );
      expect(Number(reorgBorn[0]?.n)).toBeGreaterThanOrEqual(1);
    },
  );

  it('finds the ancestor among blocks without launchpad events (a run of empty blocks within the finality depth)', async () => {
    // 70 blocks without any launchpad log, then three trades, indexed in one range: before every
    // block within the finality depth was remembered, the only remembered blocks in the window
    // were those three trades, all replaced below, and the indexer halted as if the reorg were
    // deeper than 64 blocks (found by `npm run chaos`, seed 11).
    await chain.client.test.mine({ blocks: 70 });
    const trader = '0x0000000000000000000000000000000000e11e70' as Address;
    await chain.client.test.setBalance({ address: trader, value: 10n ** 21n });
    const [token] = await selectRows<{ address: Address }>(
      handle.db,
      sql`select address from tokens where lifecycle = 'curve' order by created_block limit 1`,
    );
    if (!token) throw new Error('no open curve');
    for (let i = 1n; i <= 3n; i++)
      await chain.actions.buy({ trader, token: token.address, value: i * 10n ** 16n });
    await indexToHead(handle.db, chain, { initialRange: 50_000 });
    await chain.client.request({
      method: 'anvil_reorg' as never,
      params: [10, await replacementTransactions(10)] as never,
    });
    const indexer = await indexToHead(handle.db, chain);
    expect(indexer.status.reorgs).toBe(1);
    expect(await dumpIndexAndLogs(handle.db)).toEqual(await freshIndexDump());
  });

  it('halts with a clear error on a reorg deeper than the finality depth, leaving the data untouched', async () => {
    const before = await dumpIndexAndLogs(handle.db);
    await chain.client.request({
      method: 'anvil_reorg' as never,
      params: [6, await replacementTransactions(6)] as never,
    });
    await expect(indexToHead(handle.db, chain, { chain: { finalityDepth: 3 } })).rejects.toThrow(
      ReorgTooDeepError,
    );
    expect(await dumpIndexAndLogs(handle.db)).toEqual(before);
    // With a sufficient depth the same index repairs itself.
    await indexToHead(handle.db, chain);
    expect(await dumpIndexAndLogs(handle.db)).toEqual(await freshIndexDump());
  });
});
