import type { Logger } from 'pino';
import { errorResponse, jsonResponse } from '../api/rest/dispatch';
import type { Config } from '../config';
import { AppError } from '../errors';
import { readJsonBody } from '../metadata/json-body';

/** A raw launch transaction is ~1 KiB; this leaves room for any contract a developer deploys. */
export const DEVNET_RPC_MAX_BYTES = 256 * 1024;

/**
 * What a browser wallet needs: reads, fee data, receipts and signed transactions. Everything else
 * is refused, above all `eth_sendTransaction` (anvil runs with --auto-impersonate, so it would
 * send as any address unsigned) and the anvil_/evm_/debug_ methods that rewrite the chain.
 */
const allowedMethods = new Set([
  'eth_chainId',
  'net_version',
  'web3_clientVersion',
  'eth_blockNumber',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getTransactionCount',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getLogs',
  'eth_call',
  'eth_estimateGas',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'eth_sendRawTransaction',
]);

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
}

export interface DevnetRpcProxyServices {
  config: Config;
  /** Where an unexpected failure is logged (the process's logger). */
  logger: Logger;
  fetch?: typeof fetch;
}

/**
 * Forwards a browser's JSON-RPC request to the local devnet's anvil, which listens on loopback
 * only. 404 unless the app runs on the local devnet (an RPC_URL chain is never proxied), 413 past
 * {@link DEVNET_RPC_MAX_BYTES}, and methods outside the wallet allowlist answer JSON-RPC error
 * -32601 without reaching anvil.
 * @example const answer = await proxyDevnetRpc(request, { config, logger });
 */
export async function proxyDevnetRpc(request: Request, services: DevnetRpcProxyServices): Promise<Response> {
  const { config } = services;
  try {
    if (config.chainSource !== 'devnet' || !config.chain)
      throw new AppError('not_found', 'no devnet RPC here: this deployment indexes an external chain');
    const body = await readJsonBody(request, { maxBytes: DEVNET_RPC_MAX_BYTES });
    const calls = (Array.isArray(body) ? body : [body]) as JsonRpcRequest[];
    if (calls.length === 0 || calls.some((call) => typeof call !== 'object' || call === null))
      throw new AppError('invalid_parameter', 'send a JSON-RPC request object or a batch of them');
    const refused = calls.filter((call) => !allowedMethods.has(String(call.method)));
    if (refused.length > 0) {
      const errors = refused.map((call) => ({
        jsonrpc: '2.0',
        id: call.id ?? null,
        error: { code: -32601, message: `${String(call.method)} is not available through the devnet proxy` },
      }));
      return jsonResponse(200, Array.isArray(body) ? errors : errors[0]);
    }
    let upstream: Response;
    try {
      upstream = await (services.fetch ?? fetch)(config.chain.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
    } catch {
      throw new AppError('unavailable', 'the devnet RPC could not be reached; is the devnet running?');
    }
    return new Response(await upstream.text(), {
      status: upstream.status,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    });
  } catch (error) {
    return errorResponse(error, services.logger);
  }
}
