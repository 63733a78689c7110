import { and, eq, isNull } from 'drizzle-orm';
import { type Address, type PublicClient, parseEventLogs } from 'viem';
import type { FinalizeBody, FinalizeResponse } from '../../shared/metadata/api';
import { finalizeDomain, finalizeTypes } from '../../shared/metadata/finalize-message';
import { launchFactoryAbi } from '../chain/abis';
import { readIndexedThroughBlock } from '../db/checkpoint';
import type { Database } from '../db/client';
import { bumpReadVersion } from '../db/read-version';
import { metadataDrafts, tokens } from '../db/schema';
import { AppError, type ErrorDetail, isAppError } from '../errors';

// Defined in the client-safe module the launch page signs with; re-exported for server callers.
export { finalizeDomain, finalizeTypes };

interface Launch {
  creator: string;
  name: string;
  symbol: string;
  totalSupply: bigint;
  metadataHash: string;
  transactionHash: string;
  blockNumber: number;
}

export interface FinalizeServices {
  db: Database;
  chainId: number;
  factory: Address;
  client: PublicClient;
}

const unavailable = (what: string) =>
  new AppError('unavailable', `the chain RPC could not be reached to ${what}; retry later`);

/**
 * Binds a draft to its indexed launch. The signer must be the launch's creator (EIP-712, checked
 * through the chain so smart-contract wallets work; an RPC failure refuses rather than trusts), the
 * draft's creator if it names one, and the launch must carry exactly the draft's name, symbol,
 * supply and metadataHash. A launch confirmed on chain but not yet indexed answers 409
 * `not_indexed`; the same request succeeds once the index reaches it. Repeating a successful
 * finalize answers the same binding.
 */
export async function finalizeDraft(
  services: FinalizeServices,
  draftId: string,
  body: FinalizeBody,
): Promise<FinalizeResponse> {
  const { db } = services;
  const [draft] = await db.select().from(metadataDrafts).where(eq(metadataDrafts.id, draftId)).limit(1);
  if (!draft) throw new AppError('not_found', `no draft ${draftId}`);

  const [indexed] = await db.select().from(tokens).where(eq(tokens.address, body.token_address)).limit(1);
  let launch: Launch;
  if (indexed) {
    launch = {
      creator: indexed.creator,
      name: indexed.name,
      symbol: indexed.symbol,
      totalSupply: indexed.totalSupply,
      metadataHash: indexed.metadataHash,
      transactionHash: indexed.createdTransactionHash,
      blockNumber: indexed.createdBlock,
    };
  } else {
    launch = await launchFromChain(services, body);
  }
  if (launch.transactionHash !== body.transaction_hash) {
    throw new AppError(
      'launch_mismatch',
      'transaction_hash is not the transaction that launched this token',
      [{ field: 'transaction_hash', message: 'not the launch transaction' }],
    );
  }

  let valid: boolean;
  try {
    valid = await services.client.verifyTypedData({
      address: launch.creator as Address,
      domain: finalizeDomain(services.chainId),
      types: finalizeTypes,
      primaryType: 'Finalize',
      message: { draft: draftId, token: body.token_address, transactionHash: body.transaction_hash },
      signature: body.signature,
    });
  } catch {
    throw unavailable('verify the signature');
  }
  if (!valid)
    throw new AppError(
      'invalid_signature',
      'the signature is not the launch creator’s Finalize signature for this draft, token and transaction on this chain',
    );
  if (draft.creator && draft.creator !== launch.creator)
    throw new AppError('not_owner', 'this draft belongs to another creator');

  const mismatches: ErrorDetail[] = [];
  if (launch.name !== draft.name) mismatches.push({ field: 'name', message: 'the launch has another name' });
  if (launch.symbol !== draft.symbol)
    mismatches.push({ field: 'symbol', message: 'the launch has another symbol' });
  if (launch.totalSupply !== draft.initialSupply)
    mismatches.push({ field: 'initial_supply', message: 'the launch has another supply' });
  if (launch.metadataHash !== draft.metadataHash)
    mismatches.push({ field: 'metadata_hash', message: 'the launch carries another metadataHash' });
  if (mismatches.length > 0)
    throw new AppError('launch_mismatch', 'the launch does not match the draft', mismatches);

  if (!indexed) {
    const through = await readIndexedThroughBlock(db);
    throw new AppError(
      'not_indexed',
      `the launch in block ${launch.blockNumber} is confirmed but the index has reached block ${through}; retry the same request shortly`,
      [
        { field: 'indexed_through_block', message: String(through) },
        { field: 'launch_block', message: String(launch.blockNumber) },
      ],
    );
  }

  if (draft.boundTokenAddress) {
    if (draft.boundTokenAddress === body.token_address && draft.boundAt) {
      return respond(draftId, body, draft.metadataHash, draft.boundAt);
    }
    throw new AppError(
      'already_finalized',
      `draft ${draftId} is already bound to ${draft.boundTokenAddress}`,
    );
  }
  if (indexed.draftId && indexed.draftId !== draftId)
    throw new AppError('already_finalized', `token ${body.token_address} already has finalized metadata`);

  let boundAt: Date;
  try {
    boundAt = await db.transaction(async (tx) => {
      const [won] = await tx
        .update(metadataDrafts)
        .set({
          boundTokenAddress: body.token_address,
          boundTransactionHash: body.transaction_hash,
          boundAt: new Date(),
        })
        .where(and(eq(metadataDrafts.id, draftId), isNull(metadataDrafts.boundTokenAddress)))
        .returning({ boundAt: metadataDrafts.boundAt });
      if (!won) {
        // Another finalize bound the draft between our read and this update. In PostgreSQL the
        // update waited for that transaction's row lock and then found the row bound; this
        // statement's fresh snapshot sees the winner's binding. The same binding is this
        // request's success too (identical requests are idempotent however they interleave);
        // another token is a conflict.
        const [bound] = await tx
          .select({ token: metadataDrafts.boundTokenAddress, boundAt: metadataDrafts.boundAt })
          .from(metadataDrafts)
          .where(eq(metadataDrafts.id, draftId));
        if (bound?.token === body.token_address && bound.boundAt) return bound.boundAt;
        // The purge deleted the unbound draft (it had expired) between our read and this update:
        // its row lock came first, so the draft is gone rather than bound to a deleted image.
        if (!bound)
          throw new AppError('not_found', `no draft ${draftId} (it expired unbound and was deleted)`);
        throw new AppError('already_finalized', `draft ${draftId} is already bound to ${bound?.token}`);
      }
      const hasLinks = [draft.websiteUrl, draft.xUrl, draft.telegramUrl, draft.discordUrl].some(
        (link) => link !== null,
      );
      await tx.update(tokens).set({ draftId, hasLinks }).where(eq(tokens.address, body.token_address));
      await bumpReadVersion(tx);
      return won.boundAt as Date;
    });
  } catch (error) {
    if (isAppError(error)) throw error;
    // The unique index on bound_token_address: another draft won the race for this token.
    if (
      String(
        (error as { cause?: { code?: string }; code?: string }).cause?.code ??
          (error as { code?: string }).code,
      ) === '23505'
    ) {
      throw new AppError('already_finalized', `token ${body.token_address} already has finalized metadata`);
    }
    throw error;
  }
  return respond(draftId, body, draft.metadataHash, boundAt);
}

function respond(draftId: string, body: FinalizeBody, metadataHash: string, boundAt: Date): FinalizeResponse {
  return {
    draft_id: draftId,
    token_address: body.token_address,
    transaction_hash: body.transaction_hash,
    metadata_hash: metadataHash,
    bound_at: boundAt.toISOString(),
  };
}

/** The launch as the chain has it, for a token the index has not reached. */
async function launchFromChain(services: FinalizeServices, body: FinalizeBody): Promise<Launch> {
  let receipt: Awaited<ReturnType<PublicClient['getTransactionReceipt']>> | undefined;
  try {
    receipt = await services.client.getTransactionReceipt({ hash: body.transaction_hash });
  } catch (error) {
    if ((error as { name?: string }).name === 'TransactionReceiptNotFoundError') receipt = undefined;
    else throw unavailable('read the launch transaction');
  }
  if (receipt?.status !== 'success') {
    throw new AppError('launch_mismatch', 'no successful launch transaction with this hash', [
      { field: 'transaction_hash', message: 'not found or reverted' },
    ]);
  }
  const events = parseEventLogs({
    abi: launchFactoryAbi,
    eventName: 'TokenLaunched',
    logs: receipt.logs,
  }).filter(
    (event) =>
      event.address.toLowerCase() === services.factory.toLowerCase() &&
      event.args.token.toLowerCase() === body.token_address,
  );
  const event = events[0];
  if (!event)
    throw new AppError('launch_mismatch', 'this transaction did not launch this token', [
      { field: 'token_address', message: 'not launched by this transaction' },
    ]);
  return {
    creator: event.args.creator.toLowerCase(),
    name: event.args.name,
    symbol: event.args.symbol,
    totalSupply: event.args.totalSupply,
    metadataHash: event.args.metadataHash.toLowerCase(),
    transactionHash: body.transaction_hash,
    blockNumber: Number(receipt.blockNumber),
  };
}
