/**
 * The configuration: environment variables parsed once at process start (`parseConfig`) into a
 * {@link Config} that is passed down; nothing else reads `process.env`.
 * schema.ts: each variable's rule; parse.ts: variables to settings; types.ts: the settings.
 */
export { localBaseUrl, parseConfig, webServingProblems } from './parse';
export { type DeploymentManifest, deploymentManifestSchema } from './schema';
export type { ChainConfig, Config, DatabaseConfig, ObjectStoreConfig } from './types';
export { ConfigError } from './types';
