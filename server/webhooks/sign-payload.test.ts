import fc from 'fast-check';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { profileA } from '../rest/form-a/profile';
import { profileB } from '../rest/form-b/profile';
import { buildEventData, serializeEnvelope } from './envelope';
import { deliveryHeaders, signPayload, signStandardWebhook } from './sign-payload';

// Every delivery is signed twice over (docs/rules.md#signatures-and-headers), and each
// signature is checked here with the verifier a receiver would really use, not with our own code:
// - X-Service-Signature (Stripe's scheme): Stripe's `webhooks.constructEvent` (static: no API key);
// - webhook-id / webhook-timestamp / webhook-signature (Standard Webhooks): the `standardwebhooks`
//   package and Svix's `Webhook`.
// The receiver passes the secret exactly as the API showed it, for both forms: Form A
// `whsec_<base64>`, Form B 64 hex digits (the Standard Webhooks libraries read those as base64;
// Svix takes them without a `whsec_` prefix as well).

type Form = 'A' | 'B';
const FORMS: readonly Form[] = ['A', 'B'];
const FORM_A_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const FORM_B_SECRET = /^[0-9a-f]{64}$/;

const newSecret = (form: Form) => (form === 'A' ? profileA : profileB).newWebhookSecret();
/** The same secret formats from given bytes, for fast-check (form-a/profile.ts, form-b/profile.ts). */
const secretFromBytes = (form: Form, bytes: Uint8Array) =>
  form === 'A' ? `whsec_${Buffer.from(bytes).toString('base64')}` : Buffer.from(bytes).toString('hex');

/** A real delivery body: the event envelope as compact JSON, with non-ASCII text in it. */
const BODY = serializeEnvelope(
  'meeting.completed',
  new Date('2026-03-02T10:15:00.000Z'),
  buildEventData(
    {
      id: '0b9f4a52-6f0e-4d47-9d1e-5b7c2a1e8f30',
      title: 'Planning — Q3 « roadmap » 🚀',
      platform: 'zoom',
      startedAt: new Date('2026-03-02T09:00:00.000Z'),
      endedAt: new Date('2026-03-02T09:45:00.000Z'),
      durationSeconds: 2700,
    },
    [
      { sequence: 0, speaker: 'Zoë', content: 'Let’s start.\tAgenda first.', startTime: 0, endTime: 4.5 },
      { sequence: 1, speaker: '王芳', content: '好的，我们开始吧。', startTime: 4.5, endTime: null },
    ],
    null,
  ),
);
const DELIVERY_ID = '5d6c1f0e-3b8a-4c2e-9f71-0a4b6e2d9c13';
const EVENT_ID = '0b9e2f4a-7c1d-4e8b-a2f3-6d5c4b3a2e1f';

function deliver(secrets: readonly string[], opts: { body?: string; deliveryId?: string; now?: Date } = {}) {
  return deliveryHeaders({
    secrets,
    event: 'meeting.completed',
    eventId: EVENT_ID,
    deliveryId: opts.deliveryId ?? DELIVERY_ID,
    body: opts.body ?? BODY,
    now: opts.now ?? new Date(),
  });
}

/** What a receiver does with each library; each throws when the delivery does not verify. */
const verifiers = {
  stripe: (body: string | Buffer, headers: Record<string, string>, secret: string) =>
    Stripe.webhooks.constructEvent(body, headers['X-Service-Signature']!, secret),
  standardwebhooks: (body: string | Buffer, headers: Record<string, string>, secret: string) =>
    new StandardWebhook(secret).verify(body, headers),
  svix: (body: string | Buffer, headers: Record<string, string>, secret: string) =>
    new SvixWebhook(secret).verify(body, headers),
};
const LIBRARIES = Object.keys(verifiers) as (keyof typeof verifiers)[];
/** The two libraries whose signature covers webhook-id. */
const STANDARD_LIBRARIES = ['standardwebhooks', 'svix'] as const;

describe('the headers of a delivery', () => {
  it.each(FORMS)(
    'Form %s: X-Service-* and the Standard Webhooks headers, one signature per secret',
    (form) => {
      const [newer, older] = [newSecret(form), newSecret(form)];
      expect(newer).toMatch(form === 'A' ? FORM_A_SECRET : FORM_B_SECRET);
      const now = new Date('2026-03-02T10:15:07.900Z');
      const t = 1772446507;
      const h = deliver([newer, older], { now });
      expect(h).toEqual({
        'X-Service-Event': 'meeting.completed',
        'X-Service-Signature': `t=${t},v1=${signPayload(newer, t, BODY)},v1=${signPayload(older, t, BODY)}`,
        'X-Service-Timestamp': String(t),
        'X-Service-Delivery': DELIVERY_ID,
        'X-Service-Event-Id': EVENT_ID,
        'webhook-id': DELIVERY_ID,
        'webhook-timestamp': String(t),
        'webhook-signature': `v1,${signStandardWebhook(newer, DELIVERY_ID, t, BODY)} v1,${signStandardWebhook(older, DELIVERY_ID, t, BODY)}`,
      });
      expect(h['X-Service-Signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
      expect(deliver([newer], { now })['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    },
  );

  it('refuses to sign without a secret', () => {
    expect(() => deliver([])).toThrow(/at least one signing secret/);
  });

  it.each(FORMS)(
    'Form %s: our signatures are the ones the libraries themselves compute (same keys)',
    (form) => {
      const secret = newSecret(form);
      const t = 1772446507;
      expect(signStandardWebhook(secret, DELIVERY_ID, t, BODY)).toBe(
        new StandardWebhook(secret).sign(DELIVERY_ID, new Date(t * 1000), BODY).slice('v1,'.length),
      );
      expect(`v1,${signStandardWebhook(secret, DELIVERY_ID, t, BODY)}`).toBe(
        new SvixWebhook(secret).sign(DELIVERY_ID, new Date(t * 1000), BODY),
      );
      expect(`t=${t},v1=${signPayload(secret, t, BODY)}`).toBe(
        Stripe.webhooks.generateTestHeaderString({ payload: BODY, secret, timestamp: t }),
      );
    },
  );
});

describe.each(FORMS)('Form %s secrets verify with the libraries', (form) => {
  it.each(LIBRARIES)('%s accepts a delivery, the body as a string or as raw bytes', (library) => {
    const secret = newSecret(form);
    const headers = deliver([secret]);
    const verify = verifiers[library];
    expect(verify(BODY, headers, secret)).toMatchObject({ event: 'meeting.completed' });
    expect(verify(Buffer.from(BODY, 'utf8'), headers, secret)).toMatchObject({ event: 'meeting.completed' });
  });

  it.each(LIBRARIES)('%s: during a rotation overlap [new, old], either secret alone verifies', (library) => {
    const [newer, older] = [newSecret(form), newSecret(form)];
    const headers = deliver([newer, older]);
    expect(() => verifiers[library](BODY, headers, newer)).not.toThrow();
    expect(() => verifiers[library](BODY, headers, older)).not.toThrow();
  });

  it.each(LIBRARIES)(
    '%s: once the overlap ends (only the new secret signs) the old secret fails',
    (library) => {
      const [newer, older] = [newSecret(form), newSecret(form)];
      const headers = deliver([newer]);
      expect(() => verifiers[library](BODY, headers, newer)).not.toThrow();
      expect(() => verifiers[library](BODY, headers, older)).toThrow();
    },
  );

  it.each(LIBRARIES)(
    '%s rejects a tampered body (one byte, trailing whitespace, re-serialised)',
    (library) => {
      const secret = newSecret(form);
      const headers = deliver([secret]);
      const verify = verifiers[library];
      expect(() => verify(BODY.replace('"zoom"', '"meet"'), headers, secret)).toThrow();
      expect(() => verify(`${BODY}\n`, headers, secret)).toThrow();
      expect(() => verify(JSON.stringify(JSON.parse(BODY), null, 2), headers, secret)).toThrow();
    },
  );

  it.each(STANDARD_LIBRARIES)('%s rejects a tampered webhook-id: the signature covers it', (library) => {
    const secret = newSecret(form);
    const headers = deliver([secret]);
    expect(() => verifiers[library](BODY, { ...headers, 'webhook-id': crypto.randomUUID() }, secret)).toThrow(
      /No matching signature/,
    );
    expect(() => verifiers[library](BODY, { ...headers, 'webhook-id': `${DELIVERY_ID} ` }, secret)).toThrow();
  });

  it("Stripe's scheme does not cover the delivery id: dedupe on webhook-id only after a Standard Webhooks check", () => {
    const secret = newSecret(form);
    const headers = { ...deliver([secret]), 'X-Service-Delivery': 'forged', 'webhook-id': 'forged' };
    expect(() => verifiers.stripe(BODY, headers, secret)).not.toThrow();
  });

  it.each(LIBRARIES)("%s's own tolerance check rejects a delivery signed 10 minutes ago", (library) => {
    const secret = newSecret(form);
    const headers = deliver([secret], { now: new Date(Date.now() - 10 * 60_000) });
    expect(() => verifiers[library](BODY, headers, secret)).toThrow(/tolerance|too old/);
    // and a receiver's tampering with the timestamp headers is caught by the signature instead
    const fresh = String(Math.floor(Date.now() / 1000));
    const retimed = {
      ...headers,
      'X-Service-Signature': headers['X-Service-Signature']!.replace(/^t=\d+/, `t=${fresh}`),
      'webhook-timestamp': fresh,
    };
    expect(() => verifiers[library](BODY, retimed, secret)).toThrow(
      /No signatures found matching|No matching/,
    );
  });

  it.each(STANDARD_LIBRARIES)('%s also rejects a timestamp 10 minutes in the future', (library) => {
    const secret = newSecret(form);
    const headers = deliver([secret], { now: new Date(Date.now() + 10 * 60_000) });
    expect(() => verifiers[library](BODY, headers, secret)).toThrow(/too new/);
  });

  it("Stripe's constructEvent checks age only: a receiver that also refuses a timestamp over 5 minutes ahead checks t itself", () => {
    const secret = newSecret(form);
    const headers = deliver([secret], { now: new Date(Date.now() + 10 * 60_000) });
    expect(() => verifiers.stripe(BODY, headers, secret)).not.toThrow();
  });
});

describe('Form B secrets as each library takes them', () => {
  it('the 64 hex digits are passed unchanged; Standard Webhooks keys with their base64 decoding (48 bytes)', () => {
    const secret = newSecret('B');
    const headers = deliver([secret]);
    // Stripe keys with the UTF-8 text of the secret, the Standard Webhooks libraries with
    // base64-decode(secret): a `whsec_` prefix is optional for them (stripped if present)...
    expect(() => new StandardWebhook(`whsec_${secret}`).verify(BODY, headers)).not.toThrow();
    expect(() => new SvixWebhook(`whsec_${secret}`).verify(BODY, headers)).not.toThrow();
    // ...but not for Stripe, whose key is the string itself.
    expect(() =>
      Stripe.webhooks.constructEvent(BODY, headers['X-Service-Signature']!, `whsec_${secret}`),
    ).toThrow();
    // Hex-decoding the secret (a natural mistake) gives a different key, which fails.
    const hexKey = new Uint8Array(Buffer.from(secret, 'hex'));
    expect(() => new StandardWebhook(hexKey, { format: 'raw' }).verify(BODY, headers)).toThrow();
    expect(() => new SvixWebhook(hexKey, { format: 'raw' }).verify(BODY, headers)).toThrow();
  });
});

describe('property — random bodies and delivery ids verify under all three libraries', () => {
  const whitespace = fc.constantFrom(' ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\u3000');
  const text = fc.oneof(
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
    fc
      .array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 4 }), whitespace))
      .map((parts) => parts.join('')),
  );
  const jsonValue = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(text, tie('value'), { maxKeys: 4 }),
    ),
  })).value;
  const jsonWhitespace = fc.array(fc.constantFrom(' ', '\t', '\n', '\r')).map((ws) => ws.join(''));
  /** A JSON body, compact or indented, with JSON whitespace around it. */
  const body = fc
    .tuple(jsonWhitespace, jsonValue, fc.constantFrom(undefined, 2, '\t'), jsonWhitespace)
    .map(
      ([before, value, indent, after]) =>
        `${before}${JSON.stringify({ event: 'summary.ready', data: value }, null, indent)}${after}`,
    );
  const deliveryId = fc.oneof(fc.uuid(), fc.stringMatching(/^[\x21-\x7e]{1,64}$/));
  const secrets = fc.array(
    fc.tuple(fc.constantFrom<Form>('A', 'B'), fc.uint8Array({ minLength: 32, maxLength: 32 })),
    { minLength: 1, maxLength: 2 },
  );

  it('each active secret verifies a delivery, given the raw bytes, with Stripe, standardwebhooks and Svix', () => {
    fc.assert(
      fc.property(body, deliveryId, secrets, (rawBody, id, keys) => {
        const active = keys.map(([form, bytes]) => secretFromBytes(form, bytes));
        const headers = deliver(active, { body: rawBody, deliveryId: id });
        const raw = Buffer.from(rawBody, 'utf8');
        const parsed = JSON.parse(rawBody);
        for (const secret of active) {
          expect(verifiers.stripe(raw, headers, secret)).toEqual(parsed);
          expect(verifiers.standardwebhooks(raw, headers, secret)).toEqual(parsed);
          expect(verifiers.svix(raw, headers, secret)).toEqual(parsed);
        }
        expect(headers['webhook-id']).toBe(id);
        expect(headers['X-Service-Delivery']).toBe(id);
      }),
      { numRuns: 300 },
    );
  });

  it('a changed body or delivery id fails under the Standard Webhooks libraries', () => {
    fc.assert(
      fc.property(body, body, deliveryId, deliveryId, secrets, (rawBody, otherBody, id, otherId, keys) => {
        fc.pre(rawBody !== otherBody && id !== otherId);
        const secret = secretFromBytes(...keys[0]!);
        const headers = deliver([secret], { body: rawBody, deliveryId: id });
        for (const verify of Object.values(verifiers))
          expect(() => verify(otherBody, headers, secret)).toThrow();
        for (const library of STANDARD_LIBRARIES) {
          expect(() => verifiers[library](rawBody, { ...headers, 'webhook-id': otherId }, secret)).toThrow();
        }
      }),
      { numRuns: 150 },
    );
  });
});
