import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { areaCycles, productionImports } from './import-graph';

// Arrows only point down. docs/architecture.md#layers draws the layers; these tests keep the code
// to the drawing.

const edges = productionImports();
const under = (dir: string) => (file: string) => file.startsWith(`${dir}${path.sep}`) || file === dir;

describe('the import picture', () => {
  it('reads the tree: it sees the imports it is meant to judge', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges.some((e) => e.from === path.join('server', 'rest', 'v1-handler.ts'))).toBe(true);
  });

  it('no two areas of server/ import each other (no directory cycles)', () => {
    expect(areaCycles(edges.filter((e) => e.from.startsWith('server')))).toEqual([]);
  });

  it("the settings app's routers hold no SQL: nothing under server/api/routers imports the database", () => {
    const offending = edges.filter(
      (e) =>
        under(path.join('server', 'api', 'routers'))(e.from) &&
        (under(path.join('server', 'db'))(e.to) || e.to.startsWith('drizzle-orm') || e.to === 'postgres'),
    );
    expect(offending).toEqual([]);
  });

  it('the browser’s code takes only the vocabulary, the form profiles and the API’s types from server/', () => {
    const allowed = [
      path.join('server', 'domain.ts'),
      path.join('server', 'errors.ts'),
      path.join('server', 'rest', 'form-profiles.ts'),
      // The search tokenizer, for highlighting matches as the search reads them (a leaf: pure, client-safe).
      path.join('server', 'text', 'tokenize.ts'),
    ];
    const offending = edges.filter(
      (e) =>
        under('components')(e.from) &&
        e.to.startsWith(`server${path.sep}`) &&
        !e.typeOnly &&
        !allowed.includes(e.to) &&
        !/^server\/rest\/form-[a-z]\/(profile|errors)\.ts$/.test(e.to.split(path.sep).join('/')),
    );
    expect(offending).toEqual([]);
  });

  it('components never reach the database schema, not even for a type', () => {
    expect(
      edges.filter((e) => under('components')(e.from) && under(path.join('server', 'db'))(e.to)),
    ).toEqual([]);
  });

  it('production code never imports a test helper', () => {
    expect(edges.filter((e) => under('test')(e.to))).toEqual([]);
  });
});
