import type { Page as BrowserPage, Locator } from '@playwright/test';
import type { Hex } from 'viem';
import { formatNative, formatTokenAmount } from '../components/ui/format';
import { quoteCurveTrade } from '../shared/chain/curve-quote';
import { readCurveState } from '../shared/chain/read-curve-state';
import { type ApiToken, apiGet, type Page } from './api';
import { e2eChain, launchBareToken, setAutomine, TEST_WALLET, waitForIndexedHead } from './chain';
import { expect, test } from './fixtures';

async function connectTestWallet(page: BrowserPage) {
  const header = page.getByRole('banner');
  await header.getByRole('button', { name: 'Connect wallet' }).click();
  await header.getByRole('button', { name: /Devnet test wallet/ }).click();
  await expect(header.getByRole('button', { name: /0xa0Ee…9720/i })).toBeVisible();
}

/**
 * Waits for the trade panel to report the trade `done` (its status text), or fails at once with
 * the panel's own words when it reports a failure instead of waiting out the timeout.
 */
async function expectTraded(panel: Locator, done: string) {
  const failure = panel.getByRole('alert');
  await expect(panel.getByRole('status').filter({ hasText: done }).or(failure)).toBeVisible({
    timeout: 20_000,
  });
  if (await failure.isVisible()) throw new Error(`the trade failed: ${await failure.textContent()}`);
}

/**
 * A fresh token launched by funded wallet `creatorIndex`, its page open once indexed and live,
 * the test wallet connected: the page and the token's trade panel.
 */
async function tradeOnNewToken(
  page: BrowserPage,
  baseURL: string | undefined,
  launch: { creatorIndex: number; name: string; symbol: string },
) {
  const { token, curve } = await launchBareToken(launch.creatorIndex, launch.name, launch.symbol);
  await waitForIndexedHead(baseURL as string);
  await page.goto(`/tokens/${token.toLowerCase()}`);
  await expect(page.locator('.live-badge')).toHaveAttribute('data-status', 'live');
  await connectTestWallet(page);
  return { token, curve, panel: page.getByRole('region', { name: 'Trade' }) };
}

test('trade from the token page: buy on the curve, see it in the trades and the chart within 2 s, sell', async ({
  page,
  baseURL,
}) => {
  const { panel } = await tradeOnNewToken(page, baseURL, {
    creatorIndex: 30,
    name: 'Trade Floor',
    symbol: 'FLOOR',
  });
  const trades = page.getByTestId('trades-table').locator('tbody tr');
  await expect(page.getByText('No trades indexed yet.')).toBeVisible();

  // Buy: the curve's quote, then the trade, then the indexed row and candle without a reload.
  await panel.getByLabel('Pay (native)').fill('0.5');
  await expect(panel.getByTestId('trade-quote')).toContainText('You receive about');
  await panel.getByRole('button', { name: 'Buy FLOOR' }).click();
  await expectTraded(panel, 'Bought in block');
  await expect(trades).toHaveCount(1, { timeout: 2_000 });
  await expect(trades.first()).toContainText('Buy');
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-candles', /^[1-9]/, { timeout: 2_000 });

  // A slippage the form refuses, then a sell of part of what was bought.
  await panel.getByRole('radio', { name: 'Sell' }).check();
  await panel.getByLabel('Slippage (%)').fill('75');
  await expect(panel.getByText('Slippage is a percentage from 0.01 to 50.')).toBeVisible();
  await panel.getByLabel('Slippage (%)').fill('2');
  await panel.getByLabel('Sell (FLOOR)').fill('1000');
  await expect(panel.getByTestId('trade-quote')).toContainText('You receive about $');
  await panel.getByRole('button', { name: 'Sell FLOOR' }).click();
  await expectTraded(panel, 'Sold in block');
  await expect(trades).toHaveCount(2, { timeout: 2_000 });
  await expect(trades.first()).toContainText('Sell');

  // More than the wallet holds is refused before anything is sent.
  await panel.getByLabel('Sell (FLOOR)').fill('999999999999');
  await expect(panel.getByText(/More than your balance/)).toBeVisible();
  await expect(panel.getByRole('button', { name: 'Sell FLOOR' })).toBeDisabled();
});

test('the buy that graduates a token: quoted with the cap, spends only what fills the curve, refunds the rest', async ({
  page,
  baseURL,
}) => {
  const { client } = e2eChain();
  const { token, curve, panel } = await tradeOnNewToken(page, baseURL, {
    creatorIndex: 31,
    name: 'Cap Edge',
    symbol: 'CAPE',
  });
  const address = token.toLowerCase();
  await expect(panel).toContainText('Trades on the curve.');

  // 500 native is far past the threshold: the contract's `quoteBuy` view would promise tokens for
  // all of it, the capped buy returns fewer and a minimum out from the view reverted it.
  const value = 500n * 10n ** 18n;
  const expected = quoteCurveTrade(await readCurveState(client, curve), 'buy', value);
  if (!expected.ok || !expected.capped) throw new Error('500 native should be a capped buy');
  await panel.getByLabel('Pay (native)').fill('500');
  await expect(panel.getByTestId('trade-quote')).toContainText(
    `You receive about ${formatTokenAmount(expected.out)} CAPE`,
  );
  const note = panel.getByTestId('trade-quote-note');
  await expect(note).toContainText('graduates the token');
  await expect(note).toContainText(`only ${formatNative(expected.spent)} is spent`);
  await expect(note).toContainText(`${formatNative(expected.refund)} is refunded`);
  await panel.getByRole('button', { name: 'Buy CAPE' }).click();
  await expectTraded(panel, 'Bought in block');

  await expect(page.getByTestId('trades-table').locator('tbody tr')).toHaveCount(1, { timeout: 2_000 });
  const trades = await apiGet<Page<{ side: string; token_amount: string; reserve_amount: string }>>(
    page.request,
    `/api/v1/tokens/${address}/trades?limit=1`,
  );
  // Executed as quoted: the tokens the panel promised, and only the capped gross taken.
  expect(trades.items[0]).toMatchObject({
    side: 'buy',
    token_amount: expected.out.toString(),
    reserve_amount: expected.spent.toString(),
  });
  // Once the graduation is indexed the page follows it live: the panel moves to the pool.
  await expect(page.getByRole('heading', { name: 'Graduation' })).toBeVisible({ timeout: 5_000 });
  await expect(panel).toContainText('Trades on the Uniswap V3 pool.');
});

test('after graduation the panel trades on the Uniswap V3 pool: wrap, approve and swap, then sell back', async ({
  page,
  request,
}) => {
  const top = (await apiGet<Page<ApiToken>>(request, '/api/v1/tokens?view=top&limit=100')).items;
  const graduated = top.find((token) => token.lifecycle === 'graduated');
  if (!graduated) throw new Error('the fixture has no graduated token');
  const before = (
    await apiGet<{ items: unknown[] }>(request, `/api/v1/tokens/${graduated.address}/trades?limit=100`)
  ).items.length;
  await page.goto(`/tokens/${graduated.address}`);
  await expect(page.locator('.live-badge')).toHaveAttribute('data-status', 'live');
  await connectTestWallet(page);
  const panel = page.getByRole('region', { name: 'Trade' });
  await expect(panel).toContainText('Trades on the Uniswap V3 pool.');
  const trades = page.getByTestId('trades-table').locator('tbody tr');

  await panel.getByLabel('Pay (native)').fill('2');
  await expect(panel.getByTestId('trade-quote')).toContainText(`You receive about`);
  await expect(panel.getByTestId('trade-quote')).toContainText('Pool fee 0.3%');
  await panel.getByRole('button', { name: `Buy ${graduated.symbol}` }).click();
  await expectTraded(panel, 'Bought in block');
  await expect(trades.first()).toContainText('Uniswap V3', { timeout: 2_000 });
  await expect(trades.first()).toContainText('Buy');

  await panel.getByRole('radio', { name: 'Sell' }).check();
  await panel.getByLabel(`Sell (${graduated.symbol})`).fill('1000');
  await expect(panel.getByTestId('trade-quote')).toContainText('You receive about $');
  await panel.getByRole('button', { name: `Sell ${graduated.symbol}` }).click();
  await expectTraded(panel, 'Sold in block');
  await expect(trades.first()).toContainText('Sell', { timeout: 2_000 });
  const after = (
    await apiGet<{ items: unknown[] }>(request, `/api/v1/tokens/${graduated.address}/trades?limit=100`)
  ).items.length;
  expect(after).toBe(Math.min(100, before + 2));
});

/** The test wallet's transaction waiting in anvil's pool (automine off). */
async function pendingFromTestWallet(): Promise<Hex> {
  const block = (await e2eChain().client.request({
    method: 'eth_getBlockByNumber',
    params: ['pending', true],
  } as never)) as { transactions: { hash: Hex; from: string }[] };
  const sent = block.transactions.find((tx) => tx.from.toLowerCase() === TEST_WALLET);
  if (!sent) throw new Error('no transaction of the test wallet is pending');
  return sent.hash;
}

test('a trade whose transaction the network drops: after 60 s the panel says so, and keeps waiting when asked until it is mined', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const { panel } = await tradeOnNewToken(page, baseURL, {
    creatorIndex: 32,
    name: 'Lost Ledger',
    symbol: 'LOST',
  });
  const { client } = e2eChain();
  await panel.getByLabel('Pay (native)').fill('0.1');
  await expect(panel.getByTestId('trade-quote')).toContainText('You receive about');
  await setAutomine(false);
  try {
    await panel.getByRole('button', { name: 'Buy LOST' }).click();
    await expect(panel.getByRole('status')).toContainText('Waiting for the transaction to be mined', {
      timeout: 20_000,
    });
    const hash = await pendingFromTestWallet();
    const raw = await client.request({ method: 'eth_getRawTransactionByHash', params: [hash] } as never);
    await client.request({ method: 'anvil_dropTransaction', params: [hash] } as never);
    await expect(panel.getByRole('alert')).toContainText(
      'The network has not known this transaction for 60 s',
      { timeout: 90_000 },
    );
    await setAutomine(true);
    // The wallet sends it again, as wallets rebroadcast what they still hold, and the person keeps waiting.
    await client.request({ method: 'eth_sendRawTransaction', params: [raw] } as never);
    await panel.getByRole('button', { name: 'Keep waiting' }).click();
    await expectTraded(panel, 'Bought in block');
    await expect(page.getByTestId('trades-table').locator('tbody tr')).toHaveCount(1, { timeout: 5_000 });
  } finally {
    await setAutomine(true);
  }
});
