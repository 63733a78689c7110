import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../test/app-server';
import { expect, test } from './fixtures';

const repository = path.resolve(import.meta.dirname, '..');

/**
 * The newcomer test (issue 8): a clean clone of this repository, `npm ci && npm start` with no
 * configuration at all, then the API reports indexed trades and the home page shows the tokens
 * in Chromium; Ctrl-C stops every part.
 */
test('a clean clone comes up as a living market with `npm ci && npm start`', async ({ page }) => {
  test.setTimeout(600_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'launchdex-newcomer-'));
  let start: ChildProcess | undefined;
  try {
    execFileSync('git', ['clone', '--quiet', repository, path.join(dir, 'app')], { stdio: 'inherit' });
    const app = path.join(dir, 'app');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: app,
      stdio: 'inherit',
    });
    const port = await freePort();
    const devnetPort = await freePort();
    // Only what a newcomer's shell has: no database, no chain, no configuration of ours.
    const env: NodeJS.ProcessEnv = {
      NODE_ENV: 'production',
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      DEVNET_PORT: String(devnetPort),
    };
    const started = Date.now();
    const child = spawn('npm', ['start'], {
      cwd: app,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    start = child;
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await expect
      .poll(() => output.includes('Launchdex is up'), { timeout: 420_000, intervals: [1_000] })
      .toBe(true);
    const base = `http://127.0.0.1:${port}`;
    const tokens = (await (await fetch(`${base}/api/v1/tokens?limit=100`)).json()) as {
      items: { address: string; name: string; trades_24h: number }[];
    };
    expect(tokens.items.length).toBeGreaterThanOrEqual(20);
    const traded = tokens.items.find((t) => t.trades_24h > 0);
    expect(traded).toBeDefined();
    const trades = (await (await fetch(`${base}/api/v1/tokens/${traded?.address}/trades`)).json()) as {
      items: unknown[];
      indexed_through_block: number;
    };
    expect(trades.items.length).toBeGreaterThan(0);
    expect(trades.indexed_through_block).toBeGreaterThan(0);
    // Creators launched through the API: drafts with logos and links, finalized to their tokens.
    const linked = (await (await fetch(`${base}/api/v1/tokens?view=linked`)).json()) as {
      items: { address: string; image_url: string | null }[];
    };
    expect(linked.items.length).toBeGreaterThanOrEqual(3);
    for (const token of linked.items) {
      expect(token.image_url).toMatch(/^\/objects\/[0-9a-f]{64}\.png$/);
      const image = await fetch(`${base}${token.image_url}`);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/png');
    }
    console.log(`newcomer: npm start to a living market in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    await page.goto(base);
    const rows = page.locator('main .token-table tbody tr');
    await expect(rows.first()).toBeVisible();
    expect(await rows.count()).toBeGreaterThan(10);
    await expect(page.locator('main .token-table img').first()).toBeVisible();
    await page.goto(`${base}/tokens/${traded?.address}`);
    await expect(page.getByRole('heading', { level: 1, name: traded?.name })).toBeVisible();
    await expect(page.getByTestId('trades-table').locator('tbody tr').first()).toBeVisible();
    await expect(page.getByTestId('price-chart')).toHaveAttribute('data-candles', /[1-9]/);

    // Ctrl-C: the whole tree stops (npm, the orchestrator, anvil, the web server).
    process.kill(-(child.pid as number), 'SIGINT');
    const exited = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 20_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    expect(exited).toBe(true);
    await expect
      .poll(
        async () =>
          fetch(`${base}/api/health`).then(
            () => 'up',
            () => 'down',
          ),
        { timeout: 15_000 },
      )
      .toBe('down');
    start = undefined;
  } finally {
    if (start?.pid) {
      try {
        process.kill(-start.pid, 'SIGKILL');
      } catch {}
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
