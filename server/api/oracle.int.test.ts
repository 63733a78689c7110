import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedAddress } from '../../test/chain';
import { availableBackends } from '../../test/database';
import { type ChainView, viewAt } from '../../test/oracle/chain-view';
import { compareWithOracle, describeDifference } from '../../test/oracle/compare';
import { buildOracle, isAfter, type Oracle, type OrderedList, type OrderKey } from '../../test/oracle/model';
import { type Json, walkPages } from '../../test/oracle/walk';
import { type IndexedStack, startIndexedStack } from '../../test/stack';
import { excludeToken } from '../tokens/moderation';

const backends = await availableBackends();

describe.each(backends)('every read answer against the chain oracle (%s)', (backend) => {
  let stack: IndexedStack;
  let excluded: string | undefined;

  beforeAll(async () => {
    stack = await startIndexedStack(backend, { seed: 77, launches: 18, actions: 220 });
    // One excluded token with holders: lists drop it, detail flags it, holdings keep it unpriced.
    // (PGlite is held by the server process; moderation needs the database to itself there.)
    if (backend !== 'postgres') return;
    excluded = stack.ledger.actions.find((a) => a.kind === 'launch' && a.index > 10)?.token;
    if (!excluded) throw new Error('fixture has no late launch');
    const handle = await stack.database.open();
    try {
      await excludeToken(handle.db, excluded, 'oracle test');
    } finally {
      await handle.close();
    }
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('the chain view the oracle reads holds every log the simulator recorded', async () => {
    const view = await stack.readChainView();
    const seen = new Map(view.logs.map((log) => [`${log.transactionHash}:${log.logIndex}`, log]));
    const launchpad = new Set([view.factory]);
    for (const action of stack.ledger.actions)
      for (const log of action.logs) {
        if (log.eventName === 'TokenLaunched') launchpad.add(String(log.args.token));
        if (log.eventName === 'Graduated') launchpad.add(String(log.args.pool));
      }
    let compared = 0;
    for (const action of stack.ledger.actions) {
      for (const log of action.logs) {
        // The stablecoin's own transfers are in the ledger too; the launchpad does not index them.
        if (!launchpad.has(log.address)) continue;
        if (!['TokenLaunched', 'Trade', 'Graduated', 'Transfer', 'Swap'].includes(log.eventName)) continue;
        const mine = seen.get(`${action.transactionHash}:${log.logIndex}`);
        expect(mine?.eventName, `${action.transactionHash}:${log.logIndex}`).toBe(log.eventName);
        expect(mine?.blockNumber).toBe(action.blockNumber);
        expect(mine?.blockTimestamp).toBe(action.blockTimestamp);
        // The simulator's ledger lowercases every string; the view keeps names as mined.
        const lowered = Object.fromEntries(
          Object.entries(mine?.args ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v.toLowerCase() : v]),
        );
        expect(lowered).toEqual(log.args);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(400);
  });

  it('every page of every list at limits 1, 7 and 100, and every single answer, equal the oracle', async () => {
    await stack.waitForIndex();
    const view = await stack.readChainView();
    const oracle = buildOracle({ view, excluded: new Set(excluded ? [excluded] : []) });
    const comparison = await compareWithOracle(stack.server.baseUrl, oracle);
    expect(comparison.differences.slice(0, 5).map(describeDifference).join('\n\n')).toBe('');
    // The walk really covered the surface: lists at three limits, many pages, every token.
    expect(comparison.answers).toBeGreaterThan(1_000);
    expect(comparison.requests).toBeGreaterThan(3_000);
    expect(oracle.tokenAddresses.length).toBeGreaterThanOrEqual(18);
    expect(
      oracle.tokenAddresses.filter((t) => oracle.detail(t)?.graduation !== undefined).length,
    ).toBeGreaterThan(0);
  }, 600_000);

  it('walks while the chain moves: every page is exactly the rows after its cursor at its own checkpoint', async () => {
    const first = await stack.waitForIndex();
    const start = buildOracle({
      view: await stack.readChainView(),
      excluded: new Set(excluded ? [excluded] : []),
    });
    const curveTokens = start.tokens({ view: 'near' }).map((t) => t.address as Address);
    const target = curveTokens.reduce((best, t) =>
      start.trades(t).length > start.trades(best).length ? t : best,
    );
    const creator = start.detail(target)?.creation as { creator: Address };
    const buyers = await Promise.all([1, 2, 3].map((i) => fundedAddress(stack.chain, 700 + i)));
    let moves = 0;
    /** Between pages: a launch by the walked creator, buys on the walked token, an hour of chain time. */
    const move = async () => {
      moves++;
      const { actions, client } = stack.chain;
      // A launch every third move: the lists grow under the walks, yet every walk ends.
      if (moves % 3 === 1)
        await actions.launch({
          creator: creator.creator,
          name: `Walker ${moves}`,
          symbol: `WLK${moves}`,
          supply: 10n ** 27n,
          metadataHash: `0x${moves.toString(16).padStart(64, '0')}`,
          firstBuy: 10n ** 17n,
        });
      for (const [i, trader] of buyers.entries()) {
        const token = i === 0 ? target : (curveTokens[(moves + i) % curveTokens.length] as Address);
        // Small buys, so the walked token stays on its curve; one that graduates anyway leaves the rotation.
        await actions.buy({ trader, token, value: BigInt(1 + ((moves + i) % 5)) * 10n ** 16n }).catch(() => {
          if (token !== target) curveTokens.splice(curveTokens.indexOf(token), 1);
        });
      }
      const latest = await client.getBlock();
      await client.test.setNextBlockTimestamp({ timestamp: latest.timestamp + 3_600n });
      await client.test.mine({ blocks: 1 });
      await stack.waitForIndex();
    };

    const walks: {
      path: string;
      list: OrderedList;
      id: (item: Json) => string;
      token?: string;
      immutable: boolean;
    }[] = [
      { path: '/api/v1/tokens', list: 'new', id: (i) => String(i.address), immutable: true },
      {
        path: `/api/v1/creators/${creator.creator}/tokens`,
        list: 'new',
        id: (i) => String(i.address),
        immutable: true,
      },
      {
        path: `/api/v1/tokens/${target}/trades`,
        list: 'trades',
        id: (i) => `${i.block_number}:${i.log_index}`,
        immutable: true,
      },
      {
        path: `/api/v1/tokens/${target}/activity`,
        list: 'activity',
        id: (i) => `${i.block_number}:${i.log_index}`,
        immutable: true,
      },
      { path: '/api/v1/tokens?view=top', list: 'top', id: (i) => String(i.address), immutable: false },
      { path: '/api/v1/tokens?view=near', list: 'near', id: (i) => String(i.address), immutable: false },
      { path: '/api/v1/tokens/trending', list: 'trending', id: (i) => String(i.address), immutable: false },
      {
        path: `/api/v1/tokens/${target}/holders`,
        list: 'holders',
        id: (i) => String(i.wallet),
        token: target,
        immutable: false,
      },
    ];
    const checkpoints: number[] = [];
    const pagesOf = new Map<string, { block: number; items: Json[] }[]>();
    for (const walk of walks) {
      const limit = walk.path.includes('/creators/')
        ? 1
        : walk.list === 'trades' || walk.list === 'activity'
          ? 7
          : 3;
      const blocks = [await stack.waitForIndex()];
      const walked = await walkPages(stack.server.baseUrl, walk.path, limit, undefined, {
        maxPages: 150,
        between: async () => {
          await move();
          blocks.push(await stack.waitForIndex());
        },
      });
      pagesOf.set(
        walk.path,
        walked.pageItems.map((items, i) => ({ block: blocks[i] as number, items })),
      );
      checkpoints.push(...blocks);
    }
    expect(checkpoints[0]).toBe(first);

    // Every checkpoint a page was read at, modelled from one read of the final chain.
    const final: ChainView = await stack.readChainView();
    const oracles = new Map<number, Oracle>();
    const at = async (block: number) => {
      let oracle = oracles.get(block);
      if (!oracle) {
        oracle = buildOracle({
          view: await viewAt(stack.chain.client, final, block),
          excluded: new Set(excluded ? [excluded] : []),
        });
        oracles.set(block, oracle);
      }
      return oracle;
    };
    const listAt = (oracle: Oracle, walk: (typeof walks)[number]): Json[] => {
      if (walk.list === 'trades') return oracle.trades(target);
      if (walk.list === 'activity') return oracle.activity(target);
      if (walk.list === 'holders') return oracle.holders(target);
      if (walk.list === 'trending') return oracle.trending();
      if (walk.path.includes('/creators/')) return oracle.creatorTokens(creator.creator);
      return oracle.tokens({ view: walk.list === 'new' ? 'new' : walk.list });
    };

    let pagesChecked = 0;
    let movedRows = 0;
    for (const walk of walks) {
      const pages = pagesOf.get(walk.path) ?? [];
      expect(pages.length, walk.path).toBeGreaterThan(2);
      const limit = pages[0]?.items.length ?? 0;
      let cursor: OrderKey | undefined;
      const seen = new Map<string, number>();
      for (const [p, page] of pages.entries()) {
        const oracle = await at(page.block);
        const keyOf = (item: Json) => oracle.orderKey(walk.list, walk.id(item), walk.token);
        const expected = listAt(oracle, walk)
          .filter((item) => cursor === undefined || isAfter(keyOf(item) as OrderKey, cursor))
          .slice(0, limit);
        expect(page.items, `${walk.path} page ${p} at block ${page.block}`).toEqual(
          p === pages.length - 1 ? expected.slice(0, page.items.length) : expected,
        );
        pagesChecked++;
        const last = page.items.at(-1);
        cursor = last ? keyOf(last) : cursor;
        for (const item of page.items) seen.set(walk.id(item), (seen.get(walk.id(item)) ?? 0) + 1);
      }
      const lastOracle = await at(pages.at(-1)?.block as number);
      if (walk.immutable) {
        // No duplicate, no gap: exactly the rows that existed when the walk began.
        const begun = await at(pages[0]?.block as number);
        const existing = new Set(listAt(begun, walk).map(walk.id));
        expect(
          pages.flatMap((page) => page.items.map(walk.id)),
          walk.path,
        ).toEqual(
          listAt(lastOracle, walk)
            .map(walk.id)
            .filter((id) => existing.has(id)),
        );
      } else {
        // What docs/api.md promises for moving orders: a row whose key held still through the
        // walk appears exactly once; only a row whose key moved may be missed or repeated.
        for (const item of listAt(lastOracle, walk)) {
          const id = walk.id(item);
          const keys = await Promise.all(
            pages.map(async (page) => (await at(page.block)).orderKey(walk.list, id, walk.token)),
          );
          const still = keys.every((key) => key !== undefined && key[0] === keys[0]?.[0]);
          if (still) expect(seen.get(id), `${walk.path}: ${id}`).toBe(1);
          else movedRows++;
        }
      }
    }
    expect(pagesChecked).toBeGreaterThan(40);
    // The moves really moved the mutable orders under the walks.
    expect(movedRows).toBeGreaterThan(0);
  }, 600_000);
});
