import type { Metadata } from 'next';
import { connection } from 'next/server';
import { searchProblem } from '@/components/tokens/search-rules';
import { TokenExplorer } from '@/components/tokens/token-explorer';
import { parseTokenTab, TOKEN_PAGE_SIZE } from '@/components/tokens/token-tabs';
import { pageServices } from '@/server/handover';
import type { TokenPage } from '@/shared/api/tokens';

export const metadata: Metadata = { title: 'Token launches' };

/** First page rendered on the server so the list paints without waiting for the client. */
async function firstPage(tab: string, search: string): Promise<TokenPage | undefined> {
  await connection();
  try {
    const { reads } = pageServices();
    if (search.trim() !== '') {
      return searchProblem(search) === null
        ? await reads.tokens({ limit: TOKEN_PAGE_SIZE, search })
        : undefined;
    }
    const view = parseTokenTab(tab);
    // The watchlist is in the browser's storage: nothing to render ahead of it.
    if (view === 'watchlist') return undefined;
    if (view === 'trending') return await reads.trending({ limit: TOKEN_PAGE_SIZE });
    return await reads.tokens({ limit: TOKEN_PAGE_SIZE, view });
  } catch {
    // The client retries and shows the error in place; the page itself still renders.
    return undefined;
  }
}

export default async function HomePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const tab = parseTokenTab(typeof params.tab === 'string' ? params.tab : undefined);
  const search = typeof params.q === 'string' ? params.q : '';
  const page = await firstPage(tab, search);
  return (
    <main>
      <div className="page-intro">
        <h1>Token launches</h1>
        <p className="muted">
          Tokens sold along a bonding curve until they graduate to a Uniswap V3 pool. Names, images and links
          are supplied by creators and unverified.
        </p>
      </div>
      <TokenExplorer initial={{ tab, search, page }} />
    </main>
  );
}
