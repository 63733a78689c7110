import { BaseError } from 'viem';

/** viem/wagmi error names, as `name` on the error or on any error in its cause chain. */
function causeNames(error: unknown): { names: Set<string>; codes: Set<number>; text: string } {
  const names = new Set<string>();
  const codes = new Set<number>();
  let text = '';
  let current: unknown = error;
  for (let depth = 0; current && depth < 12; depth++) {
    const e = current as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown };
    if (typeof e.name === 'string') names.add(e.name);
    if (typeof e.code === 'number') codes.add(e.code);
    if (typeof e.message === 'string') text += ` ${e.message}`;
    current = e.cause;
  }
  return { names, codes, text: text.toLowerCase() };
}

/**
 * A wallet or chain failure in plain words, or null when it is not one (the caller then
 * describes it). Recognised by error name and EIP-1193 code through the whole cause chain, since
 * wagmi and viem wrap the wallet's own error.
 */
export function describeWalletError(error: unknown, chainName: string): string | null {
  const { names, codes, text } = causeNames(error);
  if (names.has('UserRejectedRequestError') || codes.has(4001) || text.includes('user rejected'))
    return 'You declined the request in your wallet. Nothing was sent; you can try again.';
  if (names.has('InsufficientFundsError') || text.includes('insufficient funds'))
    return 'Your wallet does not have enough funds for this launch (first buy plus network fee).';
  if (
    names.has('ChainMismatchError') ||
    names.has('ConnectorChainMismatchError') ||
    names.has('ChainNotConfiguredError') ||
    names.has('SwitchChainError') ||
    codes.has(4902)
  )
    return `Your wallet is on another network. Switch it to ${chainName} and try again.`;
  if (names.has('ProviderNotFoundError'))
    return 'No browser wallet was found. Install a wallet extension, or use another browser.';
  if (names.has('ConnectorNotConnectedError') || names.has('ConnectorAccountNotFoundError'))
    return 'Connect a wallet first.';
  if (names.has('ContractFunctionRevertedError') || names.has('ContractFunctionExecutionError')) {
    const reason = error instanceof BaseError ? error.shortMessage : '';
    return `The launch contract refused the transaction${reason ? `: ${reason}` : ''}.`;
  }
  if (
    names.has('HttpRequestError') ||
    names.has('TimeoutError') ||
    names.has('WebSocketRequestError') ||
    text.includes('failed to fetch') ||
    text.includes('networkerror')
  )
    return 'The network could not be reached. Check your connection and try again.';
  if (error instanceof BaseError) return error.shortMessage;
  return null;
}
