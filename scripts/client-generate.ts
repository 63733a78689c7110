/**
 * `npm run client:generate` writes client/schema.generated.ts: openapi-typescript's types of the
 * OpenAPI document the server serves, built by the same function from the same registry (as
 * scripts/openapi-lint.ts does), so no server has to run. `--check` (a step of `npm test`) fails
 * when the committed file is not what the current document generates.
 *
 * Run under scripts/openapi-typescript-hook.mjs (the npm script does): openapi-typescript prints
 * through the TypeScript 5 compiler API, which the project's TypeScript 7 no longer ships.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import clientPackage from '../client/package.json' with { type: 'json' };
import packageJson from '../package.json' with { type: 'json' };
import { buildOpenApiDocument } from '../server/api/rest/openapi';
import { restRoutes } from '../server/api/rest/registry';

const target = path.join(import.meta.dirname, '..', 'client', 'schema.generated.ts');
const check = process.argv.includes('--check');

// The document is plain JSON; the builder's inferred type is narrower than openapi-typescript's.
const document = JSON.parse(
  JSON.stringify(buildOpenApiDocument(restRoutes, { version: packageJson.version })),
) as OpenAPI3;
const generated = COMMENT_HEADER + astToString(await openapiTS(document));

const problems: string[] = [];
if (check) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {}
  if (committed !== generated)
    problems.push(
      `${path.relative(process.cwd(), target)} differs from what the served OpenAPI document generates: run \`npm run client:generate\``,
    );
} else {
  writeFileSync(target, generated);
}
// The client's one runtime dependency is the version the project's tests run it with.
const tested = packageJson.devDependencies['openapi-fetch'];
const declared = clientPackage.dependencies['openapi-fetch'];
if (declared !== tested)
  problems.push(`client/package.json depends on openapi-fetch ${declared}, the project tests ${tested}`);
for (const problem of problems) console.error(problem);
if (problems.length > 0) process.exit(1);
console.log(`${check ? 'checked' : 'wrote'} ${path.relative(process.cwd(), target)}`);
