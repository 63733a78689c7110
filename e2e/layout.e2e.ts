import type { Page as BrowserPage, Locator } from '@playwright/test';
import { type ApiToken, apiGet, type Page } from './api';
import { expect, test } from './fixtures';

async function box(locator: Locator) {
  const found = await locator.boundingBox();
  if (!found) throw new Error('not laid out');
  return found;
}

async function openBusiestToken(page: BrowserPage) {
  const [top] = (await apiGet<Page<ApiToken>>(page.request, '/api/v1/tokens?view=top&limit=1')).items;
  if (!top) throw new Error('no tokens');
  await page.goto(`/tokens/${top.address}`);
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-candles', /\d+/);
  return {
    chart: page.getByRole('region', { name: 'Price' }),
    panel: page.getByRole('region', { name: 'Trade' }),
  };
}

test('at 1440x900 the chart is in the first viewport with the trade panel to its right', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const { chart, panel } = await openBusiestToken(page);
  const chartBox = await box(chart);
  const panelBox = await box(panel);
  const candles = await box(page.getByTestId('price-chart'));
  test.info().annotations.push({
    type: 'layout',
    description: `chart ${JSON.stringify(chartBox)}, candles ${JSON.stringify(candles)}, panel ${JSON.stringify(panelBox)}`,
  });
  expect(chartBox.y).toBeLessThan(900);
  // The candles themselves, not just the chart's heading, are above the fold.
  expect(candles.y + candles.height).toBeLessThanOrEqual(900);
  expect(panelBox.x).toBeGreaterThanOrEqual(chartBox.x + chartBox.width);
  expect(Math.abs(panelBox.y - chartBox.y)).toBeLessThanOrEqual(1);
  expect(chartBox.width).toBeGreaterThan(panelBox.width);
});

test('at 375x812 the trade panel comes below the chart, and the page does not scroll sideways', async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 812 });
  const { chart, panel } = await openBusiestToken(page);
  const chartBox = await box(chart);
  const panelBox = await box(panel);
  expect(chartBox.y).toBeLessThan(812);
  expect(panelBox.y).toBeGreaterThanOrEqual(chartBox.y + chartBox.height);
  expect(panelBox.x + panelBox.width).toBeLessThanOrEqual(375);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
});

test('at 375 px a token row is compact: name, price, 24h change and market cap on screen, nothing cut', async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto('/');
  const rows = page.locator('main .token-table tbody tr');
  await expect(rows.first()).toBeVisible();
  const overflow = await page.evaluate(() => ({
    page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
    tables: [...document.querySelectorAll('main .table-scroll')].map((element) => [
      element.scrollWidth,
      element.clientWidth,
    ]),
  }));
  expect(overflow.page[0]).toBeLessThanOrEqual(overflow.page[1] ?? 0);
  expect(overflow.tables.length).toBeGreaterThan(0);
  for (const [scrollWidth, clientWidth] of overflow.tables)
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth ?? 0);

  const count = Math.min(await rows.count(), 5);
  for (let index = 0; index < count; index++) {
    const row = rows.nth(index);
    const fields = [
      row.locator('.token-name'),
      row.locator('[data-field="price"]'),
      row.locator('[data-field="change"]').filter({ visible: true }),
      row.locator('[data-field="market-cap"]').filter({ visible: true }),
    ];
    for (const field of fields) {
      await expect(field).toHaveCount(1);
      await expect(field).toBeVisible();
      await expect(field).not.toBeEmpty();
      const { x, width } = await box(field);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x + width).toBeLessThanOrEqual(375);
    }
  }
  // The wide columns are the token page's: hidden here, not squeezed.
  await expect(page.locator('main .token-table thead th', { hasText: 'Volume 24h' })).toBeHidden();
});
