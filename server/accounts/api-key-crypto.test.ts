import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { describeApiKey, generateApiKey, hashApiKey, looksLikeApiKey } from './api-key-crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('API key crypto', () => {
  it('a generated key is "mnk_" + 40 base62 characters (44 in all)', () => {
    const key = generateApiKey();
    expect(key).toHaveLength(44);
    expect(key.startsWith('mnk_')).toBe(true);
    expect(key).toMatch(/^mnk_[0-9A-Za-z]{40}$/);
  });

  it('1000 generated keys are all distinct, well-formed, and use the whole base62 alphabet', () => {
    const keys = Array.from({ length: 1000 }, () => generateApiKey());
    expect(new Set(keys).size).toBe(1000);
    for (const key of keys) expect(key).toMatch(/^mnk_[0-9A-Za-z]{40}$/);
    // 40,000 body characters: each of the 62 is expected ~645 times; a missing one means a narrower alphabet.
    const seen = new Set(keys.flatMap((k) => [...k.slice(4)]));
    expect([...seen].sort().join('')).toBe([...BASE62].sort().join(''));
    // High entropy: distinct bodies, not just distinct suffixes.
    expect(new Set(keys.map((k) => k.slice(4, 14))).size).toBe(1000);
  });

  it('hashApiKey is the SHA-256 hex digest of the key', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(sha256(key));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey('mnk_abc')).toBe(sha256('mnk_abc'));
    expect(hashApiKey('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hashApiKey(key)).not.toBe(hashApiKey(generateApiKey()));
  });

  it('describeApiKey stores only the hash, the readable prefix and the last four characters', () => {
    const key = 'mnk_3fZqABCDEFGHIJKLMNOPQRSTUVWXYZabcdefWx9z';
    expect(key).toHaveLength(44);
    expect(describeApiKey(key)).toStrictEqual({ keyHash: sha256(key), prefix: 'mnk_3fZq', lastFour: 'Wx9z' });

    const generated = generateApiKey();
    const described = describeApiKey(generated);
    expect(described).toStrictEqual({
      keyHash: sha256(generated),
      prefix: generated.slice(0, 8),
      lastFour: generated.slice(-4),
    });
    expect(Object.values(described)).not.toContain(generated);
  });

  it('looksLikeApiKey accepts generated keys', () => {
    for (let i = 0; i < 100; i++) expect(looksLikeApiKey(generateApiKey())).toBe(true);
  });

  const good = `mnk_${'aB3'.repeat(13)}z`;
  it.each([
    ['empty', ''],
    ['prefix only', 'mnk_'],
    ['one character short', good.slice(0, -1)],
    ['one character long', `${good}x`],
    ['wrong prefix', `mnx_${good.slice(4)}`],
    ['upper-case prefix', `MNK_${good.slice(4)}`],
    ['no prefix, 44 base62 characters', `abcd${good.slice(4)}`],
    ['a dash in the body', `${good.slice(0, -1)}-`],
    ['an underscore in the body', `${good.slice(0, -1)}_`],
    ['a plus in the body', `${good.slice(0, 10)}+${good.slice(11)}`],
    ['a space in the body', `${good.slice(0, 10)} ${good.slice(11)}`],
    ['a non-ASCII letter in the body', `${good.slice(0, 10)}é${good.slice(11)}`],
    ['leading whitespace', ` ${good.slice(0, -1)}`],
    ['the Bearer scheme included', `Bearer ${good}`],
    ['a Form A webhook secret', `whsec_${'a'.repeat(38)}`],
  ])('looksLikeApiKey rejects %s', (_label, key) => {
    expect(looksLikeApiKey(good)).toBe(true);
    expect(looksLikeApiKey(key)).toBe(false);
  });
});
