import { addressPageInput, balancesPageInput } from '../../../../shared/api/common';
import { TOKENS_BATCH_MAX } from '../../../../shared/api/limits';
import {
  activityInput,
  activityPage,
  chart,
  chartInput,
  holdersPage,
  listTokensInput,
  pricing,
  tokenAddressInput,
  tokenDetail,
  tokenPage,
  tokensBatch,
  tokensBatchInput,
  tradesPage,
  trendingInput,
} from '../../../../shared/api/tokens';
import { tradersInput, tradersPage } from '../../../../shared/api/traders';
import type { ErrorCode } from '../../../errors';
import { TRENDING_FORMULA } from '../../../tokens/trending';
import { defineRestRoute, routeGroup } from '../../rest/define';
import { listTraders, tradersExport } from '../../traders/read';
import { getTokensBatch } from './batch';
import { getTokenDetail } from './detail';
import { listTokens, listTrending } from './list';
import { getChart, listActivity } from './market';
import { getPricing, holdersExport, listHolders, listTrades, tradesExport } from './serialized';

const untrusted = 'Names, images and links are supplied by creators and unverified.';
const trendingDescription = `Tokens with indexed trading in the last 24 h, by trending score = ${TRENDING_FORMULA}, relative to the indexed head's time. \`view\` and \`search\` narrow the set and keep the order. Trending order is not an endorsement. ${untrusted}`;

// What routes serving the same list, or the same kind of read, share.
const listErrors: ErrorCode[] = ['invalid_parameter', 'search_view_conflict', 'invalid_cursor'];
const tokenList = { input: listTokensInput, output: tokenPage, errors: listErrors, read: listTokens };
const trendingList = { input: trendingInput, output: tokenPage, errors: listErrors, read: listTrending };
const tokenErrors: ErrorCode[] = ['invalid_address', 'not_found'];
const tokenPageErrors: ErrorCode[] = ['invalid_address', 'invalid_parameter', 'invalid_cursor', 'not_found'];

export const tokenRoutes = routeGroup('tokens', {
  listTokens: defineRestRoute({
    path: '/api/v1/tokens',
    summary: 'List tokens',
    description: `Canonical, non-excluded tokens, newest launch first unless \`view\` picks another order; \`view=new\` equals the default. \`search\` and \`view\` cannot be combined. ${untrusted}`,
    ...tokenList,
  }),
  listNewestTokens: defineRestRoute({
    path: '/api/v1/tokens/newest',
    summary: 'Newest tokens',
    description: `Same parameters, rules and answers as \`GET /api/v1/tokens\` (whose default order is newest first). ${untrusted}`,
    ...tokenList,
  }),
  listTrendingTokens: defineRestRoute({
    path: '/api/v1/tokens/trending',
    summary: 'Trending tokens',
    description: trendingDescription,
    ...trendingList,
  }),
  listTrending: defineRestRoute({
    path: '/api/v1/trending',
    summary: 'Trending tokens (alias)',
    description: `Alias of \`GET /api/v1/tokens/trending\`: identical answers. ${trendingDescription}`,
    ...trendingList,
  }),
  getTokensBatch: defineRestRoute({
    path: '/api/v1/tokens/batch',
    summary: 'Many tokens at once',
    description: `Up to ${TOKENS_BATCH_MAX} tokens by address in one call, as list items in the order of the request (each address once), with \`indexed_through_block\` of the same snapshot. Addresses that are not launched tokens are listed in \`not_found\`, tokens hidden by moderation in \`excluded\`; neither fails the call. ${untrusted}`,
    input: tokensBatchInput,
    output: tokensBatch,
    errors: ['invalid_parameter', 'invalid_address'],
    read: getTokensBatch,
  }),
  getToken: defineRestRoute({
    path: '/api/v1/tokens/{address}',
    summary: 'Token detail',
    description: `Identity, bound metadata, creation provenance, curve state, metrics and (once graduated) graduation data, read in one snapshot with \`indexed_through_block\`. An excluded token still answers, with \`excluded: true\`. ${untrusted}`,
    input: tokenAddressInput,
    output: tokenDetail,
    errors: tokenErrors,
    read: (ctx, input) => getTokenDetail(ctx, input.address),
  }),
  getTokenPricing: defineRestRoute({
    path: '/api/v1/tokens/{address}/pricing',
    summary: 'Token pricing',
    description:
      'Current price (native base units per whole token) and fully diluted value. `source` is `indexed_v3_market` only for a graduated token whose latest indexed trade is a `dex_v3` trade.',
    input: tokenAddressInput,
    output: pricing,
    errors: tokenErrors,
    read: getPricing,
  }),
  getTokenChart: defineRestRoute({
    path: '/api/v1/tokens/{address}/chart',
    summary: 'Candlestick chart',
    description:
      'OHLCV buckets oldest first: the most recent `limit` buckets whose start lies in `[from, to)`. Prices in native base units per whole token (spot price after each trade), volume in native base units. Buckets without trades are omitted unless `fill=previous`.',
    input: chartInput,
    output: chart,
    errors: ['invalid_address', 'invalid_parameter', 'invalid_range', 'not_found'],
    read: getChart,
  }),
  listTokenTrades: defineRestRoute({
    path: '/api/v1/tokens/{address}/trades',
    summary: 'Trades',
    description:
      'Canonical indexed curve and Uniswap V3 (`dex_v3`) trades in reverse chain order, with the checkpoint they were read at. Amounts normalized to 18 decimals. No trade submissions.',
    input: addressPageInput,
    output: tradesPage,
    errors: tokenPageErrors,
    read: listTrades,
    csv: tradesExport,
  }),
  listTokenActivity: defineRestRoute({
    path: '/api/v1/tokens/{address}/activity',
    summary: 'Chain activity',
    description:
      'Every decoded canonical event of the token (launch, trade, graduation, transfer, swap) with block, transaction and log provenance, in reverse chain order.',
    input: activityInput,
    output: activityPage,
    errors: tokenPageErrors,
    read: listActivity,
  }),
  listTokenHolders: defineRestRoute({
    path: '/api/v1/tokens/{address}/holders',
    summary: 'Top holders',
    description:
      'Wallets holding the token, largest balance first. The curve, the pool, the burn address and launchpad contracts are not holders (the pool from its graduation block on). With `block`, the holders at the end of that block, from the indexed balance history (docs/api.md, "Balances at a block").',
    input: balancesPageInput,
    output: holdersPage,
    errors: tokenPageErrors,
    read: listHolders,
    csv: holdersExport,
  }),
  listTokenTraders: defineRestRoute({
    path: '/api/v1/tokens/{address}/traders',
    summary: 'Top traders',
    description:
      'Wallets that traded the token (as the chain attributes it), or received it with its cost (within the cluster of its creator, or in the transaction that bought it): tokens and quote bought and sold, average-cost basis, realized PnL, unrealized PnL at the current price, position, first and last trade and labels (creator, sniper, bundler, creator_linked; docs/api.md "Traders, PnL and labels"), largest first by realized PnL, volume or holding. Kept by the indexer, never computed per request.',
    input: tradersInput,
    output: tradersPage,
    errors: tokenPageErrors,
    read: listTraders,
    csv: tradersExport,
  }),
});

/** In the registry's order. */
export const tokenRestRoutes = Object.values(tokenRoutes);
