import { addressInput, addressPageInput } from '../../../../shared/api/common';
import { creator } from '../../../../shared/api/creators';
import { tokenPage } from '../../../../shared/api/tokens';
import { defineRestRoute, routeGroup } from '../../rest/define';
import { createTRPCRouter } from '../../trpc';
import { getCreator, listCreatorTokens } from './router';

export const creatorRoutes = routeGroup('creators', {
  getCreator: defineRestRoute({
    path: '/api/v1/creators/{address}',
    summary: 'Creator',
    description:
      'Launch and graduation counts, first and last launch, and total volume over the creator’s canonical tokens.',
    input: addressInput,
    output: creator,
    errors: ['invalid_address', 'not_found'],
    read: getCreator,
  }),
  listCreatorTokens: defineRestRoute({
    path: '/api/v1/creators/{address}/tokens',
    summary: 'Tokens of a creator',
    description:
      'The creator’s canonical, non-excluded tokens, newest first. An address without launches has an empty page.',
    input: addressPageInput,
    output: tokenPage,
    errors: ['invalid_address', 'invalid_parameter', 'invalid_cursor'],
    read: listCreatorTokens,
  }),
});

/** In the registry's order. */
export const creatorRestRoutes = Object.values(creatorRoutes);

/** The reads' own procedures (server/api/rest/define.ts). */
export const creatorsRouter = createTRPCRouter({
  byAddress: creatorRoutes.getCreator.procedure,
  tokens: creatorRoutes.listCreatorTokens.procedure,
});
