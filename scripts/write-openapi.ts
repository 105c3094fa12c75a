// npm run lint:openapi: writes each form's OpenAPI document and the recorder API's to a directory (default: a temporary
// one) and, with --lint, runs `redocly lint` on them (redocly.yaml: zero problems), then Spectral
// with its OpenAPI rules and the OWASP ruleset (.spectral.yaml: no problem of severity error).
// The origin is a fixed example, so the files do not depend on where the service would run.
//   tsx scripts/write-openapi.ts [--lint] [dir]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FORM_NAMES } from '../server/domain';
import { recorderOpenApiDocument } from '../server/recorder/recorder-openapi';
import { openApiDocumentFor } from '../server/rest/openapi-document';

const EXAMPLE_ORIGIN = 'https://api.example.com';

const args = process.argv.slice(2);
const lint = args.includes('--lint');
const given = args.find((a) => !a.startsWith('--'));
const dir = given ?? mkdtempSync(join(tmpdir(), 'openapi-'));
mkdirSync(dir, { recursive: true });
const documents = [
  ...FORM_NAMES.map((form) => ({
    name: `openapi-form-${form.toLowerCase()}.json`,
    doc: openApiDocumentFor(form, EXAMPLE_ORIGIN),
  })),
  { name: 'openapi-recorder.json', doc: recorderOpenApiDocument(EXAMPLE_ORIGIN) },
];
const files = documents.map(({ name, doc }) => {
  const file = join(dir, name);
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  return file;
});

if (lint) {
  const bin = (name: string) => join(process.cwd(), 'node_modules', '.bin', name);
  const redocly = spawnSync(
    bin('redocly'),
    ['lint', '--config', join(process.cwd(), 'redocly.yaml'), ...files],
    {
      stdio: 'inherit',
      // Nothing leaves the machine: no usage telemetry, no update check (redocly.yaml says so too).
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
      },
    },
  );
  // Spectral lints each file and exits non-zero on any error; warnings are shown, not failed.
  const spectral = spawnSync(
    bin('spectral'),
    ['lint', '--ruleset', join(process.cwd(), '.spectral.yaml'), '--fail-severity', 'error', ...files],
    { stdio: 'inherit' },
  );
  if (!given) rmSync(dir, { recursive: true, force: true });
  process.exit(redocly.status === 0 ? (spectral.status ?? 1) : (redocly.status ?? 1));
} else {
  for (const file of files) console.log(file);
}
