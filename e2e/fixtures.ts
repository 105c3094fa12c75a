import { test as base, type APIRequestContext } from '@playwright/test';
import { createContractValidator } from '../test/support/openapi-contract';

// Every /v1 answer the end-to-end tests receive through Playwright's `request` is validated against
// the published OpenAPI document of the form that answered, as the vitest suite's answers are
// (test/support/openapi-contract.ts). Every API key these tests use is a Form A key (the demo key,
// keys made in the settings app); Form B is asked for with X-API-Form.

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'fetch'] as const;
type Method = (typeof METHODS)[number];
type Options = { method?: string; headers?: Record<string, string> } | undefined;

export const test = base.extend({
  request: async ({ request, baseURL }, use) => {
    const validate = createContractValidator({ baseUrl: baseURL ?? '', keyForm: async () => undefined });
    const wrapped = new Proxy(request, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function' || !METHODS.includes(prop as Method)) return value;
        return async (url: string, options?: Options) => {
          const res = await value.call(target, url, options);
          const method = prop === 'fetch' ? (options?.method ?? 'GET') : String(prop).toUpperCase();
          await validate(
            { method, path: url, headers: new Headers(options?.headers) },
            { status: res.status(), headers: new Headers(res.headers()), text: await res.text() },
          );
          return res;
        };
      },
    }) as APIRequestContext;
    await use(wrapped);
  },
});

export { expect } from '@playwright/test';
