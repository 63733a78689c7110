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
  typescript: { tsconfigPath: 'tsconfig.json' },
};

export default nextConfig;
