/**
 * `npm run openapi:lint`: the OpenAPI document the server serves at /api/v1/openapi.json, built by
 * the same function from the same registry, checked by Redocly CLI with its `recommended` rules.
 * Offline by construction: the document is a local file, no Redocly config or registry is
 * consulted, and telemetry and the update check are off. Exits with Redocly's status.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import packageJson from '../package.json' with { type: 'json' };
import { buildOpenApiDocument } from '../server/api/rest/openapi';
import { restRoutes } from '../server/api/rest/registry';

const directory = mkdtempSync(path.join(tmpdir(), 'launchdex-openapi-'));
const file = path.join(directory, 'openapi.json');
try {
  writeFileSync(
    file,
    JSON.stringify(buildOpenApiDocument(restRoutes, { version: packageJson.version }), null, 2),
  );
  // info-license is skipped: the project declares no license (package.json has none), and the
  // document must not claim one the code does not carry.
  const args = [
    'lint',
    '--extends',
    'recommended',
    '--skip-rule',
    'info-license',
    '--format',
    'stylish',
    file,
  ];
  const result = spawnSync(path.join('node_modules', '.bin', 'redocly'), args, {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(directory, { recursive: true, force: true });
}
