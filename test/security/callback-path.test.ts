import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CALLBACK_PATH, safeCallbackPath, signInPathFor } from '../../components/auth/callback-path';

// Sign-in returns to the page that asked for it, and never to another site.

describe('the page to return to after signing in', () => {
  it.each([
    ['/webhooks/9b2d4e6f-1a3c-4e5f-8a7b-6c5d4e3f2a10', '/webhooks/9b2d4e6f-1a3c-4e5f-8a7b-6c5d4e3f2a10'],
    ['/notes?platform=zoom', '/notes?platform=zoom'],
    ['http://localhost:3000/keys', '/keys'],
  ])('%s → %s', (value, expected) => {
    expect(safeCallbackPath(value, 'http://localhost:3000')).toBe(expected);
  });

  it.each([
    '//evil.example/',
    '/\\evil.example',
    'https://evil.example/keys',
    'http://localhost:3000.evil.example/keys',
    'javascript:alert(1)',
    '/sign-in?callbackUrl=/keys',
    '/sign-up',
    '/keys\u0000',
    '/x\ny',
    '',
    `/${'a'.repeat(3000)}`,
  ])('%j is refused (back to the notes)', (value) => {
    expect(safeCallbackPath(value, 'http://localhost:3000')).toBe(DEFAULT_CALLBACK_PATH);
  });

  it('whatever is asked, the answer is a path of this site', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl(), fc.webPath()), (value) => {
        const path = safeCallbackPath(value, 'http://localhost:3000');
        expect(path.startsWith('/')).toBe(true);
        expect(path.startsWith('//')).toBe(false);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters on purpose
        expect(path).not.toMatch(/[\\\u0000-\u001f\u007f]/);
        expect(new URL(path, 'http://localhost:3000').origin).toBe('http://localhost:3000');
      }),
      { numRuns: 2000 },
    );
  });

  it('the sign-in link carries the page, encoded', () => {
    expect(signInPathFor('/webhooks/x?y=1')).toBe('/sign-in?callbackUrl=%2Fwebhooks%2Fx%3Fy%3D1');
    expect(signInPathFor(null)).toBe('/sign-in');
  });
});
