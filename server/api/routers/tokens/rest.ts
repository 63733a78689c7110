import { defineRestRoute } from '../../rest/define';
import { listTokensInput, tokenAddressInput, tokenDetail, tokenPage } from './schemas';

export const tokenRestRoutes = [
  defineRestRoute({
    method: 'GET',
    path: '/api/v1/tokens',
    operationId: 'listTokens',
    summary: 'List tokens',
    description:
      'Canonical, non-excluded tokens, newest launch first unless `view` picks another order. `search` and `view` cannot be combined. Names, images and links are supplied by creators and unverified.',
    tags: ['tokens'],
    input: listTokensInput,
    output: tokenPage,
    errors: ['invalid_parameter', 'search_view_conflict', 'invalid_cursor'],
    call: (caller, input) => caller.tokens.list(input),
  }),
  defineRestRoute({
    method: 'GET',
    path: '/api/v1/tokens/{address}',
    operationId: 'getToken',
    summary: 'Token detail',
    description:
      'Identity, bound metadata, creation provenance, curve state, metrics and (once graduated) graduation data, read in one snapshot with `indexed_through_block`.',
    tags: ['tokens'],
    input: tokenAddressInput,
    output: tokenDetail,
    errors: ['invalid_address', 'not_found'],
    call: (caller, input) => caller.tokens.byAddress(input),
  }),
];
