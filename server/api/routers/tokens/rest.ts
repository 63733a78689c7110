import {
  activityInput,
  activityPage,
  chart,
  chartInput,
  holdersPage,
  listTokensInput,
  pricing,
  TOKENS_BATCH_MAX,
  tokenAddressInput,
  tokenDetail,
  tokenPage,
  tokensBatch,
  tokensBatchInput,
  tradesInput,
  tradesPage,
  trendingInput,
} from '../../../../shared/api/tokens';
import { tradersInput, tradersPage } from '../../../../shared/api/traders';
import { TRENDING_FORMULA } from '../../../tokens/trending';
import { defineRestRoute } from '../../rest/define';
import { listTraders } from '../../traders/read';
import { getTokensBatch } from './batch';
import { getTokenDetail } from './detail';
import { listTokens, listTrending } from './list';
import { getChart, listActivity } from './market';
import { getPricing, listHolders, listTrades } from './serialized';

const untrusted = 'Names, images and links are supplied by creators and unverified.';
const trendingDescription = `Tokens with indexed trading in the last 24 h, by trending score = ${TRENDING_FORMULA}, relative to the indexed head's time. \`view\` and \`search\` narrow the set and keep the order. Trending order is not an endorsement. ${untrusted}`;

export const tokenRoutes = {
  listTokens: defineRestRoute({
    method: 'GET',
    path: '/api/v1/tokens',
    operationId: 'listTokens',
    summary: 'List tokens',
    description: `Canonical, non-excluded tokens, newest launch first unless \`view\` picks another order; \`view=new\` equals the default. \`search\` and \`view\` cannot be combined. ${untrusted}`,
    tags: ['tokens'],
    input: listTokensInput,
    output: tokenPage,
    errors: ['invalid_parameter', 'search_view_conflict', 'invalid_cursor'],
    read: listTokens,
  }),
  listNewestTokens: defineRestRoute({
    method: 'GET',
    path: '/api/v1/tokens/newest',
    operationId: 'listNewestTokens',
    summary: 'Newest tokens',
    description: `Same parameters, rules and answers as \`GET /api/v1/tokens\` (whose default order is newest first). ${untrusted}`,
    tags: ['tokens'],
    input: listTokensInput,
    output: tokenPage,
    errors: ['invalid_parameter', 'search_view_conflict', 'invalid_cursor'],
    read: listTokens,
  }),
  listTrendingTokens: defineRestRoute({
    method: 'GET',
    path: '/api/v1/tokens/trending',
    operationId: 'listTrendingTokens',
    summary: 'Trending tokens',
    description: trendingDescription,
    tags: ['tokens'],
    input: trendingInput,
    output: tokenPage,
    errors: ['invalid_parameter', 'search_view_conflict', 'invalid_cursor'],
    read: listTrending,
  }),
  listTrending: defineRestRoute({
    method: 'GET',
    path: '/api/v1/trending',
    operationId: 'listTrending',
    summary: 'Trending tokens (alias)',
    description: `Alias of \`GET /api/v1/tokens/trending\`: identical answers. ${trendingDescription}`,
    tags: ['tokens'],
    input: trendingInput,
    output: tokenPage,
    errors: ['invalid_parameter', 'search_view_conflict', 'invalid_cursor'],
    read: listTrending,
  }),
  getTokensBatch: defineRestRoute({
    method: 'GET',
    path: '/api/v1/tokens/batch',
    operationId: 'getTokensBatch',
    summary: 'Many tokens at once',
    description: `Up to ${TOKENS_BATCH_MAX} tokens by address in one call, as list items in the order of the request (each address once), with \`indexed_through_block\` of the same snapshot. Addresses that are not launched tokens are listed in \`not_found\`, tokens hidden by moderation in \`excluded\`; neither fails the call. ${untrusted}`,
    tags: ['tokens'],
    input: tokensBatchInput,
    output: tokensBatch,
    errors: ['invalid_parameter', 'invalid_address'],
    read: getTokensBatch,
  }),
  getToken: defineRestRoute({
    method: 'GET',
    path: '/api/v1/tokens/{address}',
    operationId: 'getToken',
    summary: 'Token detail',
    description: `Identity, bound metadata, creation provenance, curve state, metrics and (once graduated) graduation data, read in one snapshot with \`indexed_through_block\`. An excluded token still answers, with \`excluded: true\`. ${untrusted}`,
    tags: ['tokens'],
    input: tokenAddressInput,
    output: tokenDetail,
    errors: ['invalid_address', 'not_found'],
    read: (ctx, input) => getTokenDetail(ctx, input.address),
  }),
  getTokenPricing: defineRestRoute({
    method: 'GET',
    path: '/api/v1/tokens/{address}/pricing',
    operationId: 'getTokenPricing',
    summary: 'Token pricing',
    description:
      'Current price (native base units per whole token) and fully diluted value. `source` is `indexed_v3_market` only for a graduated token whose latest indexed trade is a `dex_v3` trade.',
    tags: ['tokens'],
    input: tokenAddressInput,
    output: pricing,
    errors: ['invalid_address', 'not_found'],
    read: (ctx, input) => getPricing(ctx, input.address),
  }),
  getTokenChart: defineRestRoute({
    method: 'GET',
    path: '/api/v1/tokens/{address}/chart',
    operationId: 'getTokenChart',
    summary: 'Candlestick chart',
    description:
      'OHLCV buckets oldest first: the most recent `limit` buckets whose start lies in `[from, to)`. Prices in native base units per whole token (spot price after each trade), volume in native base units. Buckets without trades are omitted unless `fill=previous`.',
    tags: ['tokens'],
    input: chartInput,
    output: chart,
    errors: ['invalid_address', 'invalid_parameter', 'invalid_range', 'not_found'],
    read: getChart,
  }),
  listTokenTrades: defineRestRoute({
    method: 'GET',
    path: '/api/v1/tokens/{address}/trades',
    operationId: 'listTokenTrades',
    summary: 'Trades',
    description:
      'Canonical indexed curve and Uniswap V3 (`dex_v3`) trades in reverse chain order, with the checkpoint they were read at. Amounts normalized to 18 decimals. No trade submissions.',
    tags: ['tokens'],
    input: tradesInput,
    output: tradesPage,
    errors: ['invalid_address', 'invalid_parameter', 'invalid_cursor', 'not_found'],
    read: listTrades,
  }),
  listTokenActivity: defineRestRoute({
    method: 'GET',
    path: '/api/v1/tokens/{address}/activity',
    operationId: 'listTokenActivity',
    summary: 'Chain activity',
    description:
      'Every decoded canonical event of the token (launch, trade, graduation, transfer, swap) with block, transaction and log provenance, in reverse chain order.',
    tags: ['tokens'],
    input: activityInput,
    output: activityPage,
    errors: ['invalid_address', 'invalid_parameter', 'invalid_cursor', 'not_found'],
    read: listActivity,
  }),
  listTokenHolders: defineRestRoute({
    method: 'GET',
    path: '/api/v1/tokens/{address}/holders',
    operationId: 'listTokenHolders',
    summary: 'Top holders',
    description:
      'Wallets holding the token, largest balance first. The curve, the pool, the burn address and launchpad contracts are not holders.',
    tags: ['tokens'],
    input: tradesInput,
    output: holdersPage,
    errors: ['invalid_address', 'invalid_parameter', 'invalid_cursor', 'not_found'],
    read: listHolders,
  }),
  listTokenTraders: defineRestRoute({
    method: 'GET',
    path: '/api/v1/tokens/{address}/traders',
    operationId: 'listTokenTraders',
    summary: 'Top traders',
    description:
      'Wallets that traded the token (or paid a pool swap of it, or received it from its creator): tokens and quote bought and sold, average-cost basis, realized PnL, unrealized PnL at the current price, position, first and last trade and labels (creator, sniper, bundler, creator_linked; docs/api.md "Traders, PnL and labels"), largest first by realized PnL, volume or holding. Kept by the indexer, never computed per request.',
    tags: ['tokens'],
    input: tradersInput,
    output: tradersPage,
    errors: ['invalid_address', 'invalid_parameter', 'invalid_cursor', 'not_found'],
    read: listTraders,
  }),
};

/** In the registry's order. */
export const tokenRestRoutes = Object.values(tokenRoutes);
