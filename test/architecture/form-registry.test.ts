import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FORM, FORM_NAMES, type FormName } from '../../server/domain';
import { AppError, ERROR_CODES } from '../../server/errors';
import { FORM_PROFILES, formProfileList } from '../../server/rest/form-profiles';
import { FORMS } from '../../server/rest/forms';
import { openApiDocumentFor } from '../../server/rest/openapi-document';
import { startTestApp, type TestApp } from '../support/test-app';

// A form is one folder plus its registry lines. These tests walk the registries, not a list of
// their own, so a form added to FORM_NAMES and the registries is checked the same way.

const ajv = new Ajv2020({ strict: false });
const forms = FORM_NAMES.map((name) => [name] as const);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

describe('the form registries', () => {
  it('both registries hold exactly the forms of FORM_NAMES, each under its own name', () => {
    expect(Object.keys(FORMS).sort()).toEqual([...FORM_NAMES].sort());
    expect(Object.keys(FORM_PROFILES).sort()).toEqual([...FORM_NAMES].sort());
    expect(formProfileList().map((p) => p.name)).toEqual([...FORM_NAMES]);
    for (const name of FORM_NAMES) {
      expect(FORMS[name].name).toBe(name);
      expect(FORM_PROFILES[name].name).toBe(name);
    }
    expect(FORM_NAMES).toContain(DEFAULT_FORM);
  });

  it.each(forms)('Form %s serves what its profile says (the served form is built on the profile)', (name) => {
    const served = FORMS[name];
    const profile = FORM_PROFILES[name];
    expect(served.presentError).toBe(profile.presentError);
    expect(served.errorStatus).toBe(profile.errorStatus);
    expect(served.errorSchema).toBe(profile.errorSchema);
    expect(served.newWebhookSecret).toBe(profile.newWebhookSecret);
  });

  it('the settings app can tell the forms apart: labels and summaries are distinct and non-empty', () => {
    const abouts = formProfileList().map((p) => p.about);
    for (const about of abouts) {
      expect(about.label.trim()).not.toBe('');
      expect(about.summary.trim()).not.toBe('');
      expect(about.secretFormat.trim()).not.toBe('');
    }
    expect(new Set(abouts.map((a) => a.label)).size).toBe(abouts.length);
    expect(new Set(abouts.map((a) => a.summary)).size).toBe(abouts.length);
  });

  it.each(forms)(
    'Form %s writes every error code with a 4xx/5xx status and a body its own schema accepts',
    (name) => {
      const profile = FORM_PROFILES[name];
      const check = ajv.compile(profile.errorSchema);
      for (const code of ERROR_CODES) {
        const { status, body } = profile.presentError(new AppError(code, `a ${code} message`));
        expect(status, code).toBe(profile.errorStatus[code]);
        expect(status >= 400 && status <= 599, `${code} → ${status}`).toBe(true);
        expect(check(body), `${code}: ${ajv.errorsText(check.errors)}`).toBe(true);
        expect(JSON.stringify(body)).toContain(`a ${code} message`);
      }
    },
  );

  it.each(forms)('Form %s makes unguessable webhook secrets, printable and never repeated', (name) => {
    const secrets = Array.from({ length: 200 }, () => FORM_PROFILES[name].newWebhookSecret());
    expect(new Set(secrets).size).toBe(secrets.length);
    for (const secret of secrets) {
      expect(secret).toMatch(/^[\x21-\x7e]+$/);
      // At least 32 random bytes, however the form spells them (hex needs 64 characters, base64 44).
      expect(secret.length).toBeGreaterThanOrEqual(43);
    }
  });

  it.each(forms)('Form %s counts every request against at least one rate-limit window', (name) => {
    const principal = {
      account: { id: '00000000-0000-4000-8000-000000000001', plan: 'pro', dailyLimit: null },
      key: { id: '00000000-0000-4000-8000-000000000002', form: name },
    } as Parameters<(typeof FORMS)[FormName]['rateLimitWindows']>[0];
    const windows = FORMS[name].rateLimitWindows(principal, new Date('2026-11-23T10:00:00Z'));
    expect(windows.length).toBeGreaterThan(0);
    for (const w of windows) expect(w.limit).toBeGreaterThan(0);
  });

  it.each(forms)('Form %s has an OpenAPI document built from its profile', (name) => {
    const doc = openApiDocumentFor(name);
    expect(doc.info.description?.startsWith(FORM_PROFILES[name].openApiDescription)).toBe(true);
    expect(doc.components?.schemas?.Error).toEqual(FORM_PROFILES[name].errorSchema);
    expect(Object.keys(doc.paths ?? {}).length).toBeGreaterThan(0);
  });

  it.each(forms)(
    'over HTTP, X-API-Form: %s without a key is a 401 in that form’s error shape',
    async (name) => {
      const check = ajv.compile(FORM_PROFILES[name].errorSchema);
      for (const header of [name, name.toLowerCase(), ` ${name} `]) {
        const res = await app.request('/v1/notes', { form: header });
        expect(res.status).toBe(FORM_PROFILES[name].errorStatus.invalid_api_key);
        expect(check(res.json), ajv.errorsText(check.errors)).toBe(true);
      }
    },
  );

  it.each(forms)('over HTTP, a malformed path with X-API-Form: %s is answered in that form', async (name) => {
    const check = ajv.compile(FORM_PROFILES[name].errorSchema);
    const res = await app.request('/v1/notes/%FF', { form: name });
    expect(res.status).toBe(FORM_PROFILES[name].errorStatus.invalid_request);
    expect(check(res.json), ajv.errorsText(check.errors)).toBe(true);
  });

  it.each(forms)('Form %s: a key of this form gets its form’s answers by default', async (name) => {
    const { key } = await app.createAccount({ form: name });
    const res = await app.request('/v1/notes/6a1f0c1e-8a7b-4c2d-9e3f-0123456789ab', { key });
    const check = ajv.compile(FORM_PROFILES[name].errorSchema);
    expect(res.status).toBe(FORM_PROFILES[name].errorStatus.not_found);
    expect(check(res.json), ajv.errorsText(check.errors)).toBe(true);
  });

  it('an X-API-Form naming no form is refused in the default form, naming the forms', async () => {
    const res = await app.request('/v1/notes', { form: 'Z' });
    expect(res.status).toBe(FORM_PROFILES[DEFAULT_FORM].errorStatus.invalid_request);
    expect(ajv.compile(FORM_PROFILES[DEFAULT_FORM].errorSchema)(res.json)).toBe(true);
    for (const name of FORM_NAMES) expect(res.text).toContain(name);
  });

  it('the OpenAPI route serves every registered form and refuses another in the default form', async () => {
    for (const name of FORM_NAMES) {
      const res = await app.request(`/api/openapi.json?form=${name.toLowerCase()}`);
      expect(res.status).toBe(200);
      expect(res.json.info.title).toContain(name);
    }
    const refused = await app.request('/api/openapi.json?form=Z');
    expect(refused.status).toBe(400);
    expect(ajv.compile(FORM_PROFILES[DEFAULT_FORM].errorSchema)(refused.json)).toBe(true);
  });
});
