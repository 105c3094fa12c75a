/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WASM and extension bundles from its package folder at run time, and
  // postgres.js opens raw sockets: both must stay plain Node modules, not bundled.
  serverExternalPackages: ['@electric-sql/pglite', '@electric-sql/pglite-pgvector', 'postgres'],
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: false,
};

export default nextConfig;
