import fs from 'node:fs';
import path from 'node:path';

// The import picture of the production code: which file imports which, and which area (a folder
// under server/, or components/, app/) depends on which. Read with a regular expression over
// import/export statements, which is enough for this tree: no dynamic require, no path magic
// besides '@/'.

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

const SOURCE = /\.(ts|tsx|mts)$/;
const IMPORT = /(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/g;

function walk(dir: string, out: string[]) {
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(rel, out);
    else if (SOURCE.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) out.push(rel);
  }
}

function resolve(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith('@/')) base = spec.slice(2);
  else if (spec.startsWith('.')) base = path.join(path.dirname(from), spec);
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    const abs = path.join(ROOT, candidate);
    if (fs.existsSync(abs) && fs.statSync(abs).isFile()) return path.normalize(candidate);
  }
  return path.normalize(base);
}

/** Every import between the project's own production files (tests excluded). */
export function productionImports(dirs = ['server', 'components', 'app']): ImportEdge[] {
  const files: string[] = [];
  for (const dir of dirs) walk(dir, files);
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const source = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const m of source.matchAll(IMPORT)) {
      const spec = m[3] ?? '';
      const to = resolve(file, spec);
      if (to) edges.push({ from: file, to, typeOnly: Boolean(m[2]) });
      else edges.push({ from: file, to: spec, typeOnly: Boolean(m[2]) });
    }
  }
  return edges;
}

/** server/<folder> (or server/<file> for a top-level module), components/<folder>, app. */
export function areaOf(file: string): string {
  const parts = file.split(path.sep);
  if (parts[0] === 'server') return `server/${(parts[1] ?? '').replace(/\.tsx?$/, '')}`;
  if (parts[0] === 'components') return `components/${(parts[1] ?? '').replace(/\.tsx?$/, '')}`;
  return parts[0] ?? file;
}

/** Pairs of areas that import each other, with one file-level example each way. */
export function areaCycles(edges: ImportEdge[]): string[] {
  const between = new Map<string, string>();
  for (const e of edges) {
    if (!e.to.includes(path.sep) && !e.to.startsWith('server') && !e.to.startsWith('components')) continue;
    const a = areaOf(e.from);
    const b = areaOf(e.to);
    if (a !== b && !between.has(`${a} -> ${b}`)) between.set(`${a} -> ${b}`, `${e.from} -> ${e.to}`);
  }
  const cycles: string[] = [];
  for (const [key, example] of between) {
    const [a, b] = key.split(' -> ') as [string, string];
    const back = between.get(`${b} -> ${a}`);
    if (back && a < b) cycles.push(`${a} <-> ${b}: ${example}; ${back}`);
  }
  return cycles;
}
