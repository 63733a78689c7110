import type { Page, Request } from '@playwright/test';
import sharp from 'sharp';
import { createPublicClient, type Hex, http } from 'viem';
import { e2eChain, setAutomine, TEST_WALLET } from './chain';
import { e2eEnv, freezeIndexedHead, releaseIndexedHead } from './control';
import { expect, test } from './fixtures';

let logo: Buffer;
let launches = 0;

test.beforeAll(async () => {
  logo = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#1e90ff' } })
    .png()
    .toBuffer();
});

async function connectTestWallet(page: Page) {
  await page.goto('/launch');
  await expect(page.getByRole('heading', { name: 'Launch a token' })).toBeVisible();
  const header = page.getByRole('banner');
  await header.getByRole('button', { name: 'Connect wallet' }).click();
  await header.getByRole('button', { name: /Devnet test wallet/ }).click();
  await expect(header.getByRole('button', { name: /0xa0Ee…9720/i })).toBeVisible();
  await expect(header).toContainText('devnet test wallet');
}

async function fillLaunchForm(
  page: Page,
  options: { symbol?: string; image?: { name: string; mimeType: string; buffer: Buffer } } = {},
) {
  launches++;
  const name = `E2E Rocket ${launches} ${Date.now() % 100_000}`;
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Symbol', { exact: true }).fill(options.symbol ?? `RKT${launches}`);
  await page.getByLabel('Initial supply (whole tokens)').fill('1000000');
  await page.getByLabel('Description', { exact: true }).fill('<b>not bold</b> launched from the browser');
  await page
    .getByLabel('Image file')
    .setInputFiles(options.image ?? { name: 'logo.png', mimeType: 'image/png', buffer: logo });
  await page.getByLabel('Website', { exact: true }).fill('https://rocket.example/');
  await page.getByLabel('X (Twitter)').fill('https://x.com/rocket');
  await page.getByLabel(/First buy/).fill('0.25');
  return name;
}

/** Records uploads, so a test can prove a refused form sent nothing. */
function watchUploads(page: Page): Request[] {
  const uploads: Request[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/api/v1/token-metadata')) uploads.push(request);
  });
  return uploads;
}

test('launch with the devnet test wallet: upload, launch, sign, finalize, then the token page', async ({
  page,
  request,
}) => {
  await connectTestWallet(page);
  const name = await fillLaunchForm(page);
  await expect(page.getByRole('img', { name: /Preview of the chosen token logo/ })).toHaveAttribute(
    'src',
    /^blob:/,
  );
  await page.getByRole('button', { name: 'Launch token' }).click();
  await expect(page).toHaveURL(/\/tokens\/0x[0-9a-f]{40}$/, { timeout: 45_000 });
  const token = new URL(page.url()).pathname.split('/').at(-1) as string;

  const newest = await (await request.get('/api/v1/tokens?view=new')).json();
  expect(newest.items[0]).toMatchObject({ address: token, name, creator: TEST_WALLET });
  const linked = await (await request.get('/api/v1/tokens?view=linked')).json();
  expect(linked.items[0].address).toBe(token);
  const detail = await (await request.get(`/api/v1/tokens/${token}`)).json();
  expect(detail.metadata).toMatchObject({
    description: '<b>not bold</b> launched from the browser',
    website_url: 'https://rocket.example/',
    x_url: 'https://x.com/rocket',
    telegram_url: null,
    discord_url: null,
  });
  expect(detail.metadata.draft_id).toMatch(/^d_/);
  expect(detail.metadata.image_url).toMatch(/^\/objects\/[0-9a-f]{64}\.png$/);
  expect(detail.identity.total_supply).toBe((10n ** 24n).toString());

  // The token page shows the bound metadata as text, its links safely, its image from /objects.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
  await expect(page.getByText('<b>not bold</b> launched from the browser')).toBeVisible();
  const website = page
    .getByRole('list', { name: 'Links supplied by the creator' })
    .getByRole('link', { name: 'Website' });
  await expect(website).toHaveAttribute('href', 'https://rocket.example/');
  await expect(website).toHaveAttribute('rel', 'noopener noreferrer nofollow ugc');
  await expect(page.locator('.token-header img')).toHaveAttribute('src', detail.metadata.image_url);
  // And the finalized token leads the New and Linked tabs of the explorer.
  for (const tab of ['New', 'Linked']) {
    await page.goto(`/${tab === 'New' ? '' : '?tab=linked'}`);
    await expect(page.locator('main .token-table tbody tr').first().locator('.token-name')).toHaveText(name);
  }
});

test('finalize waits for a lagging index, showing the indexed block, and completes once it catches up', async ({
  page,
}) => {
  const client = createPublicClient({ transport: http(e2eEnv('E2E_RPC_URL')) });
  await connectTestWallet(page);
  await fillLaunchForm(page);
  const head = Number(await client.getBlockNumber());
  await freezeIndexedHead(head);
  try {
    await page.getByRole('button', { name: 'Launch token' }).click();
    // The launch is mined in block head + 1 (automine) while the index stays at head.
    await expect(page.getByRole('status')).toContainText(`indexed through block ${head} of ${head + 1}`, {
      timeout: 30_000,
    });
    await expect(page.getByRole('listitem').filter({ hasText: 'Finalize the metadata' })).toHaveAttribute(
      'data-state',
      'current',
    );
    await expect(page).toHaveURL(/\/launch$/);
  } finally {
    await releaseIndexedHead();
  }
  await expect(page).toHaveURL(/\/tokens\/0x[0-9a-f]{40}$/, { timeout: 45_000 });
});

/**
 * Launches the filled form with mining off, drops the launch transaction from anvil's pool (its
 * raw bytes kept, as a wallet keeps them) and waits for the form to say it is lost; mining is on
 * again from then. `then` runs next; mining is on again whatever happens.
 */
async function launchDropped(page: Page, then: (dropped: { hash: Hex; raw: Hex }) => Promise<void>) {
  const { client } = e2eChain();
  const rpc = (method: string, params: unknown[]) => client.request({ method, params } as never);
  await setAutomine(false);
  try {
    await page.getByRole('button', { name: 'Launch token' }).click();
    const waiting = page
      .getByRole('status')
      .filter({ hasText: /Waiting for the receipt of transaction 0x[0-9a-f]{64}/ });
    await expect(waiting).toBeVisible({ timeout: 30_000 });
    const hash = /0x[0-9a-f]{64}/.exec((await waiting.textContent()) ?? '')?.[0] as Hex;
    const raw = (await rpc('eth_getRawTransactionByHash', [hash])) as Hex;
    await rpc('anvil_dropTransaction', [hash]);
    await expect(page.getByRole('alert').filter({ hasText: /./ })).toContainText(
      'The network has not known this transaction for 60 s',
      { timeout: 90_000 },
    );
    await expect(page.getByRole('button', { name: 'Keep waiting' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Send a new launch transaction' })).toBeVisible();
    await setAutomine(true);
    await then({ hash, raw });
  } finally {
    await setAutomine(true);
  }
}

test('a launch transaction the network drops: after 60 s the form offers to keep waiting or to send a new one, which launches the token once', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  await connectTestWallet(page);
  const name = await fillLaunchForm(page);
  const uploads = watchUploads(page);
  await launchDropped(page, async () => {
    await page.getByRole('button', { name: 'Send a new launch transaction' }).click();
    await expect(page).toHaveURL(/\/tokens\/0x[0-9a-f]{40}$/, { timeout: 45_000 });
  });
  // The draft was uploaded once, and one token bears the name: the dropped transaction launched nothing.
  const drafts = uploads.filter(
    (upload) => upload.method() === 'POST' && new URL(upload.url()).pathname === '/api/v1/token-metadata',
  );
  expect(drafts).toHaveLength(1);
  const newest = await (await request.get('/api/v1/tokens?view=new&limit=20')).json();
  expect(newest.items.filter((item: { name: string }) => item.name === name)).toHaveLength(1);
});

test('a launch transaction the network drops and the wallet sends again: Keep waiting resumes on it and launches the token', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await connectTestWallet(page);
  await fillLaunchForm(page);
  let launched: Hex | undefined;
  await launchDropped(page, async ({ hash, raw }) => {
    launched = hash;
    // As a wallet rebroadcasts what it still holds.
    await e2eChain().client.request({ method: 'eth_sendRawTransaction', params: [raw] } as never);
    await page.getByRole('button', { name: 'Keep waiting' }).click();
    await expect(page).toHaveURL(/\/tokens\/0x[0-9a-f]{40}$/, { timeout: 45_000 });
  });
  // The token is the first transaction's (its logs are the token's): nothing was sent anew.
  const token = new URL(page.url()).pathname.split('/').at(-1);
  const receipt = await e2eChain().client.getTransactionReceipt({ hash: launched as Hex });
  expect(receipt.status).toBe('success');
  expect(receipt.logs.some((log) => log.address.toLowerCase() === token)).toBe(true);
});

test('a form breaking the server’s rules shows the rule text and uploads nothing', async ({ page }) => {
  const uploads = watchUploads(page);
  await connectTestWallet(page);
  await fillLaunchForm(page, { symbol: 'WAY_TOO_LONG_SYMBOL' });
  await page.getByLabel('Website', { exact: true }).fill('javascript:alert(1)');
  await page.getByRole('button', { name: 'Launch token' }).click();
  await expect(page.getByText('symbol must be at most 16 bytes of UTF-8')).toBeVisible();
  await expect(page.getByText('website_url must be an http(s) URL without credentials')).toBeVisible();
  await expect(page.getByLabel('Symbol', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByRole('alert').filter({ hasText: 'nothing was uploaded' })).toBeVisible();
  expect(uploads).toEqual([]);
});

test('an image the server refuses is reported in plain words and nothing is launched', async ({ page }) => {
  const uploads = watchUploads(page);
  await connectTestWallet(page);
  await fillLaunchForm(page, {
    image: { name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from('this is plain text, not a PNG') },
  });
  await page.getByRole('button', { name: 'Launch token' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'The server refused the draft:' })).toContainText(
    'image must be',
  );
  const drafts = uploads.filter(
    (upload) => upload.method() === 'POST' && new URL(upload.url()).pathname === '/api/v1/token-metadata',
  );
  expect(drafts).toHaveLength(1);
  await expect(page.getByRole('listitem').filter({ hasText: 'Upload the draft' })).toHaveAttribute(
    'data-state',
    'failed',
  );
  await expect(page.getByRole('listitem').filter({ hasText: 'Confirm the launch' })).toHaveAttribute(
    'data-state',
    'pending',
  );
});

test('a first buy beyond the wallet’s balance is reported as missing funds, and nothing is launched', async ({
  page,
}) => {
  await connectTestWallet(page);
  await fillLaunchForm(page);
  // anvil funds its test accounts with 1,000,000 ETH.
  await page.getByLabel(/First buy/).fill('5000000');
  await page.getByRole('button', { name: 'Launch token' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'does not have enough funds' })).toBeVisible({
    timeout: 15_000,
  });
  await expect(page.getByRole('listitem').filter({ hasText: 'Confirm the launch' })).toHaveAttribute(
    'data-state',
    'failed',
  );
  await expect(page.getByRole('button', { name: 'Try again' })).toBeEnabled();
});

test('without a browser wallet, choosing one says so in plain words', async ({ page }) => {
  await page.goto('/launch');
  const header = page.getByRole('banner');
  await header.getByRole('button', { name: 'Connect wallet' }).click();
  await header.getByRole('button', { name: 'Browser wallet' }).click();
  await expect(header.getByRole('alert')).toHaveText(/No browser wallet was found/);
});

test('a browser wallet on another network is asked to switch, and a launch uploads nothing', async ({
  page,
}) => {
  // An injected EIP-1193 wallet on chain 1 whose network switch fails.
  await page.addInitScript(() => {
    const fail = (code: number, message: string) => Object.assign(new Error(message), { code });
    (window as unknown as { ethereum: unknown }).ethereum = {
      request: async ({ method }: { method: string }) => {
        if (method === 'eth_requestAccounts' || method === 'eth_accounts')
          return ['0x000000000000000000000000000000000000dead'];
        if (method === 'eth_chainId') return '0x1';
        if (method === 'wallet_switchEthereumChain') throw fail(-32603, 'this wallet cannot switch networks');
        throw fail(4200, `${method} is not supported`);
      },
      on() {},
      removeListener() {},
    };
  });
  const uploads = watchUploads(page);
  await page.goto('/launch');
  const header = page.getByRole('banner');
  await header.getByRole('button', { name: 'Connect wallet' }).click();
  await header.getByRole('button', { name: 'Browser wallet' }).click();
  await expect(header.getByRole('button', { name: /0x0000…dead/i })).toContainText('wrong network');
  await header.getByRole('button', { name: /0x0000…dead/i }).click();
  await header.getByRole('button', { name: 'Switch network' }).click();
  await expect(header.getByRole('alert')).toHaveText(/Your wallet is on another network. Switch it to/);
  await page.keyboard.press('Escape');

  await fillLaunchForm(page);
  await page.getByRole('button', { name: 'Launch token' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'another network' })).toBeVisible();
  expect(uploads).toEqual([]);
});

test('the devnet RPC proxy refuses when the app indexes a chain named by RPC_URL', async ({ request }) => {
  const response = await request.post('/api/devnet/rpc', {
    data: { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
  });
  expect(response.status()).toBe(404);
  expect((await response.json()).error.code).toBe('not_found');
});
