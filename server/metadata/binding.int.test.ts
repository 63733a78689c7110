import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import type { Address, PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { finalizeDomain, finalizeTypes } from '../../shared/metadata/finalize-message';
import type { TestChain } from '../../test/chain';
import { simulatedChainForTests } from '../../test/chain-hooks';
import { availableBackends } from '../../test/database';
import { testDatabaseForTests } from '../../test/database-hooks';
import { clearIndex, dumpProjections, indexToHead } from '../../test/indexer/harness';
import { createChainPublicClient } from '../chain/clients';
import { type DatabaseHandle, selectRows } from '../db/client';
import { createFilesystemStore } from '../objects/store';
import { createDraft } from './create-draft';
import { finalizeDraft } from './finalize';

const [backend] = await availableBackends();
if (!backend) throw new Error('no backend');
const creator = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

describe(`a finalized binding survives re-indexing (${backend})`, () => {
  let chain: TestChain;
  let handle: DatabaseHandle;
  const objectsDir = mkdtempSync(path.join(tmpdir(), 'launchdex-binding-'));

  simulatedChainForTests({ seed: 71, launches: 3, actions: 20 }, (started) => {
    chain = started.chain;
  });
  testDatabaseForTests(backend, (opened) => {
    handle = opened.handle;
  });
  afterAll(() => rmSync(objectsDir, { recursive: true, force: true }));

  it('keeps draft, image and links on the token after every chain-derived table is rebuilt', async () => {
    const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#abcdef' } })
      .png()
      .toBuffer();
    const draft = await createDraft(
      { db: handle.db, objects: createFilesystemStore(objectsDir), fetchImage: async () => Buffer.alloc(0) },
      {
        fields: {
          name: 'Survivor',
          symbol: 'SURV',
          initial_supply: (10n ** 27n).toString(),
          x_url: 'https://x.com/survivor',
        },
        file: { bytes: image, filename: 'a.png' },
      },
    );
    await chain.client.test.setBalance({ address: creator.address, value: 10n ** 22n });
    const launched = await chain.actions.launch({
      creator: creator.address,
      name: 'Survivor',
      symbol: 'SURV',
      supply: 10n ** 27n,
      metadataHash: draft.metadata_hash as `0x${string}`,
    });
    const token = launched.token.toLowerCase() as Address;
    await indexToHead(handle.db, chain);
    const signature = await creator.signTypedData({
      domain: finalizeDomain(31337),
      types: finalizeTypes,
      primaryType: 'Finalize',
      message: { draft: draft.draft_id, token, transactionHash: launched.hash },
    });
    await finalizeDraft(
      {
        db: handle.db,
        chainId: 31337,
        factory: chain.deployment.contracts.factory,
        client: createChainPublicClient(31337, chain.anvil.rpcUrl) as PublicClient,
      },
      draft.draft_id,
      { token_address: token, transaction_hash: launched.hash, signature },
    );
    const bound = async () =>
      (
        await selectRows<{ draft_id: string | null; has_links: boolean }>(
          handle.db,
          sql`select draft_id, has_links from tokens where address = ${token}`,
        )
      )[0];
    expect(await bound()).toEqual({ draft_id: draft.draft_id, has_links: true });
    const before = await dumpProjections(handle.db);

    // A full re-index: every chain-derived table emptied, the checkpoint gone.
    await clearIndex(handle.db);
    await indexToHead(handle.db, chain);
    expect(await bound()).toEqual({ draft_id: draft.draft_id, has_links: true });
    expect(await dumpProjections(handle.db)).toEqual(before);
  });
});
