import sharp from 'sharp';
import type { RestOperation } from './targets';
import { type MultipartPart, multipartBytes } from './uploads';

const BOUNDARY = 'corpusBoundary0123';

/**
 * Real values of the indexed data the fuzzer mixes into its inputs, so requests reach past
 * validation into the handlers: addresses that exist, cursors the server signed, drafts and
 * stored objects it created.
 */
export interface Corpus {
  tokens: string[];
  creators: string[];
  wallets: string[];
  /** Launch transactions of real tokens (finalize bodies that reach the chain checks). */
  launches: { token: string; transaction: string }[];
  /** next_cursor values of real walks, of several lists. */
  cursors: string[];
  /** Where each cursor continues: the operation's path template and the request it came from. */
  continuations: { operation: string; target: string; cursor: string }[];
  drafts: string[];
  objectKeys: string[];
  /** Words of real names and symbols (search prefixes that match). */
  words: string[];
  /** Block timestamps and numbers of real events (chart ranges, stream resumes). */
  times: number[];
  blocks: number[];
  /** Small valid images (PNG, GIF, WebP, JPEG) for uploads that pass intake. */
  images: { bytes: Uint8Array; filename: string; type: string }[];
}

type Fetch = typeof fetch;
type Json = Record<string, unknown>;

async function getJson(fetcher: Fetch, baseUrl: string, target: string): Promise<Json> {
  const answer = await fetcher(`${baseUrl}${target}`);
  if (answer.status !== 200) throw new Error(`corpus: GET ${target} answered ${answer.status}`);
  return (await answer.json()) as Json;
}

const items = (page: Json) => (page.items ?? []) as Json[];
const cursorOf = (page: Json) => (typeof page.next_cursor === 'string' ? page.next_cursor : undefined);

/** Small images of every accepted format, made here so no fixture file is needed. */
export async function sampleImages(): Promise<Corpus['images']> {
  const base = (size: number, hue: number) =>
    sharp({
      create: { width: size, height: size, channels: 3, background: { r: hue, g: 255 - hue, b: 90 } },
    });
  return [
    { bytes: await base(8, 10).png().toBuffer(), filename: 'logo.png', type: 'image/png' },
    { bytes: await base(16, 120).gif().toBuffer(), filename: 'logo.gif', type: 'image/gif' },
    { bytes: await base(24, 200).webp().toBuffer(), filename: 'logo.webp', type: 'image/webp' },
    { bytes: await base(12, 60).jpeg().toBuffer(), filename: 'logo.jpg', type: 'image/jpeg' },
  ].map((image) => ({ ...image, bytes: new Uint8Array(image.bytes) }));
}

/**
 * Walks the live server's lists (several pages of each) and uploads a few drafts, collecting the
 * values above. Every step is an ordinary request a client could make.
 */
export async function collectCorpus(
  baseUrl: string,
  fetcher: Fetch,
  operations: readonly RestOperation[],
): Promise<Corpus> {
  const corpus: Corpus = {
    tokens: [],
    creators: [],
    wallets: [],
    launches: [],
    cursors: [],
    continuations: [],
    drafts: [],
    objectKeys: [],
    words: [],
    times: [],
    blocks: [],
    images: await sampleImages(),
  };
  const add = <T>(list: T[], value: T | undefined) => {
    if (value !== undefined && value !== null && !list.includes(value)) list.push(value);
  };
  const walk = async (
    target: string,
    pages: number,
    onItem: (item: Json) => void = () => {},
    operation = '',
  ) => {
    let cursor: string | undefined;
    for (let i = 0; i < pages; i++) {
      const separator = target.includes('?') ? '&' : '?';
      const page = await getJson(
        fetcher,
        baseUrl,
        cursor ? `${target}${separator}cursor=${encodeURIComponent(cursor)}` : target,
      );
      items(page).forEach(onItem);
      cursor = cursorOf(page);
      if (!cursor) return;
      add(corpus.cursors, cursor);
      if (operation) corpus.continuations.push({ operation, target, cursor });
    }
  };

  await walk('/api/v1/tokens?limit=5', 6, (token) => {
    add(corpus.tokens, token.address as string);
    add(corpus.creators, token.creator as string);
    add(corpus.words, (token.symbol as string).toLowerCase());
    add(corpus.words, (token.name as string).split(' ')[0]?.toLowerCase());
    add(corpus.times, token.created_at as number);
  });
  for (const token of corpus.tokens.slice(0, 4)) {
    const detail = await getJson(fetcher, baseUrl, `/api/v1/tokens/${token}`);
    const creation = detail.creation as Json;
    corpus.launches.push({ token, transaction: creation.transaction_hash as string });
    add(corpus.blocks, creation.block_number as number);
    await walk(`/api/v1/tokens/${token}/holders?limit=5`, 1, (holder) =>
      add(corpus.wallets, holder.wallet as string),
    );
    await walk(`/api/v1/tokens/${token}/trades?limit=5`, 1, (trade) => {
      add(corpus.wallets, trade.trader as string);
      add(corpus.times, trade.block_timestamp as number);
      add(corpus.blocks, trade.block_number as number);
    });
  }
  // Every paginated operation of the document, walked a few pages: once plainly and once per
  // member of each of its enum parameters (views, kinds), so each list has cursors of its own;
  // `format` picks the answer's media type (a CSV export has no pages), not a list.
  for (const operation of operations) {
    const query = operation.parameters.filter((p) => p.in === 'query');
    if (operation.method !== 'GET' || !query.some((p) => p.name === 'cursor')) continue;
    const path = operation.path.replace(/\{[^}]+\}/g, () => {
      const pool = /creators/.test(operation.path)
        ? corpus.creators
        : /wallets/.test(operation.path)
          ? corpus.wallets
          : corpus.tokens;
      return pool[0] ?? '';
    });
    const variants = [
      '',
      ...query
        .filter((p) => p.name !== 'format')
        .flatMap((p) => ((p.schema.enum ?? []) as string[]).map((m) => `&${p.name}=${m}`)),
    ];
    for (const variant of variants) await walk(`${path}?limit=1${variant}`, 3, () => {}, operation.path);
  }

  for (const [index, image] of corpus.images.slice(0, 2).entries()) {
    const text = (name: string, value: string) => ({ name, bytes: new Uint8Array(Buffer.from(value)) });
    const parts: MultipartPart[] = [
      text('name', `Fuzz Seed ${index}`),
      text('symbol', `FZ${index}`),
      text('initial_supply', (10n ** 27n).toString()),
      ...(index === 1 && corpus.creators[0] ? [text('creator', corpus.creators[0])] : []),
      { name: 'image', filename: image.filename, contentType: image.type, bytes: image.bytes },
    ];
    const answer = await fetcher(`${baseUrl}/api/v1/token-metadata`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: multipartBytes(parts, BOUNDARY) as Uint8Array<ArrayBuffer>,
    });
    if (answer.status !== 201)
      throw new Error(`corpus: upload answered ${answer.status}: ${await answer.text()}`);
    const draft = (await answer.json()) as { draft_id: string; image_url: string };
    add(corpus.drafts, draft.draft_id);
    add(corpus.objectKeys, draft.image_url.split('/').at(-1));
  }
  if (corpus.tokens.length === 0 || corpus.cursors.length === 0)
    throw new Error('corpus: the indexed chain has no tokens or no second page; use a larger fixture');
  return corpus;
}
