import { creator, creatorInput, creatorTokensInput } from '../../../../shared/api/creators';
import { tokenPage } from '../../../../shared/api/tokens';
import { defineRestRoute } from '../../rest/define';
import { createTRPCRouter } from '../../trpc';
import { getCreator, listCreatorTokens } from './router';

export const creatorRoutes = {
  getCreator: defineRestRoute({
    method: 'GET',
    path: '/api/v1/creators/{address}',
    operationId: 'getCreator',
    summary: 'Creator',
    description:
      'Launch and graduation counts, first and last launch, and total volume over the creator’s canonical tokens.',
    tags: ['creators'],
    input: creatorInput,
    output: creator,
    errors: ['invalid_address', 'not_found'],
    read: (ctx, input) => getCreator(ctx, input.address),
  }),
  listCreatorTokens: defineRestRoute({
    method: 'GET',
    path: '/api/v1/creators/{address}/tokens',
    operationId: 'listCreatorTokens',
    summary: 'Tokens of a creator',
    description:
      'The creator’s canonical, non-excluded tokens, newest first. An address without launches has an empty page.',
    tags: ['creators'],
    input: creatorTokensInput,
    output: tokenPage,
    errors: ['invalid_address', 'invalid_parameter', 'invalid_cursor'],
    read: listCreatorTokens,
  }),
};

/** In the registry's order. */
export const creatorRestRoutes = Object.values(creatorRoutes);

/** The reads' own procedures (server/api/rest/define.ts). */
export const creatorsRouter = createTRPCRouter({
  byAddress: creatorRoutes.getCreator.procedure,
  tokens: creatorRoutes.listCreatorTokens.procedure,
});
