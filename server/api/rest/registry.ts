import { tokenRestRoutes } from '../routers/tokens/rest';
import type { RestRoute } from './define';
import { createRestDispatcher } from './dispatch';

/** Every public REST route. Declaring a route here serves it, documents it and lists it. */
export const restRoutes: readonly RestRoute[] = [...tokenRestRoutes];

export const restDispatcher = createRestDispatcher(restRoutes);
