import { createTRPCRouter } from '../../trpc';
import { tokenRoutes as routes } from './rest';

/** The REST reads' own procedures (server/api/rest/define.ts): one declaration serves both transports. */
export const tokensRouter = createTRPCRouter({
  list: routes.listTokens.procedure,
  trending: routes.listTrendingTokens.procedure,
  batch: routes.getTokensBatch.procedure,
  byAddress: routes.getToken.procedure,
  pricing: routes.getTokenPricing.procedure,
  chart: routes.getTokenChart.procedure,
  trades: routes.listTokenTrades.procedure,
  activity: routes.listTokenActivity.procedure,
  holders: routes.listTokenHolders.procedure,
  traders: routes.listTokenTraders.procedure,
});
