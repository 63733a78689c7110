/**
 * Walks every page of a list route over HTTP and checks each page on its own: at most `limit`
 * items, a full page whenever another follows, `next_cursor` present on every page, and the same
 * `indexed_through_block` (where the list carries one) on every page of a settled index.
 */

export type Json = Record<string, unknown>;

export interface WalkResult {
  items: Json[];
  pages: number;
  /** Each page's items, in walk order. */
  pageItems: Json[][];
}

export class WalkError extends Error {}

export async function getJson(baseUrl: string, path: string): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${baseUrl}${path}`);
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as Json };
}

export async function walkPages(
  baseUrl: string,
  path: string,
  limit: number,
  expectedBlock?: number,
  options: { maxPages?: number; between?: (page: number) => Promise<void> } = {},
): Promise<WalkResult> {
  const maxPages = options.maxPages ?? 10_000;
  const items: Json[] = [];
  const pages: Json[][] = [];
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const separator = path.includes('?') ? '&' : '?';
    const url = `${path}${separator}limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const { status, body } = await getJson(baseUrl, url);
    if (status !== 200) throw new WalkError(`${url} answered ${status}: ${JSON.stringify(body)}`);
    const pageItems = body.items as Json[];
    if (!('next_cursor' in body)) throw new WalkError(`${url}: no next_cursor`);
    if (pageItems.length > limit) throw new WalkError(`${url}: ${pageItems.length} items at limit ${limit}`);
    if (
      expectedBlock !== undefined &&
      'indexed_through_block' in body &&
      body.indexed_through_block !== expectedBlock
    )
      throw new WalkError(
        `${url}: indexed_through_block ${body.indexed_through_block}, expected ${expectedBlock}`,
      );
    items.push(...pageItems);
    pages.push(pageItems);
    cursor = body.next_cursor as string | null;
    if (cursor === null) return { items, pages: page + 1, pageItems: pages };
    if (pageItems.length < limit)
      throw new WalkError(`${url}: a short page (${pageItems.length} of ${limit}) with a next page`);
    await options.between?.(page);
  }
  throw new WalkError(`${path}: more than ${maxPages} pages`);
}
