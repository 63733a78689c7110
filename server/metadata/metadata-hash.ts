import { keccak256, toBytes } from 'viem';
import type { DraftFields } from '../../shared/metadata/draft-fields';

/**
 * keccak256 of the draft's canonical content: a JSON array in fixed order (no key-order or
 * whitespace ambiguity), with the stored image's content address instead of the image. The launch
 * transaction carries this hash, which is how finalize proves the launch meant this draft.
 */
export function metadataHashOf(fields: Omit<DraftFields, 'image_url'>, imageKey: string): `0x${string}` {
  const canonical = JSON.stringify([
    'launchdex-metadata-v1',
    fields.name,
    fields.symbol,
    fields.initial_supply.toString(),
    fields.description,
    imageKey,
    fields.website_url,
    fields.x_url,
    fields.telegram_url,
    fields.discord_url,
    fields.creator,
  ]);
  return keccak256(toBytes(canonical));
}
