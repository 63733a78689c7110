import {
  activityInput,
  chart,
  chartInput,
  holdersPage,
  listTokensInput,
  pricing,
  tokenAddressInput,
  tokenDetail,
  tokensBatchInput,
  tradesInput,
  tradesPage,
  trendingInput,
} from '../../../../shared/api/tokens';
import { tradersInput, tradersPage } from '../../../../shared/api/traders';
import { structured } from '../../rest/serialized';
import { listTraders } from '../../traders/read';
import { createTRPCRouter, publicProcedure } from '../../trpc';
import { getTokensBatch } from './batch';
import { getTokenDetail } from './detail';
import { listTokens, listTrending } from './list';
import { getChart, listActivity } from './market';
import { getPricing, listHolders, listTrades } from './serialized';

export const tokensRouter = createTRPCRouter({
  list: publicProcedure.input(listTokensInput).query(({ ctx, input }) => listTokens(ctx, input)),
  trending: publicProcedure.input(trendingInput).query(({ ctx, input }) => listTrending(ctx, input)),
  batch: publicProcedure.input(tokensBatchInput).query(({ ctx, input }) => getTokensBatch(ctx, input)),
  byAddress: publicProcedure
    .input(tokenAddressInput)
    .query(async ({ ctx, input }) => structured(tokenDetail, await getTokenDetail(ctx, input.address))),
  pricing: publicProcedure
    .input(tokenAddressInput)
    .query(async ({ ctx, input }) => structured(pricing, await getPricing(ctx, input.address))),
  chart: publicProcedure
    .input(chartInput)
    .query(async ({ ctx, input }) => structured(chart, await getChart(ctx, input))),
  trades: publicProcedure
    .input(tradesInput)
    .query(async ({ ctx, input }) => structured(tradesPage, await listTrades(ctx, input))),
  activity: publicProcedure.input(activityInput).query(({ ctx, input }) => listActivity(ctx, input)),
  holders: publicProcedure
    .input(tradesInput)
    .query(async ({ ctx, input }) => structured(holdersPage, await listHolders(ctx, input))),
  traders: publicProcedure
    .input(tradersInput)
    .query(async ({ ctx, input }) => structured(tradersPage, await listTraders(ctx, input))),
});
