import { expect, test } from './fixtures';

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
