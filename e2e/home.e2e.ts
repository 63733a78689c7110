import { expect, test } from './fixtures';

test('home lists the newest tokens through tRPC, rendering creator text as text', async ({ page }) => {
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Token launches' })).toBeVisible();
  const rows = page.getByRole('region', { name: 'Newest tokens' }).getByRole('row');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(1)).toContainText('XSS');
  await expect(rows.nth(1)).toContainText('<img src=x onerror=alert(1)>');
  await expect(rows.nth(3)).toContainText('Alpha Launch');
  expect(dialogs).toEqual([]);
  await expect(page.locator('main img')).toHaveCount(0);
});

test('API docs page renders every operation of the OpenAPI document', async ({ page, request }) => {
  const document = (await (await request.get('/api/v1/openapi.json')).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
  );
  expect(operations.length).toBeGreaterThanOrEqual(13);
  await page.goto('/docs');
  await expect(page.getByRole('heading', { name: 'Launchdex API' })).toBeVisible();
  for (const operation of operations) {
    await expect(page.getByRole('heading', { name: operation, exact: true })).toBeVisible();
  }
});
