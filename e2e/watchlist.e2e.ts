import type { Page as BrowserPage } from '@playwright/test';
import { formatNative } from '../components/ui/format';
import { WATCHLIST_KEY } from '../components/watchlist/watchlist';
import { apiGet, firstToken } from './api';
import { e2eChain, fundedWallet, launchBareToken, waitForIndexedHead } from './chain';
import { expect, test } from './fixtures';

const listRows = (page: BrowserPage) => page.locator('main .token-table tbody tr');
const namesInList = (page: BrowserPage) => listRows(page).locator('.token-name').allInnerTexts();
const star = (page: BrowserPage, name: string) => page.getByRole('button', { name: `Watch ${name}` });

type Batch = { items: { address: string; current_price: string; market_cap: string }[] };

async function openWatchlist(page: BrowserPage) {
  await page.getByRole('tab', { name: 'Watchlist' }).click();
  await expect(page.getByRole('tab', { name: 'Watchlist' })).toHaveAttribute('aria-selected', 'true');
  await expect(page).toHaveURL(/\?tab=watchlist$/);
}

function setStored(page: BrowserPage, value: string) {
  return page.evaluate(([key, stored]) => localStorage.setItem(key, stored), [WATCHLIST_KEY, value] as const);
}

test('the watchlist: starred from lists and a token page, followed live, kept across reloads and tabs, robust to what storage holds', async ({
  page,
  baseURL,
  request,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const kestrel = (await launchBareToken(50, 'Kestrel', 'KEST')).token.toLowerCase();
  await launchBareToken(51, 'Osprey', 'OSPR');
  await waitForIndexedHead(baseURL as string);
  const top = await firstToken(request, 'view=top&limit=1');

  // Two stars from the home list, one from a token page; a star is a named toggle button.
  await page.goto('/');
  for (const name of ['Kestrel', 'Osprey']) {
    await expect(star(page, name)).toHaveAttribute('aria-pressed', 'false');
    await star(page, name).click();
    await expect(star(page, name)).toHaveAttribute('aria-pressed', 'true');
  }
  await page.goto(`/tokens/${top.address}`);
  await star(page, top.name).click();
  await expect(star(page, top.name)).toHaveAttribute('aria-pressed', 'true');

  // The Watchlist tab: newest star first, the figures the batch read gives.
  await page.goto('/');
  await openWatchlist(page);
  await expect.poll(() => namesInList(page)).toEqual([top.name, 'Osprey', 'Kestrel']);
  const watched = await page.evaluate((key) => localStorage.getItem(key), WATCHLIST_KEY);
  const before = await apiGet<Batch>(
    request,
    `/api/v1/tokens/batch?addresses=${JSON.parse(watched ?? '[]')}`,
  );
  expect(await listRows(page).locator('[data-field="price"]').allInnerTexts()).toEqual(
    before.items.map((item) => formatNative(BigInt(item.current_price))),
  );

  // A trade on chain moves a watched token's figures without a reload.
  await expect(page.locator('.live-badge')).toHaveAttribute('data-status', 'live');
  const kestrelRow = listRows(page).filter({ hasText: 'Kestrel' });
  const priceBefore = await kestrelRow.locator('[data-field="price"]').textContent();
  const { actions } = e2eChain();
  await actions.buy({
    trader: await fundedWallet(52),
    token: kestrel as `0x${string}`,
    value: 5n * 10n ** 18n,
  });
  await waitForIndexedHead(baseURL as string);
  const [after] = (await apiGet<Batch>(request, `/api/v1/tokens/batch?addresses=${kestrel}`)).items;
  if (!after) throw new Error('Kestrel is not in the batch answer');
  const priceAfter = formatNative(BigInt(after.current_price));
  expect(priceAfter).not.toBe(priceBefore);
  await expect(kestrelRow.locator('[data-field="price"]')).toHaveText(priceAfter, { timeout: 10_000 });
  await expect(kestrelRow.locator('td[data-field="market-cap"]')).toHaveText(
    formatNative(BigInt(after.market_cap)),
  );

  // Unstarring drops the row at once, and another tab of the browser follows.
  const other = await page.context().newPage();
  await other.goto('/?tab=watchlist');
  await expect.poll(() => namesInList(other)).toEqual([top.name, 'Osprey', 'Kestrel']);
  await star(page, 'Osprey').click();
  await expect.poll(() => namesInList(page)).toEqual([top.name, 'Kestrel']);
  await expect.poll(() => namesInList(other)).toEqual([top.name, 'Kestrel']);
  await other.close();

  // Kept in the browser: a reload shows the same watchlist.
  await page.reload();
  await expect(page.getByRole('tab', { name: 'Watchlist' })).toHaveAttribute('aria-selected', 'true');
  await expect.poll(() => namesInList(page)).toEqual([top.name, 'Kestrel']);

  // Foreign entries are ignored; an address the index does not know is named apart and can be dropped.
  const unknown = `0x${'00'.repeat(19)}01`;
  await setStored(
    page,
    JSON.stringify([unknown, 42, 'nope', { a: 1 }, kestrel.toUpperCase().replace('0X', '0x')]),
  );
  await page.reload();
  await expect.poll(() => namesInList(page)).toEqual(['Kestrel']);
  const unlisted = page.getByRole('region', { name: 'Watched, but not in the lists' });
  await expect(unlisted.getByRole('listitem')).toHaveText(/not found in this index/);
  await unlisted.getByRole('button', { name: `Watch ${unknown}` }).click();
  await expect(unlisted).toHaveCount(0);
  await expect.poll(() => namesInList(page)).toEqual(['Kestrel']);

  // Corrupt storage: an empty watchlist that explains itself, and the page still works.
  await setStored(page, '{"not": json');
  await page.reload();
  await expect(page.getByTestId('empty-list')).toContainText('No watched tokens yet. Press the star (☆)');
  await page.getByRole('tab', { name: 'New' }).click();
  await star(page, 'Kestrel').click();
  await expect(star(page, 'Kestrel')).toHaveAttribute('aria-pressed', 'true');
  await openWatchlist(page);
  await expect.poll(() => namesInList(page)).toEqual(['Kestrel']);
  expect(await page.evaluate((key) => localStorage.getItem(key), WATCHLIST_KEY)).toBe(
    JSON.stringify([kestrel]),
  );
  expect(errors).toEqual([]);
});
