import { test as base, expect } from '@playwright/test';

/** Tests address the stack started by global-setup through `baseURL`. */
export const test = base.extend<{ frameProbe: undefined }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads fixture dependencies from this pattern
  baseURL: async ({}, use) => {
    const url = process.env.E2E_BASE_URL;
    if (!url) throw new Error('E2E_BASE_URL is not set: run through `npm run test:e2e`');
    await use(url);
  },
  /**
   * After a failed test, whether its page still renders frames. A click waits for two animation
   * frames to call its target stable, and headless chromium has been seen to stop producing them
   * for a page (a click that hung with nothing else logged, CI once): this tells that apart from a
   * page of ours that never settles.
   */
  frameProbe: [
    async ({ page }, use, testInfo) => {
      await use(undefined);
      if (testInfo.status === testInfo.expectedStatus || page.isClosed()) return;
      const frames = await Promise.race([
        page
          .evaluate(
            () =>
              new Promise<string>((resolve) =>
                requestAnimationFrame(() => requestAnimationFrame(() => resolve('renders frames'))),
              ),
          )
          .catch((error: Error) => `could not be asked (${error.message.split('\n')[0]})`),
        new Promise<string>((resolve) => setTimeout(() => resolve('rendered no frame in 3 s'), 3_000)),
      ]);
      console.log(`[frame probe] the failed test's page ${frames}`);
      await testInfo.attach('frame-probe', { body: frames, contentType: 'text/plain' });
    },
    { auto: true },
  ],
});

export { expect };
