import { addressPageInput, balancesPageInput } from '../../../../shared/api/common';
import { walletPnlPage } from '../../../../shared/api/traders';
import { holdingsPage } from '../../../../shared/api/wallets';
import type { ErrorCode } from '../../../errors';
import { defineRestRoute, routeGroup } from '../../rest/define';
import { listWalletPnl } from '../../traders/read';
import { createTRPCRouter } from '../../trpc';
import { listHoldings } from './router';

const walletPageErrors: ErrorCode[] = ['invalid_address', 'invalid_parameter', 'invalid_cursor'];

export const walletRoutes = routeGroup('wallets', {
  listWalletHoldings: defineRestRoute({
    path: '/api/v1/wallets/{address}/holdings',
    summary: 'Wallet holdings',
    description:
      'Launched tokens the wallet holds (raw 18-decimal balance), with lifecycle, price and value (null for tokens excluded by moderation) and indexed metrics, by token address. With `block`, the tokens it held at the end of that block and their balances then, from the indexed balance history; the token, price, value and metrics are as they are now (docs/api.md, "Balances at a block").',
    input: balancesPageInput,
    errors: walletPageErrors,
    output: holdingsPage,
    read: listHoldings,
  }),
  listWalletPnl: defineRestRoute({
    path: '/api/v1/wallets/{address}/pnl',
    summary: 'Wallet PnL',
    description:
      'Per token the wallet traded or holds: tokens and quote bought and sold, average-cost basis, realized PnL, unrealized PnL at the current price, position and labels (docs/api.md "Traders, PnL and labels"), by token address.',
    input: addressPageInput,
    errors: walletPageErrors,
    output: walletPnlPage,
    read: listWalletPnl,
  }),
});

/** In the registry's order. */
export const walletRestRoutes = Object.values(walletRoutes);

/** The reads' own procedures (server/api/rest/define.ts). */
export const walletsRouter = createTRPCRouter({
  holdings: walletRoutes.listWalletHoldings.procedure,
  pnl: walletRoutes.listWalletPnl.procedure,
});
