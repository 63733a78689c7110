/**
 * Drives the stack started by global-setup: what the server's indexer sees of the chain head.
 * Freezing it makes the index lag behind new transactions, as a slow indexer would.
 */
function controlUrl(path: string): string {
  const base = process.env.E2E_CONTROL_URL;
  if (!base) throw new Error('E2E_CONTROL_URL is not set: run through `npm run test:e2e`');
  return `${base}${path}`;
}

export async function freezeIndexedHead(block: number): Promise<void> {
  const response = await fetch(controlUrl(`/indexer/freeze?block=${block}`), { method: 'POST' });
  if (!response.ok) throw new Error(`freeze failed: ${response.status}`);
}

export async function releaseIndexedHead(): Promise<void> {
  const response = await fetch(controlUrl('/indexer/release'), { method: 'POST' });
  if (!response.ok) throw new Error(`release failed: ${response.status}`);
}

export function e2eEnv(name: 'E2E_RPC_URL' | 'E2E_FACTORY' | 'E2E_DEPLOYMENT'): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run through \`npm run test:e2e\``);
  return value;
}
