/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native or wasm-carrying packages must load from node_modules at run time, not be bundled.
  serverExternalPackages: [
    '@electric-sql/pglite',
    'postgres',
    'pino',
    'sharp',
    '@aws-sdk/client-s3',
    'ioredis',
  ],
  // The typecheck is its own step of npm test (tsc --noEmit over the whole tree); a second one
  // inside next build would only repeat it (and take a minute of every build).
  typescript: { tsconfigPath: 'tsconfig.json', ignoreBuildErrors: true },
};

export default nextConfig;
