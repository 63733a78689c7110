import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import sharp from 'sharp';
import type { Address, Hex, PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalizeDomain, finalizeTypes } from '../../shared/metadata/finalize-message';
import { startTestChain, type TestChain } from '../../test/chain';
import { availableBackends, type TestDatabase } from '../../test/database';
import { testDatabaseForTests } from '../../test/database-hooks';
import { indexToHead } from '../../test/indexer/harness';
import { createChainPublicClient } from '../chain/clients';
import { type DatabaseHandle, selectRows } from '../db/client';
import { isAppErrorCode } from '../errors';
import { createFilesystemStore } from '../objects/store';
import { createDraft } from './create-draft';
import { finalizeDraft } from './finalize';
import { purgeExpiredDrafts } from './purge-drafts';

const backends = await availableBackends();
// anvil's well-known development key (account 1): test-only.
const creator = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const DAY = 24 * 3_600_000;

interface Launched {
  draftId: string;
  key: string;
  body: { token_address: Address; transaction_hash: Hex; signature: Hex };
}

/**
 * A draft being finalized while the purge deletes expired drafts must end bound (with its image)
 * or deleted (finalize answers 404), never bound to a deleted image: real finalizes against a real
 * chain and index, on a draft that expired unbound.
 */
describe.each(backends)('finalize racing the draft purge (%s)', (backend) => {
  let chain: TestChain;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let client: PublicClient;
  let serial = 0;
  const objectsDir = mkdtempSync(path.join(tmpdir(), 'launchdex-purge-race-'));
  const store = createFilesystemStore(objectsDir);

  /** Uploads a draft, launches it, indexes it and signs its Finalize; the draft then expires. */
  async function expiredLaunchedDraft(): Promise<Launched> {
    serial++;
    const image = await sharp({
      create: { width: 8, height: 8, channels: 3, background: `#${serial.toString(16).padStart(6, '0')}` },
    })
      .png()
      .toBuffer();
    const fields = {
      name: `Race ${serial}`,
      symbol: `RACE${serial}`,
      initial_supply: (10n ** 27n).toString(),
    };
    const draft = await createDraft(
      { db: handle.db, objects: store, fetchImage: async () => Buffer.alloc(0) },
      { fields, file: { bytes: image, filename: 'a.png' } },
    );
    const launched = await chain.actions.launch({
      creator: creator.address,
      name: fields.name,
      symbol: fields.symbol,
      supply: 10n ** 27n,
      metadataHash: draft.metadata_hash as Hex,
    });
    const token = launched.token.toLowerCase() as Address;
    await indexToHead(handle.db, chain);
    await handle.db.execute(
      sql`update metadata_drafts set created_at = now() - interval '25 hours' where id = ${draft.draft_id}`,
    );
    const signature = await creator.signTypedData({
      domain: finalizeDomain(31337),
      types: finalizeTypes,
      primaryType: 'Finalize',
      message: { draft: draft.draft_id, token, transactionHash: launched.hash },
    });
    return {
      draftId: draft.draft_id,
      key: draft.image_url.slice('/objects/'.length),
      body: { token_address: token, transaction_hash: launched.hash, signature },
    };
  }

  const finalize = (launched: Launched) =>
    finalizeDraft(
      { db: handle.db, chainId: 31337, factory: chain.deployment.contracts.factory, client },
      launched.draftId,
      launched.body,
    ).then(
      () => 'bound' as const,
      (error: unknown) => {
        if (isAppErrorCode(error, 'not_found')) return 'gone' as const;
        throw error;
      },
    );
  const purge = () => purgeExpiredDrafts({ db: handle.db, objects: store, ttlMs: DAY, batchSize: 1 });

  /** Where a draft ended: bound with its image and on its token, or deleted and on no token. */
  async function state(launched: Launched) {
    const [draft] = await selectRows<{ bound: string | null }>(
      handle.db,
      sql`select bound_token_address as bound from metadata_drafts where id = ${launched.draftId}`,
    );
    const [token] = await selectRows<{ draft_id: string | null }>(
      handle.db,
      sql`select draft_id from tokens where address = ${launched.body.token_address}`,
    );
    return {
      draft: draft ? (draft.bound === launched.body.token_address ? 'bound' : 'unbound') : 'gone',
      token: token?.draft_id === launched.draftId ? 'bound' : token?.draft_id === null ? 'none' : 'other',
      image: existsSync(path.join(objectsDir, launched.key)),
    };
  }

  beforeAll(async () => {
    chain = await startTestChain();
    await chain.client.test.setBalance({ address: creator.address, value: 10n ** 24n });
    client = createChainPublicClient(31337, chain.anvil.rpcUrl) as PublicClient;
  }, 120_000);
  testDatabaseForTests(backend, (opened) => {
    ({ database, handle } = opened);
  });

  afterAll(async () => {
    await chain?.stop();
    rmSync(objectsDir, { recursive: true, force: true });
  });

  it('ends every raced draft bound with its image or deleted, never bound to a deleted image', async () => {
    const drafts: Launched[] = [];
    for (let i = 0; i < 4; i++) drafts.push(await expiredLaunchedDraft());

    const [purged, ...outcomes] = await Promise.all([purge(), ...drafts.map((draft) => finalize(draft))]);

    expect(purged.status).toBe('purged');
    for (const [index, draft] of drafts.entries()) {
      const outcome = outcomes[index];
      expect(await state(draft)).toEqual(
        outcome === 'bound'
          ? { draft: 'bound', token: 'bound', image: true }
          : { draft: 'gone', token: 'none', image: false },
      );
    }
    // Whatever was left unbound is purged by the next run; the bound ones stay.
    await purge();
    for (const [index, draft] of drafts.entries())
      expect((await state(draft)).draft).toBe(outcomes[index] === 'bound' ? 'bound' : 'gone');
  });

  // The two orders, forced: another PostgreSQL session holds a lock the first party needs, so the
  // second arrives while the first is inside its transaction. (PGlite is one session: there,
  // transactions cannot interleave, and the race above covers it.)
  if (backend !== 'postgres') return;

  const session = () => postgres(database.config.kind === 'postgres' ? database.config.url : '', { max: 1 });
  /** Resolves once `count` statements of this database wait for a lock. */
  async function waitersAtLeast(count: number) {
    for (let i = 0; i < 200; i++) {
      const [row] = await selectRows<{ waiting: string | number }>(
        handle.db,
        sql`select count(*) as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      if (Number(row?.waiting) >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`fewer than ${count} statements ever waited for a lock`);
  }

  /**
   * Takes `lock` in another session and keeps its transaction open until `release`; `end`
   * releases, waits for the transaction and closes the session.
   */
  function holdLock(lock: (tx: postgres.TransactionSql) => Promise<unknown>) {
    const holder = session();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holding = holder.begin(async (tx) => {
      await lock(tx);
      await held;
    });
    return {
      release: () => release(),
      end: async () => {
        release();
        await holding;
        await holder.end();
      },
    };
  }

  it('finalize first: the purge skips the draft being bound, which ends bound with its image', async () => {
    const draft = await expiredLaunchedDraft();
    // Finalize updates the draft row, then waits here for the token row.
    const lock = holdLock(
      (tx) => tx`select 1 from tokens where address = ${draft.body.token_address} for update`,
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const finalizing = finalize(draft);
      await waitersAtLeast(1);

      const purged = await purge();
      expect(purged).toMatchObject({ status: 'purged', drafts: 0 });
      lock.release();
      expect(await finalizing).toBe('bound');
    } finally {
      await lock.end();
    }
    expect(await state(draft)).toEqual({ draft: 'bound', token: 'bound', image: true });
  });

  it('purge first: the finalize that waited for it answers 404, and nothing is bound', async () => {
    const draft = await expiredLaunchedDraft();
    // The purge deletes the draft row, then waits here for its object's row.
    const lock = holdLock((tx) => tx`select 1 from stored_objects where key = ${draft.key} for update`);
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const purging = purge();
      await waitersAtLeast(1);
      const finalizing = finalize(draft);
      await waitersAtLeast(2);

      lock.release();
      expect(await purging).toMatchObject({ status: 'purged', drafts: 1, objects: 1 });
      expect(await finalizing).toBe('gone');
    } finally {
      await lock.end();
    }
    expect(await state(draft)).toEqual({ draft: 'gone', token: 'none', image: false });
  });
});
