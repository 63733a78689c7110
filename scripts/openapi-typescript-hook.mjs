/**
 * `node --import ./scripts/openapi-typescript-hook.mjs node_modules/openapi-typescript/bin/cli.js …`
 *
 * openapi-typescript 7 prints its output through the TypeScript 5 compiler API. The project's
 * `typescript` is 7, the native compiler, which no longer ships that API, so only imports of
 * `typescript` made from inside openapi-typescript are resolved to the `typescript-5` alias
 * (package.json; its peer range is overridden there to accept the project's copy).
 */
import { register } from 'node:module';

const hooks = `export async function resolve(specifier, context, next) {
  if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/openapi-typescript/'))
    return next('typescript-5', context);
  return next(specifier, context);
}`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`);
