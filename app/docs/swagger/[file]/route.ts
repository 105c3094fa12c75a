import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

// GET /docs/swagger/:file – Swagger UI's two browser assets, straight from the installed
// swagger-ui-dist package (no copy in public/ to drift from the package version). Only the
// names below are served; anything else is a 404, so no path reaches the file system.
// The files are traced by outputFileTracingIncludes in next.config.mjs; turbopackIgnore keeps
// the build from tracing the whole project for this read.
export const runtime = 'nodejs';

const ASSETS = {
  'swagger-ui-bundle.js': {
    type: 'text/javascript; charset=utf-8',
    file: () =>
      path.join(
        /* turbopackIgnore: true */ process.cwd(),
        'node_modules',
        'swagger-ui-dist',
        'swagger-ui-bundle.js',
      ),
  },
  'swagger-ui.css': {
    type: 'text/css; charset=utf-8',
    file: () =>
      path.join(
        /* turbopackIgnore: true */ process.cwd(),
        'node_modules',
        'swagger-ui-dist',
        'swagger-ui.css',
      ),
  },
} as const;
type AssetName = keyof typeof ASSETS;

const isAssetName = (name: string): name is AssetName => Object.hasOwn(ASSETS, name);

const loaded = new Map<AssetName, Promise<{ body: Buffer; etag: string }>>();

function loadAsset(name: AssetName) {
  let asset = loaded.get(name);
  if (!asset) {
    asset = readFile(ASSETS[name].file()).then((body) => ({
      body,
      etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
    }));
    // A failed read is not remembered: the next request tries again.
    asset.catch(() => loaded.delete(name));
    loaded.set(name, asset);
  }
  return asset;
}

export async function GET(request: Request, { params }: { params: Promise<{ file: string }> }) {
  const { file } = await params;
  if (!isAssetName(file)) return new Response('Not found', { status: 404 });
  const { body, etag } = await loadAsset(file);
  const headers = {
    ETag: etag,
    'Cache-Control': 'public, max-age=3600',
    'X-Content-Type-Options': 'nosniff',
  };
  if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers });
  return new Response(new Uint8Array(body), { headers: { ...headers, 'Content-Type': ASSETS[file].type } });
}
