import { expect } from 'vitest';

export { BrowserSession, type HttpAnswer } from './http-session';

/** tRPC's error envelope for one call (not a batch), to compare a settings-app answer with. */
export const trpcError = (
  code: string,
  httpStatus: number,
  path: string,
  message: unknown = expect.any(String),
) => ({
  error: { message, code: expect.any(Number), data: { code, httpStatus, path } },
});
