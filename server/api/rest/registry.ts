import { creatorRestRoutes } from '../routers/creators/rest';
import { metadataRestRoutes } from '../routers/metadata/rest';
import { tokenRestRoutes } from '../routers/tokens/rest';
import { walletRestRoutes } from '../routers/wallets/rest';
import type { RestRoute } from './define';

/** Every public REST route. Declaring a route here serves it, documents it and lists it. */
export const restRoutes: readonly RestRoute[] = [
  ...tokenRestRoutes,
  ...creatorRestRoutes,
  ...walletRestRoutes,
  ...metadataRestRoutes,
];
