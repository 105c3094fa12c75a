import { describe, expect, it } from 'vitest';
import { AppError } from '../errors';
import { firstUnstorableText, unstorableInputError } from './storable-input';

const messageOf = (value: unknown) => unstorableInputError(value)?.message ?? null;

describe('the check of every input for text PostgreSQL refuses', () => {
  it('finds the first NUL or lone surrogate in document order, in values and in field names', () => {
    expect(firstUnstorableText({ a: 'ok', b: ['ok', { c: 'x\u0000' }], d: '\ud800' })).toEqual({
      path: ['b', 1, 'c'],
      key: false,
    });
    expect(firstUnstorableText({ a: { 'b\udfff': 1 } })).toEqual({ path: ['a'], key: true });
    expect(firstUnstorableText('\u0000')).toEqual({ path: [], key: false });
    // A pair is one character, not two lone halves.
    expect(firstUnstorableText({ a: '\u{1F511}', b: ['\ud83d\udd11'], c: 1, d: null })).toBeNull();
    expect(firstUnstorableText(undefined)).toBeNull();
  });

  it('names the field in a 400 invalid_request, as /v1, the recorder and the settings app answer it', () => {
    const error = unstorableInputError({ segments: [{ content: 'ok' }, { content: 'a\u0000b' }] });
    expect(error?.code).toBe('BAD_REQUEST');
    expect(error?.cause).toEqual(new AppError('invalid_request', error?.message ?? ''));
    expect(error?.message).toBe('segments.1.content must not contain NUL characters or unpaired surrogates');
    expect(messageOf('\ud800')).toBe('The input must not contain NUL characters or unpaired surrogates');
    expect(messageOf({ 'a\u0000': 1 })).toBe(
      'A field name must not contain NUL characters or unpaired surrogates',
    );
    expect(messageOf({ notes: { 'a\u0000': 1 } })).toBe(
      'A field name in notes must not contain NUL characters or unpaired surrogates',
    );
    expect(messageOf({ title: 'fine' })).toBeNull();
  });

  it('walks nesting far deeper than the call stack allows, and keeps the message short', () => {
    const depth = 500_000;
    const deep = JSON.parse(`${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}`);
    const message = messageOf(deep) ?? '';
    expect(message).toMatch(/^0\.0\.0\.0\.0\.0\.0\.0\.0\.0\.….0\.0\.0\.0\.0\.0\.0\.0\.0\.0 must not contain/);
    const longKey = 'k'.repeat(10_000);
    expect(messageOf({ [longKey]: 'a\u0000' })).toBe(
      `${'k'.repeat(64)}… must not contain NUL characters or unpaired surrogates`,
    );
  });
});
