import { describe, expect, it } from 'vitest';
import { sameOriginUrl } from './same-origin-url';

describe('sameOriginUrl: callbackUrl only leads to this site', () => {
  const base = 'https://notes.example.com';
  it.each([
    ['/keys', 'https://notes.example.com/keys'],
    ['/notes/abc?q=1#x', 'https://notes.example.com/notes/abc?q=1#x'],
    ['https://notes.example.com/account?welcome=1', 'https://notes.example.com/account?welcome=1'],
    ['//evil.example', 'https://notes.example.com/notes'],
    ['//evil.example/notes', 'https://notes.example.com/notes'],
    ['/\\evil.example', 'https://notes.example.com/notes'],
    ['\\\\evil.example', 'https://notes.example.com/notes'],
    ['https://evil.example/', 'https://notes.example.com/notes'],
    ['https://notes.example.com.evil.example/', 'https://notes.example.com/notes'],
    ['http://notes.example.com/keys', 'https://notes.example.com/notes'], // another origin (scheme)
    ['javascript:alert(1)', 'https://notes.example.com/notes'],
    ['data:text/html,hi', 'https://notes.example.com/notes'],
    ['/\tevil', 'https://notes.example.com/notes'],
    // Same scheme, no slashes: a browser resolves it as a path of this site, and so does this.
    ['https:evil.example', 'https://notes.example.com/evil.example'],
    ['', 'https://notes.example.com/notes'],
    [42, 'https://notes.example.com/notes'],
    [undefined, 'https://notes.example.com/notes'],
  ])('%s → %s', (url, expected) => {
    expect(sameOriginUrl(url, base)).toBe(expected);
  });
});
