import { walletPnlInput, walletPnlPage } from '../../../../shared/api/traders';
import { holdingsInput, holdingsPage } from '../../../../shared/api/wallets';
import { defineRestRoute } from '../../rest/define';
import { listWalletPnl } from '../../traders/read';
import { createTRPCRouter } from '../../trpc';
import { listHoldings } from './router';

export const walletRoutes = {
  listWalletHoldings: defineRestRoute({
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
  listWalletPnl: defineRestRoute({
    method: 'GET',
    path: '/api/v1/wallets/{address}/pnl',
    operationId: 'listWalletPnl',
    summary: 'Wallet PnL',
    description:
      'Per token the wallet traded or holds: tokens and quote bought and sold, average-cost basis, realized PnL, unrealized PnL at the current price, position and labels (docs/api.md "Traders, PnL and labels"), by token address.',
    tags: ['wallets'],
    input: walletPnlInput,
    output: walletPnlPage,
    errors: ['invalid_address', 'invalid_parameter', 'invalid_cursor'],
    read: listWalletPnl,
  }),
};

/** In the registry's order. */
export const walletRestRoutes = Object.values(walletRoutes);

/** The reads' own procedures (server/api/rest/define.ts). */
export const walletsRouter = createTRPCRouter({
  holdings: walletRoutes.listWalletHoldings.procedure,
  pnl: walletRoutes.listWalletPnl.procedure,
});
