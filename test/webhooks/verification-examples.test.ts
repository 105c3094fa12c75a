import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload, signStandardWebhook } from '../../server/webhooks/sign-payload';
import { VERIFY_EXAMPLES } from '../../components/webhooks/verify-example-code';
import { runDueWork } from '../../server/worker/run-due-work';
import { startTestApp, type TestApp } from '../support/test-app';
import { type Received, Receiver } from '../support/webhook-receiver';

// The verification examples shown on /docs, in the settings app and in docs/api.md, run as a
// receiver would run them: each accepts real deliveries of both forms' secrets and refuses a
// tampered body, a wrong secret and a stale timestamp.

let app: TestApp;
let receiver: Receiver;
let dir: string;
beforeAll(async () => {
  receiver = await new Receiver().start();
  app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  dir = mkdtempSync(path.join(tmpdir(), 'verify-examples-'));
  for (const example of VERIFY_EXAMPLES) writeFileSync(path.join(dir, example.file), example.source);
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

const source = (file: string) => path.join(dir, file);

/** Each example's verdict on one delivery: true when it says genuine. */
const verdicts = {
  async node(body: string, headers: Received['headers'], secret: string) {
    const { verifyServiceSignature, verifyStandardWebhook } = await import(
      pathToFileURL(source('verify-webhook.mjs')).href
    );
    const raw = Buffer.from(body);
    const stripe = verifyServiceSignature(raw, headers['x-service-signature'], secret);
    const standard = verifyStandardWebhook(raw, headers, secret);
    expect(stripe, 'the two signatures agree').toBe(standard);
    return stripe as boolean;
  },
  python(body: string, headers: Received['headers'], secret: string) {
    const file = path.join(dir, 'headers.json');
    writeFileSync(file, JSON.stringify(headers));
    const run = spawnSync('python3', [source('verify_webhook.py'), secret, file], {
      input: body,
      encoding: 'utf8',
    });
    expect(run.error).toBeUndefined();
    expect(run.stdout.trim()).toMatch(/^(genuine|not genuine)$/);
    return run.status === 0;
  },
  shell(body: string, headers: Received['headers'], secret: string) {
    const run = spawnSync(
      'bash',
      [source('verify-webhook.sh'), secret, String(headers['x-service-signature'])],
      {
        input: body,
        encoding: 'utf8',
      },
    );
    expect(run.error).toBeUndefined();
    return run.status === 0;
  },
};

describe('the verification examples', () => {
  it('are one per language the docs name: Node, Python and the shell', () => {
    expect(VERIFY_EXAMPLES.map((e) => e.file)).toEqual([
      'verify-webhook.mjs',
      'verify_webhook.py',
      'verify-webhook.sh',
    ]);
  });

  it('docs/api.md shows each of them as it is run here', () => {
    const guide = readFileSync(path.join(import.meta.dirname, '../../docs/api.md'), 'utf8');
    for (const example of VERIFY_EXAMPLES) expect(guide).toContain(example.source);
  });

  it('each accepts real deliveries signed with a Form A and a Form B secret, and refuses a tampered body, another secret or a stale timestamp', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const secrets = new Map<string, string>();
    for (const form of ['A', 'B']) {
      const target = receiver.path(`verify-${form}`);
      const res = await app.request('/v1/webhooks', {
        method: 'POST',
        key,
        form,
        json: { url: target.url, events: ['meeting.started'] },
      });
      expect(res.status).toBe(201);
      secrets.set(target.path, res.json.secret);
    }
    await app.recordNote(key, { transcribe: false });
    await runDueWork(app.db, app.services, { budgetMs: 30_000 });

    for (const [target, secret] of secrets) {
      const [delivery] = receiver.at(target);
      expect(delivery, target).toBeDefined();
      const { body, headers } = delivery!;
      const stale = Math.floor(Date.now() / 1000) - 600;
      for (const [language, verdict] of Object.entries(verdicts)) {
        const what = `${language}, ${target}`;
        expect(await verdict(body, headers, secret), `${what}: genuine`).toBe(true);
        expect(await verdict(`${body} `, headers, secret), `${what}: tampered body`).toBe(false);
        const other = secret.startsWith('whsec_')
          ? `whsec_${Buffer.alloc(32, 7).toString('base64')}`
          : 'ab'.repeat(32);
        expect(await verdict(body, headers, other), `${what}: another secret`).toBe(false);
        // Signed correctly, but 10 minutes ago.
        const id = String(headers['webhook-id']);
        const old = {
          ...headers,
          'x-service-signature': `t=${stale},v1=${signPayload(secret, stale, body)}`,
          'webhook-timestamp': String(stale),
          'webhook-signature': `v1,${signStandardWebhook(secret, id, stale, body)}`,
        };
        expect(await verdict(body, old, secret), `${what}: stale timestamp`).toBe(false);
      }
    }
  });
});
