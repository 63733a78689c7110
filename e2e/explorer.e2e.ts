import type { Page as BrowserPage } from '@playwright/test';
import { type ApiToken, apiGet, firstToken, type Page } from './api';
import { e2eChain, fundedWallet, launchBareToken, waitForIndexedHead } from './chain';
import { expect, test } from './fixtures';

const listRows = (page: BrowserPage) => page.locator('main .token-table tbody tr');

async function namesInList(page: BrowserPage): Promise<string[]> {
  return listRows(page).locator('.token-name').allInnerTexts();
}

test('every home tab shows what the API lists for it', async ({ page, request }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Token launches' })).toBeVisible();
  for (const [tab, path] of [
    ['New', '/api/v1/tokens?view=new'],
    ['Top', '/api/v1/tokens?view=top'],
    ['Near graduation', '/api/v1/tokens?view=near'],
    ['Trending', '/api/v1/tokens/trending'],
  ] as const) {
    await page.getByRole('tab', { name: tab }).click();
    await expect(page.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
    const expected = (
      await apiGet<Page<ApiToken>>(request, `${path}&limit=20`.replace('trending&', 'trending?'))
    ).items;
    expect(expected.length).toBeGreaterThan(0);
    await expect.poll(() => namesInList(page)).toEqual(expected.map((token) => token.name));
  }
  await page.getByRole('tab', { name: 'Near graduation' }).click();
  await expect(listRows(page).getByText('Graduated')).toHaveCount(0);
  // Keyboard: arrows move between the tabs (one tab stop), selecting as they go.
  await page.getByRole('tab', { name: 'Near graduation' }).press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'Linked' })).toBeFocused();
  await expect(page.getByRole('tab', { name: 'Linked' })).toHaveAttribute('aria-selected', 'true');
  await page.getByRole('tab', { name: 'Linked' }).press('ArrowLeft');
  await expect(page.getByRole('tab', { name: 'Near graduation' })).toHaveAttribute('aria-selected', 'true');
  await page.getByRole('tab', { name: 'Trending' }).click();
  await expect(page.getByText('It is not an endorsement.')).toBeVisible();
  // The tab lives in the URL, so a reload keeps it.
  await expect(page).toHaveURL(/\?tab=trending$/);
  await page.reload();
  await expect(page.getByRole('tab', { name: 'Trending' })).toHaveAttribute('aria-selected', 'true');
});

test('the Linked tab says plainly when no token has links yet, or lists them', async ({ page, request }) => {
  const linked = await apiGet<Page<ApiToken>>(request, '/api/v1/tokens?view=linked');
  await page.goto('/?tab=linked');
  if (linked.items.length === 0)
    await expect(page.getByTestId('empty-list')).toHaveText('No tokens here yet.');
  else await expect.poll(() => namesInList(page)).toEqual(linked.items.map((token) => token.name));
});

test('Load more walks the API cursor without duplicates', async ({ page, request }) => {
  const all = await apiGet<Page<ApiToken>>(request, '/api/v1/tokens?limit=100');
  expect(all.items.length).toBeGreaterThan(20);
  await page.goto('/');
  await expect(listRows(page)).toHaveCount(20);
  await page.getByRole('button', { name: 'Load more' }).click();
  await expect(listRows(page)).toHaveCount(Math.min(40, all.items.length));
  const names = await namesInList(page);
  expect(names).toEqual(all.items.slice(0, names.length).map((token) => token.name));
});

test('search is debounced into the URL, matches the API and explains bad input', async ({
  page,
  request,
}) => {
  const target = await firstToken(request, 'view=top&limit=1');
  const prefix = target.symbol.slice(0, 3).toLowerCase();
  const expected = await apiGet<Page<ApiToken>>(
    request,
    `/api/v1/tokens?search=${encodeURIComponent(prefix)}`,
  );
  await page.goto('/');
  await page.getByRole('searchbox', { name: 'Search tokens' }).fill(prefix);
  await expect(page).toHaveURL(new RegExp(`\\?q=${prefix}$`));
  await expect.poll(() => namesInList(page)).toEqual(expected.items.map((token) => token.name));
  for (const tab of ['New', 'Top']) {
    await expect(page.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'false');
  }
  await page.getByRole('searchbox', { name: 'Search tokens' }).fill('a<b');
  await expect(page.locator('.field-error')).toHaveText(
    'Search may contain only letters, numbers, spaces, dots, underscores and hyphens.',
  );
  await page.getByRole('searchbox', { name: 'Search tokens' }).fill('zzzzqqq');
  await expect(page.getByTestId('empty-list')).toHaveText('No tokens match “zzzzqqq”.');
  await page.getByRole('searchbox', { name: 'Search tokens' }).fill('');
  await expect(page).toHaveURL(/\/$/);
});

type Chart = { items: { time: number; open: string; close: string }[] };

test('the token page draws the candles the API returns, per interval', async ({ page, request }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const token = await firstToken(request, 'view=top&limit=1');
  await page.goto('/');
  await page.getByRole('tab', { name: 'Top' }).click();
  // Only once the Top list has replaced New is its first row the top token.
  await expect(listRows(page).first().locator('.token-name')).toHaveText(token.name);
  await listRows(page).first().getByRole('link').click();
  await expect(page).toHaveURL(`/tokens/${token.address}`);
  await expect(page.getByRole('heading', { level: 1, name: token.name })).toBeVisible();
  // Who holds the supply, as the detail reports it.
  const detail = await apiGet<{ concentration: { top10_holders_bps: number } }>(
    request,
    `/api/v1/tokens/${token.address}`,
  );
  await expect(
    page.getByLabel('Supply held by').locator('.stat', { hasText: 'Top 10 holders' }).locator('dd'),
  ).toHaveText(
    `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 }).format(detail.concentration.top10_holders_bps / 100)}%`,
  );
  for (const interval of ['1h', '1m', '1d'] as const) {
    await page.getByRole('radio', { name: interval }).check();
    const chart = await apiGet<Chart>(
      request,
      `/api/v1/tokens/${token.address}/chart?interval=${interval}&limit=300`,
    );
    expect(chart.items.length).toBeGreaterThan(0);
    const canvas = page.getByTestId('price-chart');
    await expect(canvas).toHaveAttribute('data-interval', interval);
    await expect(canvas).toHaveAttribute('data-candles', String(chart.items.length));
    const rows = page.locator('.chart-data tbody tr');
    await expect(rows).toHaveCount(chart.items.length);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-time'))))).toEqual(
      chart.items.map((item) => item.time),
    );
  }
  // The candles are painted: the chart's canvases hold more than one colour.
  const colours = await page.getByTestId('price-chart').evaluate((element) => {
    const seen = new Set<string>();
    for (const canvas of element.querySelectorAll('canvas')) {
      const context = canvas.getContext('2d');
      if (!context || canvas.width === 0) continue;
      const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 0; i < data.length; i += 397 * 4)
        seen.add(`${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`);
    }
    return seen.size;
  });
  expect(colours).toBeGreaterThan(3);
  expect(errors).toEqual([]);
});

type Trades = { items: { transaction_hash: string; log_index: number }[]; next_cursor: string | null };

test('trades paginate in reverse chain order exactly as the API pages them', async ({ page, request }) => {
  const tokens = (await apiGet<Page<ApiToken>>(request, '/api/v1/tokens?view=top&limit=100')).items;
  let chosen: { token: ApiToken; first: Trades } | undefined;
  for (const token of tokens) {
    const first = await apiGet<Trades>(request, `/api/v1/tokens/${token.address}/trades?limit=25`);
    if (first.next_cursor) {
      chosen = { token, first };
      break;
    }
  }
  if (!chosen) throw new Error('the fixture has no token with more than 25 trades');
  const second = await apiGet<Trades>(
    request,
    `/api/v1/tokens/${chosen.token.address}/trades?limit=25&cursor=${chosen.first.next_cursor}`,
  );
  await page.goto(`/tokens/${chosen.token.address}`);
  const rows = page.getByTestId('trades-table').locator('tbody tr');
  await expect(rows).toHaveCount(25);
  await page.getByRole('button', { name: 'Older trades' }).click();
  await expect(rows).toHaveCount(25 + second.items.length);
  const keys = await rows.evaluateAll((trs) =>
    trs.map((tr) => `${tr.getAttribute('data-tx')}:${tr.getAttribute('data-log')}`),
  );
  expect(keys).toEqual(
    [...chosen.first.items, ...second.items].map((t) => `${t.transaction_hash}:${t.log_index}`),
  );
  await expect(rows.first().locator('.badge')).toHaveText(/Curve|Uniswap V3/);

  await page.getByRole('tab', { name: 'Activity' }).click();
  await expect(page.getByTestId('activity-table').locator('tbody tr').first()).toBeVisible();
  await page.getByLabel('Kind').selectOption('launch');
  await expect(page.getByTestId('activity-table').locator('tbody tr')).toHaveCount(1);
  await page.getByRole('tab', { name: 'Activity' }).press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'Holders' })).toBeFocused();
  await expect(page.getByTestId('holders-table').locator('tbody tr').first()).toBeVisible();
});

type Holdings = { items: { token: { address: string }; balance: string; price: string | null }[] };
type Holders = { items: { wallet: string }[] };

test("a simulator wallet's holdings page lists its indexed balances", async ({ page, request }) => {
  const token = await firstToken(request, 'view=top&limit=1');
  const holders = await apiGet<Holders>(request, `/api/v1/tokens/${token.address}/holders?limit=5`);
  const wallet =
    holders.items.find((holder) => holder.wallet !== token.creator)?.wallet ?? holders.items[0]?.wallet;
  if (!wallet) throw new Error('no holder');
  const holdings = await apiGet<Holdings>(request, `/api/v1/wallets/${wallet}/holdings?limit=50`);
  await page.goto(`/tokens/${token.address}`);
  await page.getByRole('tab', { name: 'Holders' }).click();
  await page
    .getByRole('link', { name: `Wallet ${wallet}` })
    .first()
    .click();
  await expect(page).toHaveURL(`/wallets/${wallet}`);
  const rows = page.getByTestId('holdings-table').locator('tbody tr');
  await expect(rows).toHaveCount(holdings.items.length);
  expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-token')))).toEqual(
    holdings.items.map((h) => h.token.address),
  );
  expect(
    await rows
      .locator('[data-balance]')
      .evaluateAll((tds) => tds.map((td) => td.getAttribute('data-balance'))),
  ).toEqual(holdings.items.map((h) => h.balance));
});

test('a creator page shows the record and the tokens, linked from the token header', async ({
  page,
  request,
}) => {
  const token = await firstToken(request, 'limit=1');
  const creatorTokens = await apiGet<Page<ApiToken>>(
    request,
    `/api/v1/creators/${token.creator}/tokens?limit=20`,
  );
  await page.goto(`/tokens/${token.address}`);
  await page.getByRole('link', { name: `Creator ${token.creator}` }).click();
  await expect(page).toHaveURL(`/creators/${token.creator}`);
  await expect(page.getByRole('heading', { name: 'Creator' })).toBeVisible();
  await expect.poll(() => namesInList(page)).toEqual(creatorTokens.items.map((t) => t.name));
});

test('creator-supplied names render as text, never as markup', async ({ page, baseURL }) => {
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const { token } = await launchBareToken(1, '<img src=x onerror=alert(1)>', 'XSS');
  await waitForIndexedHead(baseURL as string);
  await page.goto('/');
  const row = listRows(page).first();
  await expect(row).toContainText('<img src=x onerror=alert(1)>');
  await expect(page.locator('main img[src="x"]')).toHaveCount(0);
  await page.goto(`/tokens/${token.toLowerCase()}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('<img src=x onerror=alert(1)>');
  expect(dialogs).toEqual([]);
});

test('unknown and malformed addresses get a plain not-found page', async ({ page }) => {
  for (const path of [
    '/tokens/0x0000000000000000000000000000000000000001',
    '/tokens/nope',
    '/creators/0x12',
  ]) {
    const response = await page.goto(path);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();
  }
});

test('at 375 px the home and token pages fit the screen, in dark mode too', async ({ page, request }) => {
  await page.setViewportSize({ width: 375, height: 812 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');
  await expect(listRows(page).first()).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(14, 16, 21)');
  const [token] = (await apiGet<Page<ApiToken>>(request, '/api/v1/tokens?limit=1')).items;
  await page.goto(`/tokens/${token?.address}`);
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-candles', /\d+/);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  const [first] = (await apiGet<Page<ApiToken>>(request, '/api/v1/tokens?view=top&limit=1')).items;
  const holders = await apiGet<Holders>(request, `/api/v1/tokens/${first?.address}/holders?limit=1`);
  for (const path of ['/launch', `/creators/${first?.creator}`, `/wallets/${holders.items[0]?.wallet}`]) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(375);
  }
});

test('lists, trades and the chart update live from the stream, without a reload', async ({
  page,
  baseURL,
}) => {
  const { actions } = e2eChain();
  await page.goto('/');
  await expect(page.locator('.live-badge')).toHaveAttribute('data-status', 'live');
  const { token } = await launchBareToken(2, 'Live Wire', 'LIVE');
  await waitForIndexedHead(baseURL as string);
  await expect(listRows(page).first().locator('.token-name')).toHaveText('Live Wire', { timeout: 10_000 });

  const address = token.toLowerCase();
  await listRows(page).first().getByRole('link').click();
  await expect(page).toHaveURL(`/tokens/${address}`);
  await expect(page.locator('.live-badge')).toHaveAttribute('data-status', 'live');
  const trades = page.getByTestId('trades-table').locator('tbody tr');
  await expect(page.getByText('No trades indexed yet.')).toBeVisible();
  await page.getByRole('radio', { name: '1m' }).check();
  for (let i = 1; i <= 3; i++) {
    await actions.buy({ trader: await fundedWallet(10 + i), token, value: BigInt(i) * 10n ** 18n });
    await expect(trades).toHaveCount(i, { timeout: 10_000 });
  }
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-candles', /^[1-9]/);
  // The header's stats follow too: three buyers hold the token now.
  await expect(
    page.getByLabel('Market statistics').locator('.stat', { hasText: 'Holders' }).locator('dd'),
  ).toHaveText('3');

  // A wallet page follows its balances: another buy raises the balance shown, without a reload.
  const trader = await fundedWallet(11);
  await page.goto(`/wallets/${trader}`);
  const balance = page.locator(`tr[data-token="${address}"] [data-balance]`);
  const before = BigInt((await balance.getAttribute('data-balance')) ?? '0');
  expect(before).toBeGreaterThan(0n);
  await actions.buy({ trader, token, value: 10n ** 18n });
  await expect
    .poll(async () => BigInt((await balance.getAttribute('data-balance')) ?? '0'), { timeout: 10_000 })
    .toBeGreaterThan(before);
});
