import fc from 'fast-check';
import type { JsonSchema } from './procedures';

// Values for every field of a procedure's input: valid-looking ones derived from the field's
// JSON Schema, and hostile ones of any type. Numbers JSON cannot spell (1e309, -0) and nesting
// deeper than a recursive serializer survives are written as raw JSON text.

/** JSON text sent as is, for what JSON.stringify cannot write (1e309, -0, very deep nesting). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A generated value as JSON text (its own keys only, `__proto__` included; RawJson verbatim). */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** A generated value as one query or path parameter's text (an array is the parameter repeated). */
export function paramTexts(value: unknown): string[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap((v) => (Array.isArray(v) ? [jsonText(v)] : paramTexts(v)));
  if (typeof value === 'string') return [value];
  return [jsonText(value)];
}

/** An object with `key` as an own property, `__proto__` included (a literal would set the prototype). */
export function withKey(object: Record<string, unknown>, key: string, value: unknown) {
  const copy = { ...object };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** How large a hostile value may be where it travels: in a URL, a 64 KiB body, or the recorder's 8 MiB. */
export type Room = 'url' | 'body' | 'large-body';
const HUGE: Record<Room, number> = { url: 800, body: 50_000, 'large-body': 100_000 };
const DEPTH: Record<Room, number> = { url: 150, body: 10_000, 'large-body': 200_000 };

export const PROTO_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
  '__lookupSetter__',
];

export const BAD_DATES = [
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '0099-12-31T23:59:59Z',
  '1900-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:30:00-01:00',
  '10000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '-000001-01-01T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-01-01',
  '1970-01-01T00:00:00+99:99',
];

/** Strings that have broken services: NUL, lone surrogates, huge, numeric-looking, prototype names. */
export const hostileString = (room: Room) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        '\u0000',
        'a\u0000b',
        '\ud800',
        'x\udfff',
        '\udc00\ud800',
        'ok\u0000',
        `${'\u0000'.repeat(3)}`,
      ),
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '\t\r\n',
        'NaN',
        '-0',
        '1e309',
        '-1e309',
        'Infinity',
        'null',
        'undefined',
        'true',
        '[]',
        '{}',
        '%00',
        '%FF',
        '%ED%A0%80',
        '../../etc/passwd',
        "' or 1=1 --",
        '<script>alert(1)</script>',
        '\u202e\ufeff',
        '\u{1D306}\u{1F511}',
        '00000000-0000-0000-0000-000000000000',
        ...PROTO_NAMES,
        ...BAD_DATES,
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'a'.repeat(HUGE[room]),
        `${'é'.repeat(HUGE[room] / 2)}\u0000`,
        `${'x'.repeat(HUGE[room] - 1)}\ud800`,
      ),
    },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  );

const hostileNumber = fc.constantFrom<unknown>(
  new RawJson('1e309'),
  new RawJson('-1e309'),
  new RawJson('-0'),
  new RawJson('1E400'),
  new RawJson('0.0000000000000000000000000000001e-330'),
  0,
  -1,
  1.5,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53 + 2,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  1e21,
);

/** Deep nesting, written directly as text: arrays and objects `depth` levels down. */
const deep = (room: Room) =>
  fc.constantFrom(
    new RawJson(`${'['.repeat(DEPTH[room])}${']'.repeat(DEPTH[room])}`),
    new RawJson(`${'{"a":'.repeat(DEPTH[room] / 2)}"\\u0000"${'}'.repeat(DEPTH[room] / 2)}`),
    new RawJson(`${'['.repeat(DEPTH[room] / 2)}"\\ud800"${']'.repeat(DEPTH[room] / 2)}`),
  );

const protoObjects = fc.constantFrom<unknown>(
  JSON.parse('{"__proto__":{"admin":true,"toString":1}}'),
  JSON.parse('{"constructor":{"prototype":{"polluted":true}}}'),
  { toString: 'x', valueOf: 1, hasOwnProperty: null },
  { 'a\u0000': 1 },
  { '\ud800': 'x' },
);

/** A value of any type, for any field: the field's own type is no more likely than another. */
export const hostileValue = (room: Room): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 5, arbitrary: hostileString(room) },
    { weight: 2, arbitrary: hostileNumber },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}) },
    { weight: 1, arbitrary: fc.array(hostileString('url'), { minLength: 1, maxLength: 3 }) },
    { weight: 1, arbitrary: protoObjects },
    { weight: 1, arbitrary: deep(room) },
  );

/**
 * What valid-looking values may refer to: the test's own records by kind (`note`, `key`,
 * `webhook`, …), and addresses. A uuid field takes the ids of the kinds its name or its
 * procedure names (`keyId`, `notes.get`), or any of them.
 */
export interface KnownValues {
  ids: Record<string, string[]>;
  emails: string[];
}

function idsFor(known: KnownValues, scope: string, name: string): string[] {
  const kinds = Object.keys(known.ids);
  const named = kinds.filter((k) => name.toLowerCase().includes(k));
  const scoped = kinds.filter((k) => scope.toLowerCase().includes(k));
  const chosen = named.length > 0 ? named : scoped.length > 0 ? scoped : kinds;
  return chosen.flatMap((k) => known.ids[k] ?? []);
}

/** Where a value goes: the procedure (or route) it is for, and whether nested fields may be hostile too. */
export interface Setting {
  known: KnownValues;
  scope: string;
  room: Room;
  /** False: every nested value valid-looking too. */
  wild: boolean;
  /** Every string in the value carries a NUL or a lone surrogate, its shape otherwise valid. */
  taint?: boolean;
}

const TAINTS = fc.constantFrom('\u0000', '\u0000\u0000', '\ud800', '\udfff', '\u0000\udbff');

/** The same strings with a NUL or a lone surrogate put somewhere inside (or at either end). */
const tainted = (strings: fc.Arbitrary<string>) =>
  fc.tuple(strings, TAINTS, fc.nat()).map(([text, taint, at]) => {
    const cut = at % (text.length + 1);
    return `${text.slice(0, cut)}${taint}${text.slice(cut)}`;
  });

const PLAUSIBLE = ['Weekly sync', 'quiet-harbor-lantern-71', 'en', 'Ana', 'ops', 'zebra budget'];
// Mostly URLs a registration accepts (the test's resolver gives example.com a public address),
// each path its own: an account registers a URL once.
const URLS = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .stringMatching(/^[a-z0-9][a-z0-9-]{0,15}$/)
      .map((path) => `https://hooks.example.com/${path}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('https://nowhere.test/hook', 'http://127.0.0.1/hook') },
);
const PASSWORDS = ['quiet-harbor-lantern-71', 'amber tundra violin 36', 'password', 'p'.repeat(73)];
const soon = () => new Date(Date.now() + 86_400_000).toISOString();
const GOOD_DATE = fc.oneof(
  fc
    .date({
      min: new Date('1990-01-01T00:00:00Z'),
      max: new Date('2090-01-01T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString()),
  fc.constant('').map(soon),
);

function resolveRef(schema: JsonSchema, root: JsonSchema): JsonSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace(/^#\/\$defs\//, '');
  const target = root.$defs?.[name];
  if (!target) throw new Error(`unresolved ${schema.$ref}`);
  return { ...target, ...schema, $ref: undefined };
}

/**
 * A valid-looking value for `schema` (a field named `name`); when the setting is wild, nested
 * fields are now and then hostile, so that checks deep inside a body are reached too.
 */
export function goodValue(
  schema: JsonSchema,
  root: JsonSchema,
  name: string,
  setting: Setting,
): fc.Arbitrary<unknown> {
  const s = resolveRef(schema, root);
  if (setting.taint && (s.type === 'string' || (s.enum ?? []).some((v) => typeof v === 'string'))) {
    const plain = goodValue(s, root, name, { ...setting, taint: false });
    return tainted(plain.filter((v): v is string => typeof v === 'string'));
  }
  const good = (child: JsonSchema, childName = name) => goodValue(child, root, childName, setting);
  const nested = (child: JsonSchema, childName: string) =>
    setting.wild
      ? fc.oneof(
          { weight: 8, arbitrary: good(child, childName) },
          { weight: 1, arbitrary: hostileValue(setting.room) },
        )
      : good(child, childName);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const branches = s.anyOf ?? s.oneOf;
  if (branches) return fc.oneof(...branches.map((b) => good(b)));
  if (s.allOf?.[0]) return good(s.allOf[0]);
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((type) => good({ ...s, type })));
  switch (s.type) {
    case 'string': {
      if (s.format === 'uuid' || /(^id$|Id$)/.test(name)) {
        const ids = idsFor(setting.known, setting.scope, name);
        return ids.length > 0
          ? fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: fc.uuid() })
          : fc.uuid();
      }
      if (s.format === 'date-time') return GOOD_DATE;
      if (s.format === 'email' || /email/i.test(name))
        return fc.oneof(
          fc.constantFrom(...setting.known.emails),
          fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/).map((local) => `fuzz-${local}@example.com`),
        );
      if (s.format === 'uri' || /url/i.test(name)) return URLS;
      if (/password/i.test(name)) return fc.constantFrom(...PASSWORDS);
      const max = Math.min(s.maxLength ?? 40, 40);
      const min = Math.min(s.minLength ?? 0, max);
      return fc.oneof(
        fc.constantFrom(...PLAUSIBLE.filter((p) => p.length <= max && p.length >= min), 'x'.repeat(max)),
        fc.string({ minLength: Math.max(min, 1), maxLength: max }),
      );
    }
    case 'integer':
      return fc.integer({
        min: Math.max(s.minimum ?? -1000, -(2 ** 31)),
        max: Math.min(s.maximum ?? 1000, 2 ** 31 - 1),
      });
    case 'number':
      return fc.double({
        min: s.minimum ?? -1000,
        max: Math.min(s.maximum ?? 100_000, 1e9),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const min = s.minItems ?? 0;
      return fc.array(nested(s.items ?? {}, name), {
        minLength: min,
        maxLength: Math.max(min, Math.min(s.maxItems ?? 3, 3)),
      });
    }
    case 'object': {
      const properties = Object.entries(s.properties ?? {});
      if (properties.length === 0) return fc.constant({});
      return fc.record(Object.fromEntries(properties.map(([key, child]) => [key, nested(child, key)])), {
        requiredKeys: s.required ?? [],
      });
    }
    default:
      return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean());
  }
}

/**
 * What a run attacks: one field, an extra key beside the fields, or the whole input; or nothing
 * (every field valid-looking), so that the procedure's own work is reached too.
 */
export type Target =
  | { field: string; taint?: boolean }
  | { extraKey: true }
  | { wholeInput: true }
  | { valid: true };

/**
 * Per procedure: every field valid-looking; then each field with NUL or a lone surrogate in its
 * text (its shape valid, so the text gets as far as it can), and each field with anything at all;
 * an extra key; the whole input.
 */
export function targetsOf(schema: JsonSchema | null): Target[] {
  const fields = Object.keys(schema?.properties ?? {});
  return [
    { valid: true as const },
    ...fields.flatMap((field) => [{ field, taint: true }, { field }]),
    { extraKey: true as const },
    { wholeInput: true as const },
  ];
}

export const targetName = (target: Target) =>
  'field' in target
    ? `${target.field}${target.taint ? ' (NUL or lone surrogate)' : ''}`
    : 'extraKey' in target
      ? '(extra key)'
      : 'wholeInput' in target
        ? '(whole input)'
        : '(valid-looking)';

const EXTRA_KEY = fc.oneof(
  fc.constantFrom(...PROTO_NAMES, 'a\u0000b', '\ud800', 'k'.repeat(300)),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
);

/**
 * An input for a procedure whose input is `schema` (null: it takes none), attacking `target`:
 * that field hostile, the others valid-looking (each hostile now and then when a field is
 * attacked, optional ones sometimes left out).
 */
export function inputFor(
  schema: JsonSchema | null,
  target: Target,
  setting: Omit<Setting, 'wild'>,
  /** Fields that travel elsewhere (path parameters) and so must keep their room. */
  roomOf: (field: string) => Room = () => setting.room,
): fc.Arbitrary<unknown> {
  if ('wholeInput' in target)
    return fc.oneof(
      hostileValue(setting.room),
      fc.constant(undefined),
      fc.constant(new RawJson('"\\u0000"')),
    );
  const attacked = (key: string) => 'field' in target && target.field === key;
  // With a field attacked by anything at all, the other fields' nested values are hostile now and then too.
  const wild = 'field' in target && !target.taint;
  const properties = Object.entries(schema?.properties ?? {});
  const required = new Set(schema?.required ?? []);
  const fields = fc.record(
    Object.fromEntries(
      properties.map(([key, child]) => {
        const here: Setting = { ...setting, room: roomOf(key), wild };
        const value = !attacked(key)
          ? goodValue(child, schema ?? {}, key, here)
          : 'field' in target && target.taint
            ? goodValue(child, schema ?? {}, key, { ...here, taint: true })
            : hostileValue(here.room);
        const optional =
          required.has(key) || attacked(key)
            ? value
            : fc.oneof(
                { weight: wild ? 3 : 1, arbitrary: value },
                { weight: 1, arbitrary: fc.constant(undefined) },
              );
        return [key, optional];
      }),
    ),
  );
  const present = fields.map(
    (record) =>
      Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as Record<
        string,
        unknown
      >,
  );
  if ('extraKey' in target)
    return fc
      .tuple(present, EXTRA_KEY, hostileValue(setting.room))
      .map(([record, key, value]) => withKey(record, key, value));
  return present;
}

/** Whether a value (as the server parses it) holds a string PostgreSQL refuses; walks with its own stack. */
export function holdsUnstorableText(value: unknown): boolean {
  const bad = (s: string) =>
    s.includes('\u0000') || /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (bad(item)) return true;
    } else if (Array.isArray(item)) {
      for (const element of item) stack.push(element);
    } else if (item !== null && typeof item === 'object')
      for (const [k, v] of Object.entries(item)) {
        if (bad(k)) return true;
        stack.push(v);
      }
  }
  return false;
}
