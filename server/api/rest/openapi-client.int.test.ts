import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServer, startAppServer } from '../../../test/app-server';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../../test/database';
import { fixtureAddress, fixtureToken, insertTokens, setCheckpoint } from '../../../test/fixtures';

/*
 * Rule: the served OpenAPI document is enough to write a client (docs/api.md, "Everywhere"). A
 * third party's path is taken as it is: openapi-typescript generates types from the document the
 * running server serves, the project's compiler type-checks a client written against them with
 * openapi-fetch, and that client walks a list by cursor against the same server.
 */

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');
const [backend] = await availableBackends();
const TOKEN_COUNT = 45;
const EXCLUDED = 7;

/** A third party's client: every page of the newest tokens by cursor, and a typed 404. */
const walkSource = `import createClient from 'openapi-fetch';
import type { paths } from './api';

const client = createClient<paths>({ baseUrl: process.argv[2] });
const addresses: string[] = [];
let cursor: string | undefined;
let pages = 0;
do {
  const { data, error, response } = await client.GET('/api/v1/tokens', {
    params: { query: { limit: 7, ...(cursor === undefined ? {} : { cursor }) } },
  });
  if (error) throw new Error(\`\${response.status} \${error.error.code}: \${error.error.message}\`);
  for (const item of data.items) addresses.push(item.address);
  cursor = data.next_cursor ?? undefined;
  pages += 1;
} while (cursor !== undefined);
const missing = await client.GET('/api/v1/tokens/{address}', {
  params: { path: { address: \`0x\${'00'.repeat(20)}\` } },
});
const code: string | undefined = missing.error?.error.code;
console.log(JSON.stringify({ addresses, pages, missing: { status: missing.response.status, code } }));
`;

/** Misuses the generated types must refuse: were they \`any\`, each directive would be unused. */
const misuseSource = `import createClient from 'openapi-fetch';
import type { paths } from './api';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1' });
export async function misuse(): Promise<void> {
  // @ts-expect-error: no such route
  await client.GET('/api/v1/nothing');
  // @ts-expect-error: limit is an integer
  await client.GET('/api/v1/tokens', { params: { query: { limit: 'many' } } });
  // @ts-expect-error: a read has no POST
  await client.POST('/api/v1/tokens', {});
  const { data } = await client.GET('/api/v1/tokens');
  // @ts-expect-error: list items carry no such field
  console.log(data?.items[0]?.price_in_gold);
}
`;

describe(`a client generated from the served OpenAPI document (${backend})`, () => {
  let database: TestDatabase;
  let server: AppServer;
  let directory: string;

  beforeAll(async () => {
    if (!backend) throw new Error('no backend');
    database = await createTestDatabase(backend);
    const handle = await database.open();
    const rows = Array.from({ length: TOKEN_COUNT }, (_, i) => fixtureToken(i));
    rows[EXCLUDED] = fixtureToken(EXCLUDED, { excluded: true });
    await insertTokens(handle.db, rows);
    await setCheckpoint(handle.db, 500);
    await handle.close();
    server = await startAppServer(database.env);
    directory = mkdtempSync(path.join(tmpdir(), 'launchdex-client-'));
    symlinkSync(path.join(root, 'node_modules'), path.join(directory, 'node_modules'));
    writeFileSync(path.join(directory, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      path.join(directory, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          target: 'es2022',
          module: 'esnext',
          moduleResolution: 'bundler',
          lib: ['es2022', 'dom'],
          types: ['node'],
          skipLibCheck: true,
        },
        files: ['walk.ts', 'misuse.ts'],
      }),
    );
    writeFileSync(path.join(directory, 'walk.ts'), walkSource);
    writeFileSync(path.join(directory, 'misuse.ts'), misuseSource);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it('generates, type-checks and walks the newest tokens page by page to the last', async () => {
    await run(
      process.execPath,
      [
        '--import',
        path.join(root, 'scripts/openapi-typescript-hook.mjs'),
        path.join(root, 'node_modules/openapi-typescript/bin/cli.js'),
        `${server.baseUrl}/api/v1/openapi.json`,
        '--output',
        path.join(directory, 'api.d.ts'),
      ],
      { cwd: directory },
    );
    const types = readFileSync(path.join(directory, 'api.d.ts'), 'utf8');
    expect(types).toContain('"/api/v1/tokens/{address}/trades"');
    expect(types).toContain('"Retry-After"');

    // The project's compiler; a failure prints its diagnostics in the rejection.
    await run(path.join(root, 'node_modules/.bin/tsc'), ['-p', path.join(directory, 'tsconfig.json')], {
      cwd: directory,
    });

    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', path.join(directory, 'walk.ts'), server.baseUrl],
      { cwd: directory },
    );
    const walked = JSON.parse(stdout) as {
      addresses: string[];
      pages: number;
      missing: { status: number; code: string };
    };
    // Newest first (fixture i launched in block 100 + i), the excluded token left out, each once.
    const expected = Array.from({ length: TOKEN_COUNT }, (_, i) => TOKEN_COUNT - 1 - i)
      .filter((i) => i !== EXCLUDED)
      .map((i) => fixtureAddress('token', i));
    expect(walked.addresses).toEqual(expected);
    expect(walked.pages).toBe(Math.ceil((TOKEN_COUNT - 1) / 7));
    expect(walked.missing).toEqual({ status: 404, code: 'not_found' });
  });
});
