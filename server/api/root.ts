import { creatorsRouter } from './routers/creators/rest';
import { systemRouter } from './routers/system/router';
import { tokensRouter } from './routers/tokens/router';
import { walletsRouter } from './routers/wallets/rest';
import { createCallerFactory, createTRPCRouter } from './trpc';

export const appRouter = createTRPCRouter({
  tokens: tokensRouter,
  creators: creatorsRouter,
  wallets: walletsRouter,
  system: systemRouter,
});

export type AppRouter = typeof appRouter;

/**
 * Calls procedures in-process: the REST adapter and server components use it.
 * @example const caller = createCaller(house.context); await caller.tokens.list({});
 */
export const createCaller = createCallerFactory(appRouter);
export type Caller = ReturnType<typeof createCaller>;
