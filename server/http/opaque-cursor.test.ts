import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './opaque-cursor';

const ID = '3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b';
const AT = new Date('2026-03-04T05:06:07.089Z');
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

describe('Form A cursor: opaque base64url of the sort key', () => {
  it('encodeCursor/decodeCursor round-trip the created_at (to the millisecond) and id', () => {
    const cursor = encodeCursor({ createdAt: AT, id: ID });
    const decoded = decodeCursor(cursor);
    expect(decoded).toStrictEqual({ createdAt: AT, id: ID });
    expect(decoded!.createdAt.getTime()).toBe(AT.getTime());
    expect(decoded!.createdAt.toISOString()).toBe('2026-03-04T05:06:07.089Z');
  });

  it.each([
    ['epoch', new Date(0)],
    ['one millisecond after the epoch', new Date(1)],
    ['far future', new Date('2999-12-31T23:59:59.999Z')],
    ['millisecond 001', new Date('2026-01-01T00:00:00.001Z')],
  ])('round trip keeps the exact instant (%s)', (_label, createdAt) => {
    expect(decodeCursor(encodeCursor({ createdAt, id: ID }))).toStrictEqual({ createdAt, id: ID });
  });

  it('a decoded cursor always carries a lowercase id', () => {
    const decoded = decodeCursor(encodeCursor({ createdAt: AT, id: ID.toUpperCase() }));
    expect(decoded).toStrictEqual({ createdAt: AT, id: ID });
  });

  it('consecutive positions give distinct cursors', () => {
    const a = encodeCursor({ createdAt: AT, id: ID });
    const b = encodeCursor({ createdAt: new Date(AT.getTime() + 1), id: ID });
    const c = encodeCursor({ createdAt: AT, id: '3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6c' });
    expect(new Set([a, b, c]).size).toBe(3);
  });

  it('the cursor is opaque: URL-safe, not a readable timestamp or id', () => {
    const cursor = encodeCursor({ createdAt: AT, id: ID });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Number.isNaN(Date.parse(cursor))).toBe(true);
    expect(cursor).not.toContain('2026');
    expect(cursor).not.toContain(String(AT.getTime()));
    expect(cursor).not.toContain(ID);
    expect(cursor).not.toContain(ID.slice(0, 8));
    expect(encodeURIComponent(cursor)).toBe(cursor);
  });

  const valid = encodeCursor({ createdAt: AT, id: ID });

  it.each([
    ['empty string', ''],
    ['garbage text', 'not a cursor!!'],
    ['garbage base64url-looking word', 'garbage'],
    ['an ISO timestamp (the Form B cursor)', '2026-03-04T05:06:07.089Z'],
    ['a valid cursor with "+" (base64, not base64url)', `${valid}+`],
    ['a valid cursor with "/"', `/${valid}`],
    ['a valid cursor with "=" padding', `${valid}=`],
    ['a valid cursor with a space', `${valid} `],
    ['a valid cursor with a percent escape', `${valid}%3D`],
    ['a valid cursor with a dot', `${valid}.`],
    ['a valid cursor with non-ASCII', `${valid}é`],
  ])('rejects %s (non-base64url / garbage)', (_label, cursor) => {
    expect(decodeCursor(cursor)).toBeNull();
  });

  it.each([
    ['plain text', b64('hello world')],
    ['only a timestamp', b64(String(AT.getTime()))],
    ['only an id', b64(ID)],
    ['id first, then timestamp', b64(`${ID}:${AT.getTime()}`)],
    ['an ISO timestamp instead of milliseconds', b64(`${AT.toISOString()}:${ID}`)],
    ['a negative timestamp', b64(`-5:${ID}`)],
    ['a fractional timestamp', b64(`1.5:${ID}`)],
    ['a 16-digit timestamp', b64(`1234567890123456:${ID}`)],
    ['an empty timestamp', b64(`:${ID}`)],
    ['a trailing extra field', b64(`${AT.getTime()}:${ID}:x`)],
    ['JSON of the sort key', b64(JSON.stringify({ createdAt: AT.getTime(), id: ID }))],
    ['binary bytes', Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80]).toString('base64url')],
  ])('rejects valid base64url of the wrong content (%s)', (_label, cursor) => {
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toBeNull();
  });

  it.each([
    ['not a uuid', 'not-a-uuid'],
    ['one character short', ID.slice(0, -1)],
    ['one character long', `${ID}0`],
    ['a non-hex character', ID.replace('3f2b', '3g2b')],
    ['no dashes', ID.replaceAll('-', '')],
    ['braces', `{${ID}}`],
    ['surrounding spaces', ` ${ID} `],
    ['empty', ''],
  ])('rejects a cursor whose id is a bad uuid (%s)', (_label, id) => {
    expect(decodeCursor(b64(`${AT.getTime()}:${id}`))).toBeNull();
  });

  it.each([
    ['201 base64url characters', 'A'.repeat(201)],
    ['a valid cursor followed by a long tail', valid + 'A'.repeat(300)],
    ['a valid sort key padded with spaces', b64(`${AT.getTime()}:${ID}${' '.repeat(200)}`)],
    ['100 kB of base64url', 'QUFB'.repeat(25_000)],
  ])('rejects overly long input (%s)', (_label, cursor) => {
    expect(decodeCursor(cursor)).toBeNull();
  });
});
