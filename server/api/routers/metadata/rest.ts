import { z } from 'zod';
import { ADDRESS_PATTERN } from '../../../../shared/address';
import { draftResponse, finalizeBody, finalizeResponse } from '../../../../shared/metadata/api';
import { AppError } from '../../../errors';
import { createDraft } from '../../../metadata/create-draft';
import { finalizeDraft } from '../../../metadata/finalize';
import { readJsonBody } from '../../../metadata/json-body';
import { draftUploadSchema, readDraftUpload } from '../../../metadata/multipart';
import { defineRestRoute, routeGroup } from '../../rest/define';

/** The parsed multipart upload, checked for shape here so a wrong one is a 400, not a crash. */
const uploadInput = z.object({ body: draftUploadSchema });

const finalizeInput = z.object({
  draft: z.string().regex(/^d_[A-Za-z0-9_-]{16}$/, { message: 'draft must be a draft id (d_…)' }),
  body: finalizeBody,
});

export const metadataRoutes = routeGroup('metadata', {
  createTokenMetadataDraft: defineRestRoute({
    method: 'POST',
    path: '/api/v1/token-metadata',
    summary: 'Upload a metadata draft',
    description:
      'multipart/form-data with name (≤ 64 bytes), symbol (≤ 16 bytes), initial_supply (integer text, base units with 18 decimals, 10^21 to 10^33), optional description (≤ 1000 bytes), website_url, x_url, telegram_url, discord_url (http/https), optional creator (address), and exactly one of image (PNG, JPEG, WebP or GIF file, ≤ 5 MB, judged by content) or image_url (public https). Text fields must be valid UTF-8 (judged on the raw bytes); name and symbol must not be blank or whitespace-only and must not contain control characters, zero-width or other invisible format characters, or bidi marks, embeddings, overrides or isolates; the description may contain line breaks (LF, CRLF) but no other control characters and no bidi embeddings, overrides or isolates. A broken text rule answers 400 invalid_parameter with one details entry per field. Answers 201 with the draft id, the metadata_hash the launch transaction must carry, and the stored image URL. Both image and image_url, or neither: 400. A draft not finalized within DRAFT_TTL_HOURS (24 h by default) is deleted with its image unless another draft uses it. The unbound drafts of one client (its address, an IPv6 /64) hold at most DRAFT_BUDGET_MB (50 MB by default) at once, a draft weighing its stored image, its share-card thumbnail and its text; an upload past it is 429 storage_budget_exceeded with Retry-After (when its oldest draft expires) and details held_bytes, draft_bytes, budget_bytes and frees_at; finalizing a draft frees its bytes at once.',
    input: uploadInput,
    output: draftResponse,
    errors: [
      'invalid_parameter',
      'invalid_address',
      'invalid_image',
      'image_url_forbidden',
      'payload_too_large',
      'unsupported_media_type',
      'rate_limited',
      'storage_budget_exceeded',
    ],
    successStatus: 201,
    rateLimit: 'uploads',
    requestBody: {
      contentType: 'multipart/form-data',
      schema: {
        type: 'object',
        required: ['name', 'symbol', 'initial_supply'],
        properties: {
          name: {
            type: 'string',
            description:
              'At most 64 bytes of UTF-8; not blank; no control, invisible or bidi formatting characters',
          },
          symbol: {
            type: 'string',
            description:
              'At most 16 bytes of UTF-8; not blank; no control, invisible or bidi formatting characters',
          },
          initial_supply: {
            type: 'string',
            pattern: '^[1-9][0-9]*$',
            description: 'Base units (18 decimals), 10^21 to 10^33',
          },
          description: {
            type: 'string',
            description:
              'At most 1000 bytes of UTF-8; line breaks allowed, no other control characters and no bidi embeddings, overrides or isolates',
          },
          image: { type: 'string', format: 'binary', description: 'PNG, JPEG, WebP or GIF, at most 5 MB' },
          image_url: { type: 'string', format: 'uri', description: 'Public https URL of the image' },
          website_url: { type: 'string', format: 'uri' },
          x_url: { type: 'string', format: 'uri' },
          telegram_url: { type: 'string', format: 'uri' },
          discord_url: { type: 'string', format: 'uri' },
          creator: {
            type: 'string',
            pattern: ADDRESS_PATTERN,
            description: 'If set, only this address may finalize the draft',
          },
        },
      },
    },
    readBody: readDraftUpload,
    write: async (ctx, input) => {
      const { budgetBytes, ttlMs, purgeIntervalMs } = ctx.config.drafts;
      // The budget is the front's client's: callers without one (a script's context) have none.
      const budget =
        ctx.client !== undefined && budgetBytes > 0
          ? { client: ctx.client, bytes: budgetBytes, ttlMs, purgeIntervalMs }
          : undefined;
      return createDraft(
        { db: ctx.db, objects: await ctx.objects(), fetchImage: ctx.fetchImage, budget, clock: ctx.clock },
        input.body,
      );
    },
  }),
  finalizeTokenMetadataDraft: defineRestRoute({
    method: 'POST',
    path: '/api/v1/token-metadata/{draft}/finalize',
    summary: 'Bind a draft to its launch',
    description:
      'JSON {token_address, transaction_hash, signature}. The signature is EIP-712 typed data Finalize(string draft, address token, bytes32 transactionHash) in domain {name: "Launchdex", version: "1", chainId}, by the launch creator (smart-contract wallets through ERC-1271/6492). Binds only when the launch in transaction_hash created token_address with the draft’s name, symbol, supply and metadataHash. A launch confirmed on chain but not yet indexed answers 409 not_indexed: retry the same request after the index advances. Repeating a successful finalize returns the same binding, also when identical requests arrive at once; the same draft to another token is 409 already_finalized.',
    input: finalizeInput,
    output: finalizeResponse,
    errors: [
      'invalid_parameter',
      'invalid_address',
      'invalid_signature',
      'not_owner',
      'not_found',
      'not_indexed',
      'already_finalized',
      'payload_too_large',
      'unsupported_media_type',
      'launch_mismatch',
      'rate_limited',
      'unavailable',
    ],
    requestBody: {
      contentType: 'application/json',
      schema: {
        type: 'object',
        required: ['token_address', 'transaction_hash', 'signature'],
        properties: {
          token_address: { type: 'string', pattern: ADDRESS_PATTERN },
          transaction_hash: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' },
          signature: { type: 'string', pattern: '^0x[0-9a-fA-F]+$' },
        },
      },
    },
    rateLimit: 'finalize',
    readBody: readJsonBody,
    write: (ctx, input) => {
      const chain = ctx.chain();
      if (!chain) throw new AppError('unavailable', 'no chain is configured, so launches cannot be verified');
      return finalizeDraft({ db: ctx.db, ...chain }, input.draft, input.body);
    },
  }),
});

/** In the registry's order. */
export const metadataRestRoutes = Object.values(metadataRoutes);
