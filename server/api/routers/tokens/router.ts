import { createTRPCRouter, publicProcedure } from '../../trpc';
import { getTokenDetail } from './detail';
import { listTokens } from './list';
import { listTokensInput, tokenAddressInput } from './schemas';

export const tokensRouter = createTRPCRouter({
  list: publicProcedure.input(listTokensInput).query(({ ctx, input }) => listTokens(ctx, input)),
  byAddress: publicProcedure
    .input(tokenAddressInput)
    .query(({ ctx, input }) => getTokenDetail(ctx, input.address)),
});
