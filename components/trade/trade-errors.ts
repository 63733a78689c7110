import { BaseError, ContractFunctionRevertedError } from 'viem';
import { TransactionLostError } from '@/components/wallet/wait-for-receipt';
import { describeWalletError } from '@/components/wallet/wallet-errors';

/** The curve's and the router's revert reasons in plain words (contracts/src). */
const reverts: Record<string, string> = {
  Slippage:
    'The price moved more than your slippage allows. Nothing was traded; try again or allow more slippage.',
  Expired: 'The trade reached its deadline before it was mined. Nothing was traded; try again.',
  AlreadyGraduated: 'This token has graduated: it now trades on its Uniswap V3 pool, not on the curve.',
  InsufficientLiquidity: 'The curve does not hold enough to pay for this sale. Sell less.',
  ZeroAmount: 'The amount is too small to trade.',
  NoPool: 'There is no pool for this token on the configured router.',
};

/** A trade failure in plain words: a revert by name, else the wallet's or the network's. */
export function describeTradeError(error: unknown, chainName: string): string {
  if (error instanceof TransactionLostError)
    return `${error.message} Keep waiting if your wallet still shows it pending; if it shows it dropped or failed, check your balance before trading again.`;
  if (error instanceof BaseError) {
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
    const name = reverted instanceof ContractFunctionRevertedError ? reverted.data?.errorName : undefined;
    if (name && reverts[name]) return reverts[name];
  }
  const wallet = describeWalletError(error, chainName);
  if (wallet)
    return wallet.replace(
      'for this launch (first buy plus network fee)',
      'for this trade (amount plus network fee)',
    );
  return error instanceof Error ? error.message : String(error);
}
