import { describe, expect, it } from 'vitest';
import {
  friendlyMessage,
  isRetryable,
  OFFLINE_MESSAGE,
  SERVER_MESSAGE,
} from '../../components/ui/friendly-error';

// What the settings app shows for a failed call is never the raw text of a failed fetch or of a
// schema check.

const trpcError = (code: string, message: string) => ({ message, data: { code, httpStatus: 400 } });

describe('friendly error messages', () => {
  it('a failed fetch (offline, unreachable, a proxy page instead of JSON) reads as offline, never "Failed to fetch"', () => {
    expect(friendlyMessage(new TypeError('Failed to fetch'))).toBe(OFFLINE_MESSAGE);
    expect(friendlyMessage({ message: 'fetch failed', cause: new TypeError('fetch failed') })).toBe(
      OFFLINE_MESSAGE,
    );
    expect(friendlyMessage({ message: 'NetworkError when attempting to fetch resource.' })).toBe(
      OFFLINE_MESSAGE,
    );
    expect(friendlyMessage({ message: 'Unexpected token < in JSON at position 0' })).toBe(OFFLINE_MESSAGE);
  });

  it("zod's default messages become plain sentences", () => {
    expect(
      friendlyMessage(trpcError('BAD_REQUEST', 'Too big: expected string to have <=256 characters')),
    ).toBe('That is too long: at most 256 characters.');
    expect(
      friendlyMessage(trpcError('BAD_REQUEST', 'Too small: expected string to have >=1 characters')),
    ).toBe('This cannot be empty.');
    expect(friendlyMessage(trpcError('BAD_REQUEST', 'Invalid UUID'))).toBe(
      'That id is not valid: check the link.',
    );
    expect(
      friendlyMessage(trpcError('BAD_REQUEST', 'Invalid input: expected string, received undefined')),
    ).toBe('Some of what was entered is not valid.');
    expect(friendlyMessage(trpcError('BAD_REQUEST', '[{"code":"too_big","path":["q"]}]'))).toBe(
      'Some of what was entered is not valid.',
    );
  });

  it("the service's own messages are kept; a server failure is said plainly", () => {
    expect(friendlyMessage(trpcError('BAD_REQUEST', 'url must use https://'))).toBe('url must use https://');
    expect(
      friendlyMessage(trpcError('INTERNAL_SERVER_ERROR', 'Something went wrong; please try again')),
    ).toBe(SERVER_MESSAGE);
    expect(friendlyMessage({ message: 'Wrong email or password' })).toBe('Wrong email or password');
  });

  it('Try again is offered where it can help, not for refused input or a missing thing', () => {
    expect(isRetryable(new TypeError('Failed to fetch'))).toBe(true);
    expect(isRetryable(trpcError('INTERNAL_SERVER_ERROR', 'x'))).toBe(true);
    expect(isRetryable(trpcError('BAD_REQUEST', 'x'))).toBe(false);
    expect(isRetryable(trpcError('NOT_FOUND', 'x'))).toBe(false);
  });
});
