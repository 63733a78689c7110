import { parseEther } from 'viem';
import {
  draftFieldsSchema,
  imageFormats,
  MAX_IMAGE_BYTES,
  MAX_IMAGE_TEXT,
} from '@/shared/metadata/draft-fields';
import { WAD } from '../units';

/** What the launch form holds, as typed. */
export interface LaunchFormValues {
  name: string;
  symbol: string;
  description: string;
  /** Whole tokens (18 decimals are added here). */
  supplyTokens: string;
  imageFile: File | null;
  imageUrl: string;
  website_url: string;
  x_url: string;
  telegram_url: string;
  discord_url: string;
  /** Native units, decimal; empty for no first buy. */
  firstBuy: string;
}

export type LaunchFormField = Exclude<keyof LaunchFormValues, 'imageFile'> | 'image';
export type LaunchFormErrors = Partial<Record<LaunchFormField, string>>;

export interface ValidLaunch {
  /** The draft's multipart text fields by their API names. */
  fields: Record<string, string>;
  imageFile: File | null;
  name: string;
  symbol: string;
  /** Base units, exactly what the draft and the launch transaction carry. */
  initialSupply: bigint;
  firstBuy: bigint;
}

/** Maps a draft field's API name to the form control that edits it. */
const formFieldOf: Record<string, LaunchFormField> = {
  name: 'name',
  symbol: 'symbol',
  initial_supply: 'supplyTokens',
  description: 'description',
  website_url: 'website_url',
  x_url: 'x_url',
  telegram_url: 'telegram_url',
  discord_url: 'discord_url',
  image_url: 'imageUrl',
};

/**
 * Validates the form with the server's own draft rules (draftFieldsSchema), so the browser and
 * the API can never disagree on a limit; the messages are the server's rule text.
 * @example validateLaunchForm({ ...values, symbol: 'WAYTOOLONGSYMBOL1' }) // { ok: false, errors: { symbol: 'symbol must be at most 16 bytes of UTF-8' } }
 */
export function validateLaunchForm(
  values: LaunchFormValues,
  creator: string | undefined,
): { ok: true; launch: ValidLaunch } | { ok: false; errors: LaunchFormErrors } {
  const errors: LaunchFormErrors = {};
  const supplyDigits = values.supplyTokens.replace(/[\s,_]/g, '');
  let initialSupplyText = '';
  if (!/^\d+$/.test(supplyDigits)) errors.supplyTokens = 'initial supply must be a whole number of tokens';
  else initialSupplyText = (BigInt(supplyDigits) * WAD).toString();

  const imageUrl = values.imageUrl.trim();
  if (values.imageFile && imageUrl !== '')
    errors.image = 'choose an image file or enter an image URL, not both';
  else if (!values.imageFile && imageUrl === '') errors.image = 'choose an image file or enter an image URL';
  else if (values.imageFile) {
    if (values.imageFile.size > MAX_IMAGE_BYTES) errors.image = `image must be at most ${MAX_IMAGE_TEXT}`;
    else if (values.imageFile.type !== '' && !(values.imageFile.type in imageFormats))
      errors.image = 'image must be PNG, JPEG, WebP or GIF';
  }

  let firstBuy = 0n;
  const firstBuyText = values.firstBuy.trim();
  if (firstBuyText !== '') {
    if (!/^\d+(\.\d{1,18})?$/.test(firstBuyText))
      errors.firstBuy = 'first buy must be an amount like 0.5, with at most 18 decimals';
    else firstBuy = parseEther(firstBuyText);
  }

  const fields = {
    name: values.name,
    symbol: values.symbol,
    initial_supply: initialSupplyText,
    description: values.description,
    website_url: values.website_url,
    x_url: values.x_url,
    telegram_url: values.telegram_url,
    discord_url: values.discord_url,
    ...(imageUrl !== '' ? { image_url: imageUrl } : {}),
    ...(creator ? { creator } : {}),
  };
  const parsed = draftFieldsSchema.safeParse(fields);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = formFieldOf[String(issue.path[0])];
      // The supply's own format message above is clearer than the base-unit one it would cause.
      if (field && !errors[field]) errors[field] = issue.message;
    }
  }
  if (!parsed.success || Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    launch: {
      fields: Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== '')),
      imageFile: values.imageFile,
      name: parsed.data.name,
      symbol: parsed.data.symbol,
      initialSupply: parsed.data.initial_supply,
      firstBuy,
    },
  };
}
