import {
  ContractFunctionExecutionError,
  ContractFunctionRevertedError,
  encodeErrorResult,
  UserRejectedRequestError,
} from 'viem';
import { describe, expect, it } from 'vitest';
import { bondingCurveAbi, devSwapRouterAbi } from '@/contracts/generated/abis.generated';
import { TransactionLostError } from '../wallet/wait-for-receipt';
import { describeTradeError } from './trade-errors';
import { TradeTransactionLostError } from './venue';

/** A revert as viem reports a failed writeContract: the decoded error inside the execution error. */
function reverted(
  abi: typeof bondingCurveAbi | typeof devSwapRouterAbi,
  errorName: string,
  args?: readonly bigint[],
) {
  const data = encodeErrorResult({ abi, errorName, args } as Parameters<typeof encodeErrorResult>[0]);
  const cause = new ContractFunctionRevertedError({ abi, data, functionName: 'buy' });
  return new ContractFunctionExecutionError(cause, { abi, functionName: 'buy', args: [] });
}

describe('describeTradeError', () => {
  it.each([
    ['Slippage', [5n, 10n], 'The price moved more than your slippage allows'],
    ['Expired', undefined, 'reached its deadline'],
    ['AlreadyGraduated', undefined, 'trades on its Uniswap V3 pool'],
    ['InsufficientLiquidity', undefined, 'Sell less'],
  ] as const)('names the curve’s %s revert', (name, args, text) => {
    expect(describeTradeError(reverted(bondingCurveAbi, name, args), 'the devnet')).toContain(text);
  });

  it('names the router’s reverts too', () => {
    expect(describeTradeError(reverted(devSwapRouterAbi, 'NoPool'), 'the devnet')).toContain('no pool');
    expect(describeTradeError(reverted(devSwapRouterAbi, 'Slippage', [1n, 2n]), 'the devnet')).toContain(
      'slippage',
    );
  });

  it('says a rejection in the wallet sent nothing, and falls back to the error’s own message', () => {
    expect(describeTradeError(new UserRejectedRequestError(new Error('denied')), 'the devnet')).toContain(
      'declined the request',
    );
    expect(describeTradeError(new Error('something else'), 'the devnet')).toBe('something else');
  });

  it('says a trade the network dropped may have been replaced from the wallet, and what to do', () => {
    const lost = new TransactionLostError(`0x${'cd'.repeat(32)}`, 60_000, 'dropped');
    const expected =
      'The network has not known this transaction for 60 s: it was dropped, or replaced from your wallet (a speed-up or a cancel). Keep waiting if your wallet still shows it pending; if it shows it dropped or failed, check your balance before trading again.';
    expect(describeTradeError(lost, 'the devnet')).toBe(expected);
    // As the venues throw it: the trade's own transaction, or the approval before it.
    expect(describeTradeError(new TradeTransactionLostError(lost), 'the devnet')).toBe(expected);
    expect(describeTradeError(new TradeTransactionLostError(lost, 'approval'), 'the devnet')).toBe(expected);
  });
});
