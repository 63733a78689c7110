import {
  activityInput,
  chartInput,
  listTokensInput,
  tokenAddressInput,
  tokensBatchInput,
  tradesInput,
  trendingInput,
} from '../../../../shared/api/tokens';
import { tradersInput } from '../../../../shared/api/traders';
import { listTraders } from '../../traders/read';
import { createTRPCRouter, publicProcedure } from '../../trpc';
import { getTokensBatch } from './batch';
import { getTokenDetail } from './detail';
import { listTokens, listTrending } from './list';
import { getChart, getPricing, listActivity, listHolders, listTrades } from './market';

export const tokensRouter = createTRPCRouter({
  list: publicProcedure.input(listTokensInput).query(({ ctx, input }) => listTokens(ctx, input)),
  trending: publicProcedure.input(trendingInput).query(({ ctx, input }) => listTrending(ctx, input)),
  batch: publicProcedure.input(tokensBatchInput).query(({ ctx, input }) => getTokensBatch(ctx, input)),
  byAddress: publicProcedure
    .input(tokenAddressInput)
    .query(({ ctx, input }) => getTokenDetail(ctx, input.address)),
  pricing: publicProcedure.input(tokenAddressInput).query(({ ctx, input }) => getPricing(ctx, input.address)),
  chart: publicProcedure.input(chartInput).query(({ ctx, input }) => getChart(ctx, input)),
  trades: publicProcedure.input(tradesInput).query(({ ctx, input }) => listTrades(ctx, input)),
  activity: publicProcedure.input(activityInput).query(({ ctx, input }) => listActivity(ctx, input)),
  holders: publicProcedure.input(tradesInput).query(({ ctx, input }) => listHolders(ctx, input)),
  traders: publicProcedure.input(tradersInput).query(({ ctx, input }) => listTraders(ctx, input)),
});
