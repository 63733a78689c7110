import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { launchShowcaseToken } from './showcase';

/**
 * Pictures of the main pages on the real stack. They land in test-results/screenshots; with
 * SCREENSHOT_DIR=docs/screenshots (npm run screenshots) they refresh the README's pictures.
 */
const directory = process.env.SCREENSHOT_DIR ?? path.join('test-results', 'screenshots');

async function shoot(page: Page, name: string, options: { fullPage?: boolean } = {}) {
  // Relative ages tick; let fonts and canvases settle so pictures are stable.
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(directory, `${name}.png`), fullPage: options.fullPage ?? false });
}

test('screenshots of the main pages, light and dark, desktop and phone', async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  const url = baseURL as string;
  const featured = await launchShowcaseToken(url, {
    name: 'Aurora Finch',
    symbol: 'FINCH',
    description: 'A community token for bird watchers. Every trade funds a nest box (claims unverified).',
    buys: [3n, 5n, 2n, 8n, 4n, 6n, 3n, 7n, 2n, 5n].map((whole) => whole * 10n ** 18n),
  });
  await launchShowcaseToken(url, {
    name: 'Harbor Light',
    symbol: 'HARBR',
    description: 'Lighthouse keepers of the devnet.',
    buys: [4n * 10n ** 18n, 6n * 10n ** 18n],
  });

  await page.setViewportSize({ width: 1280, height: 860 });
  await page.goto('/');
  await expect(page.locator('main .token-table tbody tr').first()).toBeVisible();
  await expect(page.locator('main .token-table img').first()).toBeVisible();
  await shoot(page, 'home');

  await page.goto('/?tab=linked');
  await expect(page.locator('main .token-table tbody tr').first()).toContainText('Harbor Light');

  await page.goto(`/tokens/${featured}`);
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-candles', /\d+/);
  await page.getByRole('radio', { name: '1m' }).check();
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-interval', '1m');
  await expect(page.getByTestId('trades-table')).toBeVisible();
  await shoot(page, 'token', { fullPage: true });

  const busiest = await page.request.get('/api/v1/tokens?view=top&limit=1');
  const [top] = ((await busiest.json()) as { items: { address: string; creator: string }[] }).items;
  if (!top) throw new Error('no tokens');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`/tokens/${top.address}`);
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-candles', /\d+/);
  await shoot(page, 'token-dark');

  await page.goto('/?tab=trending');
  await expect(page.locator('main .token-table tbody tr').first()).toBeVisible();
  await shoot(page, 'home-trending-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  await page.goto(`/creators/${top.creator}`);
  await expect(page.locator('main .token-table tbody tr').first()).toBeVisible();
  await shoot(page, 'creator');

  const holders = await page.request.get(`/api/v1/tokens/${top.address}/holders?limit=3`);
  const wallet = ((await holders.json()) as { items: { wallet: string }[] }).items.at(-1)?.wallet;
  await page.goto(`/wallets/${wallet}`);
  await expect(page.getByTestId('holdings-table')).toBeVisible();
  await shoot(page, 'wallet');

  await page.goto('/launch');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await shoot(page, 'launch', { fullPage: true });

  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto('/');
  await expect(page.locator('main .token-table tbody tr').first()).toBeVisible();
  await shoot(page, 'home-phone');
  await page.goto(`/tokens/${featured}`);
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-candles', /\d+/);
  await shoot(page, 'token-phone');
});
