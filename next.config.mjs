/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WASM and extension bundles from its package folder at run time, and
  // postgres.js opens raw sockets: both must stay plain Node modules, not bundled.
  serverExternalPackages: ['@electric-sql/pglite', '@electric-sql/pglite-pgvector', 'postgres'],
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: false,
  // The API reference serves Swagger UI's two files from node_modules (app/docs/swagger/[file]).
  outputFileTracingIncludes: {
    // Migrations are applied at start-up from the drizzle/ folder.
    '/**': ['./drizzle/**'],
    '/docs/swagger/[file]': ['./node_modules/swagger-ui-dist/swagger-ui-bundle.js', './node_modules/swagger-ui-dist/swagger-ui.css'],
  },
};

export default nextConfig;
