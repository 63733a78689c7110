import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withGasHeadroom } from '../../shared/chain/gas';
import { fundedAddress, startTestChain, type TestChain } from '../../test/chain';
import { devSwapRouterAbi } from './abis';

let chain: TestChain;
beforeAll(async () => {
  chain = await startTestChain();
}, 120_000);
afterAll(() => chain?.stop());

describe('gas headroom', () => {
  // What the trade panel met in the browser tests: a sale estimated in the second of the
  // previous swap, mined in the next. The pool then writes a price observation the estimate did
  // not pay for, runs out of gas in its callback, and the router reverts with no reason.
  it('a swap estimated in one second and mined in the next reverts on its bare estimate, not with headroom', async () => {
    const { client, actions, deployment } = chain;
    const stable = deployment.contracts.stable;
    const trader = await fundedAddress(chain, 1, 10n ** 27n);
    const { token } = await actions.launch({
      creator: await fundedAddress(chain, 2),
      name: 'Headroom',
      symbol: 'ROOM',
      supply: 10n ** 27n,
      metadataHash: `0x${'00'.repeat(32)}`,
      firstBuy: 500n * 10n ** 18n, // graduates: the token trades on its pool
    });
    await actions.wrap({ account: trader, value: 10n ** 24n });
    await actions.approveRouter({ account: trader, token: stable });
    await actions.approveRouter({ account: trader, token });
    await actions.swap({ trader, tokenIn: stable, tokenOut: token, amountIn: 2_000_000_000n });

    const outcomes: string[] = [];
    for (const headroom of [false, true]) {
      const swapped = await client.getBlock();
      const sale = {
        address: deployment.contracts.router,
        abi: devSwapRouterAbi,
        functionName: 'exactInputSingle',
        args: [token, stable, 1000n * 10n ** 18n, 0n, trader, 2n ** 40n],
        account: trader,
      } as const;
      const estimate = await client.estimateContractGas({ ...sale, blockTag: 'latest' });
      await client.test.setNextBlockTimestamp({ timestamp: swapped.timestamp + 1n });
      const hash = await client.writeContract({
        ...sale,
        gas: headroom ? withGasHeadroom(estimate) : estimate,
      });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 25 });
      outcomes.push(`${headroom ? 'with headroom' : 'bare estimate'}: ${receipt.status}`);
    }
    expect(outcomes).toEqual(['bare estimate: reverted', 'with headroom: success']);
  });
});
