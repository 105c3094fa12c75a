import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggerInstance } from 'next-auth';
import { log } from '../log';

/** The request an auth route is answering, so next-auth's log lines carry its id. */
export const authRequestContext = new AsyncLocalStorage<{ requestId: string }>();
const requestId = () => authRequestContext.getStore()?.requestId;

/** Thrown by the jwt callback for a session that was signed out, expired or never recorded. */
export class SessionEndedError extends Error {
  constructor() {
    super('The session has ended');
    this.name = 'SessionEndedError';
  }
}

/** An error's name and message, cut short: no stack, no request body. */
function describeError(metadata: unknown): { name: string; message: string } | undefined {
  const err = metadata instanceof Error ? metadata : (metadata as { error?: unknown } | undefined)?.error;
  // jose's errors have an empty name but a code (ERR_JWE_INVALID…).
  if (err instanceof Error)
    return {
      name: err.name || String((err as { code?: unknown }).code ?? err.constructor.name),
      message: err.message.slice(0, 200),
    };
  const message = (metadata as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? { name: 'Error', message: message.slice(0, 200) } : undefined;
}

const code = (value: unknown) => String(value).slice(0, 64);

/**
 * next-auth's logger, into ours: one JSON line per event, never the metadata itself (it can
 * hold the request body, and so a password). A session cookie that does not decrypt or whose
 * session has ended is a client's problem, logged at info without a stack. Debug output is
 * dropped: next-auth's debug events carry credentials. (Browsers' reports to /api/auth/_log
 * never reach it: auth-handler.ts answers them.)
 */
export const authLogger: LoggerInstance = {
  error(errorCode, metadata) {
    const error = describeError(metadata);
    // Reading the session cookie failed, on a request or on sign-out: the client's cookie is bad.
    if (errorCode === 'JWT_SESSION_ERROR' || errorCode === 'SIGNOUT_ERROR') {
      log.info(error?.name === 'SessionEndedError' ? 'session ended' : 'session cookie refused', {
        requestId: requestId(),
        code: errorCode,
        error,
      });
    } else {
      // A real failure: the error itself, which log.ts writes without user content.
      const err = metadata instanceof Error ? metadata : (metadata as { error?: unknown } | undefined)?.error;
      log.error('next-auth error', {
        requestId: requestId(),
        code: code(errorCode),
        error: err instanceof Error ? err : error,
      });
    }
  },
  warn(warningCode) {
    log.warn('next-auth warning', { requestId: requestId(), code: code(warningCode) });
  },
  debug() {},
};
