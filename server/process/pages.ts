import { errorResponse } from '../api/rest/dispatch';
import { createCaller } from '../api/root';
import type { Context } from '../api/trpc';
import { publicChainOf } from '../chain/public-chain';
import type { Config } from '../config';
import { AppError, isAppErrorCode } from '../errors';
import type { PageServices } from '../handover';
import { cardLogo, cardVersion, processLogoSources, shareCardCache } from '../tokens/share-card';
import { openApiDocument } from './handlers';

/** What the pages get from this process (handed over by scripts/serve.ts, read by server/handover.ts). */
export function createPageServices(config: Config, context: Context): PageServices {
  return {
    chain: publicChainOf(config),
    publicBaseUrl: config.publicBaseUrl,
    caller: async () => createCaller(context),
    isErrorCode: isAppErrorCode,
    errorResponse: (code, message) => errorResponse(new AppError(code, message)),
    openApiDocument,
    shareCard: {
      get: async (token, draw) => {
        return shareCardCache().get(token, await cardVersion(), draw);
      },
      logo: async (imageUrl, side) => cardLogo(await processLogoSources(), imageUrl ?? undefined, side),
    },
  };
}
