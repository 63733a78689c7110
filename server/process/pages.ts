import { errorResponse } from '../api/rest/dispatch';
import { createCaller } from '../api/root';
import type { Context } from '../api/trpc';
import { publicChainOf } from '../chain/public-chain';
import type { Config } from '../config';
import type { Database } from '../db';
import { createReadVersion } from '../db/read-version';
import { AppError, isAppErrorCode } from '../errors';
import type { PageServices } from '../handover';
import type { ObjectStore } from '../objects/store';
import { createCardCache } from '../tokens/card-cache';
import { CARD_CACHE_BYTES, cardLogo } from '../tokens/share-card';
import { openApiDocument } from './handlers';

/** What the pages get from this process (handed over by scripts/serve.ts, read by server/handover.ts). */
export function createPageServices(services: {
  config: Config;
  context: Context;
  db: Database;
  objects: ObjectStore;
}): PageServices {
  const { config, context, db, objects } = services;
  const caller = createCaller(context);
  const cards = createCardCache(CARD_CACHE_BYTES);
  // Cards are keyed by the read-model version: it moves with every indexed block, finalize and moderation.
  const cardVersion = createReadVersion(db);
  return {
    chain: publicChainOf(config),
    publicBaseUrl: config.publicBaseUrl,
    reads: {
      tokens: (input) => caller.tokens.list(input),
      trending: (input) => caller.tokens.trending(input),
      token: (address) => caller.tokens.byAddress({ address }),
      creator: (address) => caller.creators.byAddress({ address }),
    },
    isErrorCode: isAppErrorCode,
    errorResponse: async (code, message) => errorResponse(new AppError(code, message)),
    openApiDocument,
    shareCard: {
      get: async (token, draw) => cards.get(token, await cardVersion.current(), draw),
      logo: (imageUrl, side) => cardLogo({ db, objects }, imageUrl ?? undefined, side),
    },
  };
}
