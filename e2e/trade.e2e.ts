import type { Page } from '@playwright/test';
import { e2eChain, fundedWallet, NO_METADATA, waitForIndexedHead } from './chain';
import { expect, test } from './fixtures';

async function connectTestWallet(page: Page) {
  const header = page.getByRole('banner');
  await header.getByRole('button', { name: 'Connect wallet' }).click();
  await header.getByRole('button', { name: /Devnet test wallet/ }).click();
  await expect(header.getByRole('button', { name: /0xa0Ee…9720/i })).toBeVisible();
}

test('trade from the token page: buy on the curve, see it in the trades and the chart within 2 s, sell', async ({
  page,
  baseURL,
}) => {
  const { actions } = e2eChain();
  const { token } = await actions.launch({
    creator: await fundedWallet(30),
    name: 'Trade Floor',
    symbol: 'FLOOR',
    supply: 10n ** 27n,
    metadataHash: NO_METADATA,
  });
  const address = token.toLowerCase();
  await waitForIndexedHead(baseURL as string);
  await page.goto(`/tokens/${address}`);
  await expect(page.locator('.live-badge')).toHaveAttribute('data-status', 'live');
  await connectTestWallet(page);
  const panel = page.getByRole('region', { name: 'Trade' });
  const trades = page.getByTestId('trades-table').locator('tbody tr');
  await expect(page.getByText('No trades indexed yet.')).toBeVisible();

  // Buy: the curve's quote, then the trade, then the indexed row and candle without a reload.
  await panel.getByLabel('Pay (native)').fill('0.5');
  await expect(panel.getByTestId('trade-quote')).toContainText('You receive about');
  await panel.getByRole('button', { name: 'Buy FLOOR' }).click();
  await expect(panel.getByRole('status')).toContainText('Bought in block', { timeout: 15_000 });
  await expect(trades).toHaveCount(1, { timeout: 2_000 });
  await expect(trades.first()).toContainText('Buy');
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-candles', /^[1-9]/, { timeout: 2_000 });

  // A slippage the form refuses, then a sell of part of what was bought.
  await panel.getByRole('radio', { name: 'Sell' }).check({ force: true });
  await panel.getByLabel('Slippage (%)').fill('75');
  await expect(panel.getByText('Slippage is a percentage from 0.01 to 50.')).toBeVisible();
  await panel.getByLabel('Slippage (%)').fill('2');
  await panel.getByLabel('Sell (FLOOR)').fill('1000');
  await expect(panel.getByTestId('trade-quote')).toContainText('You receive about $');
  await panel.getByRole('button', { name: 'Sell FLOOR' }).click();
  await expect(panel.getByRole('status')).toContainText('Sold in block', { timeout: 15_000 });
  await expect(trades).toHaveCount(2, { timeout: 2_000 });
  await expect(trades.first()).toContainText('Sell');

  // More than the wallet holds is refused before anything is sent.
  await panel.getByLabel('Sell (FLOOR)').fill('999999999999');
  await expect(panel.getByText(/More than your balance/)).toBeVisible();
  await expect(panel.getByRole('button', { name: 'Sell FLOOR' })).toBeDisabled();
});
