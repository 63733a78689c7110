import { holdingsInput, holdingsPage } from '../../../../shared/api/wallets';
import { defineRestRoute } from '../../rest/define';
import { listHoldings } from './router';

export const walletRestRoutes = [
  defineRestRoute({
    method: 'GET',
    path: '/api/v1/wallets/{address}/holdings',
    operationId: 'listWalletHoldings',
    summary: 'Wallet holdings',
    description:
      'Launched tokens the wallet holds (raw 18-decimal balance), with lifecycle, price and value (null for tokens excluded by moderation) and indexed metrics, by token address.',
    tags: ['wallets'],
    input: holdingsInput,
    output: holdingsPage,
    errors: ['invalid_address', 'invalid_parameter', 'invalid_cursor'],
    read: listHoldings,
  }),
];
