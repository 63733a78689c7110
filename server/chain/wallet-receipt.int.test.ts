import { createWalletClient, custom, defineChain, type Hash, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createConfig } from 'wagmi';
import { TransactionLostError, waitForReceipt } from '../../components/wallet/wait-for-receipt';
import { freePort } from '../../test/app-server';
import { type AnvilProcess, startAnvil } from './anvil';

// anvil's default account #1: funded at genesis, used by no other test on this chain.
const sender = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
let anvil: AnvilProcess;

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort() });
}, 60_000);
afterAll(() => anvil?.stop());

/**
 * A wagmi config on the real anvil whose RPC answers "no receipt" for `hiddenFor` ms after the
 * transaction is sent, as anvil's automine sometimes does for a moment after the new block
 * number: the window in which wagmi's block-driven wait checks once and then waits for a block
 * that a quiet chain never mines.
 */
function configHidingReceipts(hiddenFor: number) {
  const upstream = http(anvil.rpcUrl)({ retryCount: 0 });
  let hiddenUntil = 0;
  const chain = defineChain({
    id: 31337,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  const transport = custom({
    async request({ method, params }) {
      if (method === 'eth_sendRawTransaction') hiddenUntil = Date.now() + hiddenFor;
      if (method === 'eth_getTransactionReceipt' && Date.now() < hiddenUntil) return null;
      return upstream.request({ method, params } as never);
    },
  });
  return createConfig({ chains: [chain], transports: { [chain.id]: transport }, pollingInterval: 200 });
}

/** The sender's wallet, sending through `config`'s RPC (so its hiding sees the send). */
function senderOn(config: ReturnType<typeof configHidingReceipts>) {
  return createWalletClient({
    account: sender,
    chain: config.chains[0],
    transport: custom(config.getClient().transport),
  });
}

it('a receipt withheld past the block that mined it is still found, with no further block', async () => {
  const config = configHidingReceipts(1_000);
  const wallet = senderOn(config);
  const hash = await wallet.sendTransaction({ to: sender.address, value: parseEther('1') });

  const receipt = await waitForReceipt(config, 31337, hash);

  expect(receipt).toMatchObject({ transactionHash: hash, status: 'success' });
  // Nothing mined a block to wake the wait: the chain ends at the transaction's block.
  expect(BigInt(await config.getClient().request({ method: 'eth_blockNumber' }))).toBe(receipt.blockNumber);
}, 30_000);

it('a reverted transaction resolves with its reverted receipt, for the caller to explain', async () => {
  const config = configHidingReceipts(0);
  const wallet = senderOn(config);
  // Init code that reverts at once: a contract creation that fails on chain (gas set, so no estimate).
  const hash = await wallet.sendTransaction({ data: '0x60006000fd', gas: 100_000n });
  const receipt = await waitForReceipt(config, 31337, hash);
  expect(receipt).toMatchObject({ transactionHash: hash, status: 'reverted' });
}, 30_000);

/**
 * Runs `body` with anvil mining only when asked (`evm_mine`), on a transfer sent just before it
 * (pending in anvil's pool) and a config that hides no receipt.
 */
async function withPendingTransfer(
  body: (config: ReturnType<typeof configHidingReceipts>, hash: Hash) => Promise<void>,
) {
  const admin = http(anvil.rpcUrl)({ retryCount: 0 });
  await admin.request({ method: 'evm_setAutomine', params: [false] } as never);
  try {
    const config = configHidingReceipts(0);
    const hash = await senderOn(config).sendTransaction({ to: sender.address, value: parseEther('1') });
    await body(config, hash);
  } finally {
    await admin.request({ method: 'evm_setAutomine', params: [true] } as never);
  }
}

it('a transaction the node drops from its pool ends the wait with TransactionLostError, not "Waiting…" for good', async () => {
  await withPendingTransfer(async (config, hash) => {
    // Evicted as a node under pressure does, or as a wallet's cancel leaves the original.
    await config.getClient().request({ method: 'anvil_dropTransaction', params: [hash] } as never);
    const started = Date.now();
    const waited = waitForReceipt(config, 31337, hash, { droppedAfterMs: 1_000 });
    await expect(waited).rejects.toBeInstanceOf(TransactionLostError);
    await expect(waited).rejects.toMatchObject({ reason: 'dropped' });
    await expect(waited).rejects.toThrow(/dropped, or replaced from your wallet/);
    // Given up after the node did not know it for the window, not at the first miss.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
}, 30_000);

it('a transaction pending for longer than that window is still waited for while the node knows it', async () => {
  await withPendingTransfer(async (config, hash) => {
    const waited = waitForReceipt(config, 31337, hash, { droppedAfterMs: 500 });
    // Four windows pending in the node's pool, then mined.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await config.getClient().request({ method: 'evm_mine', params: [] } as never);
    await expect(waited).resolves.toMatchObject({ transactionHash: hash, status: 'success' });
  });
}, 30_000);

it("a node that freezes (open sockets, no answers) ends the wait at the deadline, not at its requests' timeouts", async () => {
  await withPendingTransfer(async (config, hash) => {
    const pid = anvil.process.pid as number;
    process.kill(pid, 'SIGSTOP');
    try {
      const started = Date.now();
      const waited = waitForReceipt(config, 31337, hash, { droppedAfterMs: 1_000 });
      await expect(waited).rejects.toMatchObject({ name: 'TransactionLostError', reason: 'no answer' });
      await expect(waited).rejects.toThrow(/has not answered for 1 s.*may still be mined/);
      // The requests in flight hang until viem's 10 s timeout; the wait did not wait for them.
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });
}, 30_000);
