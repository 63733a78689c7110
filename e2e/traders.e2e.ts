import type { APIRequestContext, Page as BrowserPage } from '@playwright/test';
import type { Address } from 'viem';
import { formatBps } from '../components/ui/format';
import { runLabelScenario } from '../server/chain/simulator/label-scenario';
import { apiGet, type Page } from './api';
import { e2eChain, fundedWallet, waitForIndexedHead } from './chain';
import { expect, test } from './fixtures';

interface ApiTrader {
  wallet: string;
  realized_pnl: string;
  unrealized_pnl: string;
  balance: string;
  labels: string[];
}
interface ApiPnl {
  token: string;
  realized_pnl: string;
  unrealized_pnl: string | null;
}
type Risk = Record<
  | 'sniper_bps'
  | 'sniper_wallets'
  | 'bundler_bps'
  | 'bundler_wallets'
  | 'creator_linked_bps'
  | 'creator_linked_wallets'
  | 'creator_sold_bps',
  number
>;

/**
 * One launch with a known answer (server/chain/simulator/label-scenario.ts): the creator's first
 * buy and five more wallets buying in the launch block (snipers and bundlers), a contract's buy
 * handed to three wallets the next block (snipers and bundlers), two wallets the creator funded
 * before their first buy (creator-linked, the first a sniper too), a wallet the creator sent
 * tokens to (creator-linked) that sold half, a bundler that sold out, a creator that sold half of
 * its buy.
 */
let scenario: { token: string; creator: string; linked: Address; bundlers: Address[] };

test.beforeAll(async () => {
  const { client, deployment, actions } = e2eChain();
  const wallets = await Promise.all([0, 1, 2, 3, 4, 5, 6].map((i) => fundedWallet(300 + i)));
  const [creator, linked, ...bundlers] = wallets as [Address, Address, ...Address[]];
  const run = await runLabelScenario(client, deployment, actions, { creator, linked, bundlers }, 30);
  scenario = {
    token: run.token.toLowerCase(),
    creator: run.creator.toLowerCase(),
    linked: run.linked,
    bundlers: run.bundlers,
  };
});

const traders = async (request: APIRequestContext, sort: string) =>
  (await apiGet<Page<ApiTrader>>(request, `/api/v1/tokens/${scenario.token}/traders?sort=${sort}&limit=25`))
    .items;

const shownWallets = (page: BrowserPage) =>
  page
    .getByTestId('traders-table')
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-wallet')));

test('token page: the risk summary equals the API, the Top traders tab sorts, pages and labels, live', async ({
  page,
  baseURL,
}) => {
  await waitForIndexedHead(baseURL as string);
  const detail = await apiGet<{ risk: Risk }>(page.request, `/api/v1/tokens/${scenario.token}`);
  // The scenario's answer, so the browser is checked against figures that mean something.
  expect(detail.risk).toMatchObject({ sniper_wallets: 9, bundler_wallets: 8, creator_linked_wallets: 3 });
  expect(detail.risk.creator_sold_bps).toBeGreaterThan(0);

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/tokens/${scenario.token}`);
  await expect(page.getByLabel('Supply held now by labelled traders')).toBeVisible();
  for (const label of ['sniper', 'bundler', 'creator_linked'] as const) {
    const figure = page.getByLabel('Supply held now by labelled traders').locator(`[data-field="${label}"]`);
    await expect(figure).toHaveAttribute('data-bps', String(detail.risk[`${label}_bps`]));
    await expect(figure).toHaveAttribute('data-wallets', String(detail.risk[`${label}_wallets`]));
    await expect(figure).toContainText(formatBps(detail.risk[`${label}_bps`]));
  }
  const sold = page.getByLabel('Supply held now by labelled traders').locator('[data-field="creator_sold"]');
  await expect(sold).toHaveAttribute('data-bps', String(detail.risk.creator_sold_bps));
  await expect(sold).toContainText(formatBps(detail.risk.creator_sold_bps));

  await expect(page.locator('.live-badge')).toHaveAttribute('data-status', 'live');
  await page.getByRole('tab', { name: 'Top traders' }).click();
  const table = page.getByTestId('traders-table');
  const byPnl = await traders(page.request, 'realized_pnl');
  await expect(table.locator('tbody tr')).toHaveCount(byPnl.length);
  expect(await shownWallets(page)).toEqual(byPnl.map((t) => t.wallet));
  // Each row's realized PnL is the API's, to the wei (data-value), and shown as a signed amount.
  for (const trader of byPnl)
    await expect(
      table.locator(`tr[data-wallet="${trader.wallet}"] [data-field="realized-pnl"] [data-value]`),
    ).toHaveAttribute('data-value', trader.realized_pnl);

  // Labels as badges with their definitions.
  const creatorRow = table.locator(`tr[data-wallet="${scenario.creator}"]`);
  await expect(creatorRow.locator('[data-label="creator"]')).toBeVisible();
  const bundler = table.locator(`tr[data-wallet="${(scenario.bundlers[1] as string).toLowerCase()}"]`);
  await expect(bundler.locator('[data-label="sniper"]')).toBeVisible();
  await expect(bundler.locator('[data-label="bundler"]')).toHaveAttribute('title', /launch block/);
  await expect(
    table.locator(`tr[data-wallet="${scenario.linked.toLowerCase()}"] [data-label="creator_linked"]`),
  ).toBeVisible();

  await page.getByTestId('traders-table').scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('traders-1440.png'), fullPage: true });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1440);

  // The sort switch: each order is the API's, and the two differ here.
  const byHolding = await traders(page.request, 'holding');
  expect(byHolding.map((t) => t.wallet)).not.toEqual(byPnl.map((t) => t.wallet));
  await page.getByRole('radio', { name: 'Holding' }).check();
  await expect.poll(() => shownWallets(page)).toEqual(byHolding.map((t) => t.wallet));
  await page.getByRole('radio', { name: 'Volume' }).check();
  const byVolume = await traders(page.request, 'volume');
  await expect.poll(() => shownWallets(page)).toEqual(byVolume.map((t) => t.wallet));

  // Live: a sell by the creator-linked wallet changes its realized PnL on screen, without a reload.
  const linked = scenario.linked.toLowerCase();
  const before = byVolume.find((t) => t.wallet === linked);
  const { actions } = e2eChain();
  await actions.sell({
    trader: scenario.linked,
    token: scenario.token as Address,
    amount: BigInt(before?.balance ?? 0) / 2n,
  });
  await waitForIndexedHead(baseURL as string);
  const after = (await traders(page.request, 'volume')).find((t) => t.wallet === linked);
  expect(after?.realized_pnl).not.toBe(before?.realized_pnl);
  await expect(
    table.locator(`tr[data-wallet="${linked}"] [data-field="realized-pnl"] [data-value]`),
  ).toHaveAttribute('data-value', after?.realized_pnl ?? '', { timeout: 5_000 });
});

test('wallet page: PnL per token and totals equal the API', async ({ page, baseURL }) => {
  await waitForIndexedHead(baseURL as string);
  const pnl = (await apiGet<Page<ApiPnl>>(page.request, `/api/v1/wallets/${scenario.creator}/pnl?limit=100`))
    .items;
  const row = pnl.find((item) => item.token === scenario.token);
  expect(row).toBeDefined();
  await page.goto(`/wallets/${scenario.creator}`);
  const table = page.getByTestId('pnl-table');
  await expect(table.locator('tbody tr')).toHaveCount(pnl.length);
  const shown = table.locator(`tr[data-token="${scenario.token}"]`);
  await expect(shown.locator('[data-field="realized-pnl"] [data-value]')).toHaveAttribute(
    'data-value',
    row?.realized_pnl ?? '',
  );
  await expect(shown.locator('[data-field="unrealized-pnl"] [data-value]')).toHaveAttribute(
    'data-value',
    row?.unrealized_pnl ?? '',
  );
  await expect(shown.locator('[data-label="creator"]')).toBeVisible();
  await expect(shown).toContainText(`BND30`);
  const sum = (field: 'realized_pnl' | 'unrealized_pnl') =>
    pnl.reduce((total, item) => total + BigInt(item[field] ?? 0), 0n).toString();
  const totals = page.getByTestId('wallet-totals');
  await expect(totals.locator('[data-total="realized_pnl"] [data-value]')).toHaveAttribute(
    'data-value',
    sum('realized_pnl'),
  );
  await expect(totals.locator('[data-total="unrealized_pnl"] [data-value]')).toHaveAttribute(
    'data-value',
    sum('unrealized_pnl'),
  );
});

test('at 375 px the traders tab, the risk summary and the wallet PnL fit the screen', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 812 });
  const overflow = () =>
    page.evaluate(() => ({
      page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
      // Tables on screen (the candles table waits folded in its <details>).
      tables: [...document.querySelectorAll('main .table-scroll')]
        .filter((element) => element.checkVisibility())
        .map((element) => [element.scrollWidth, element.clientWidth]),
    }));
  const fits = async () => {
    const found = await overflow();
    expect(found.page[0]).toBeLessThanOrEqual(found.page[1] ?? 0);
    expect(found.tables.length).toBeGreaterThan(0);
    for (const [scrollWidth, clientWidth] of found.tables)
      expect(scrollWidth).toBeLessThanOrEqual(clientWidth ?? 0);
  };
  await page.goto(`/tokens/${scenario.token}`);
  await page.getByRole('tab', { name: 'Top traders' }).click();
  await expect(page.getByTestId('traders-table').locator('tbody tr').first()).toBeVisible();
  // Every figure of the risk summary is on screen horizontally (two panels a row on a phone).
  for (const field of ['sniper', 'bundler', 'creator_linked', 'creator_sold']) {
    const figure = await page.locator(`[data-field="${field}"]`).boundingBox();
    expect(figure?.x ?? -1, field).toBeGreaterThanOrEqual(0);
    expect((figure?.x ?? 0) + (figure?.width ?? 1000), field).toBeLessThanOrEqual(375);
  }
  await fits();
  await page.screenshot({ path: test.info().outputPath('traders-375.png'), fullPage: true });
  // The wallet column and its badges stay on screen: the wide columns are the ones hidden.
  const badge = await page
    .getByTestId('traders-table')
    .locator('[data-label="bundler"]')
    .first()
    .boundingBox();
  expect((badge?.x ?? 0) + (badge?.width ?? 0)).toBeLessThanOrEqual(375);
  await page.goto(`/wallets/${scenario.creator}`);
  await expect(page.getByTestId('pnl-table')).toContainText('BND30');
  await fits();
  await page.screenshot({ path: test.info().outputPath('wallet-375.png'), fullPage: true });
});
