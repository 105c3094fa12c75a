import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import { DEFAULT_FORM, type FormName, parseFormName } from '../../server/domain';
import { hasMalformedPathEncoding } from '../../server/http/malformed-path';

// The contract is tested, not hoped. Every /v1 answer a test receives through test-app's `request`
// is checked against the published OpenAPI document of the form it was answered in: its status is
// documented for the operation, its body matches that status's schema, and its headers are the
// documented ones. Any drift fails the test that made the request.

type Json = { [key: string]: unknown };
type Operation = { responses: Record<string, Json> };
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Json } };

/** What a validator saw, summed over the process (written to test-results/ when an app closes). */
export const contractCounts = { validated: 0, outsideContract: 0 };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// RFC 3339 date-time, as JSON Schema's `date-time` format has it.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export function newAjv(): Ajv2020 {
  // strict: unknown keywords and formats are errors, not silently ignored.
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
  ajv.addFormat('uuid', UUID);
  ajv.addFormat('date-time', (s: string) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)));
  ajv.addFormat('uri', (s: string) => URL.canParse(s));
  // OpenAPI's integer formats: a signed 32- or 64-bit integer.
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  // OpenAPI 3.1's own annotations on schemas.
  for (const keyword of ['example', 'xml', 'externalDocs', 'discriminator']) ajv.addKeyword(keyword);
  return ajv;
}

/** `#/components/schemas/X` becomes a reference into the schema registered as `id`. */
export function rebase(schema: unknown, id: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => rebase(s, id));
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
        ? `${id}#/$defs/${v.slice('#/components/schemas/'.length)}`
        : rebase(v, id),
    ]),
  );
}

interface FormContract {
  doc: Document;
  /** Every response header the document names somewhere: one of them on an answer must be documented there. */
  knownHeaders: Set<string>;
  ajv: Ajv2020;
  id: string;
  compiled: Map<string, ValidateFunction>;
}

export interface ContractRequest {
  method: string;
  path: string;
  headers: Headers;
}

export interface ContractResponse {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * A validator for one app. `keyForm` says which form an API key was created for (undefined for
 * no such key); documents are fetched from the app's own /api/openapi.json, once per form.
 */
export function createContractValidator(opts: {
  baseUrl: string;
  keyForm(key: string): Promise<FormName | undefined>;
}) {
  const contracts = new Map<FormName, Promise<FormContract>>();

  function contractOf(form: FormName): Promise<FormContract> {
    let contract = contracts.get(form);
    if (!contract) {
      contract = (async () => {
        const res = await fetch(`${opts.baseUrl}/api/openapi.json?form=${form}`);
        if (res.status !== 200) throw new Error(`OpenAPI document of Form ${form}: ${res.status}`);
        const doc = (await res.json()) as Document;
        const ajv = newAjv();
        const id = `urn:openapi:form-${form}`;
        ajv.addSchema({ $id: id, $defs: rebase(doc.components.schemas, id) as Json });
        const knownHeaders = new Set<string>();
        for (const item of Object.values(doc.paths))
          for (const op of Object.values(item))
            for (const response of Object.values(op.responses ?? {}))
              for (const name of Object.keys((response.headers as Json | undefined) ?? {}))
                knownHeaders.add(name.toLowerCase());
        return { doc, ajv, id, knownHeaders, compiled: new Map() };
      })();
      contract.catch(() => contracts.delete(form));
      contracts.set(form, contract);
    }
    return contract;
  }

  /** The form a request is answered in, as the service decides it. */
  async function answeringForm(req: ContractRequest, res: ContractResponse, pathname: string) {
    const header = req.headers.get('x-api-form');
    // An X-API-Form naming no form is refused in the default form.
    if (header !== null) return parseFormName(header) ?? DEFAULT_FORM;
    // Decided before a key names a form: a 401, and a malformed path.
    if (res.status === 401 || hasMalformedPathEncoding(pathname)) return DEFAULT_FORM;
    const token = req.headers.get('authorization')?.match(/^\s*Bearer\s+(\S+)\s*$/i)?.[1];
    return (token && (await opts.keyForm(token))) || DEFAULT_FORM;
  }

  return async function validateAgainstContract(req: ContractRequest, res: ContractResponse): Promise<void> {
    const pathname = new URL(req.path, opts.baseUrl).pathname;
    if (!pathname.startsWith('/v1/')) return;
    const form = await answeringForm(req, res, pathname);
    const contract = await contractOf(form);
    const method = req.method.toLowerCase();
    const route = pathname.slice('/v1'.length);
    const template = Object.keys(contract.doc.paths).find((t) =>
      new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(route),
    );
    const operation = template ? contract.doc.paths[template]?.[method] : undefined;
    // A method + path the form does not offer is outside the contract (the service answers it 404).
    if (!template || !operation) {
      contractCounts.outsideContract++;
      return;
    }
    const where = `${req.method} ${req.path} (${method.toUpperCase()} ${template}), Form ${form}, status ${res.status}`;
    const fail = (problems: string[]) => {
      throw new Error(`OpenAPI contract: ${where}: ${problems.join('; ')}\nbody: ${res.text.slice(0, 500)}`);
    };
    const response = operation.responses[String(res.status)] as
      | { headers?: Record<string, Json>; content?: Record<string, { schema: Json }> }
      | undefined;
    if (!response) return fail([`status ${res.status} is not documented for this operation`]);

    const problems: string[] = [];
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = res.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`header ${name} is required but absent`);
        continue;
      }
      const schema = header.schema as Json;
      // A header named only to say it is never sent here (a schema no value matches).
      if (JSON.stringify(schema) === '{"not":{}}') {
        problems.push(`header ${name} is not documented here: the document says it is never sent`);
        continue;
      }
      const key = `header ${JSON.stringify(schema)}`;
      let check = contract.compiled.get(key);
      if (!check) {
        check = contract.ajv.compile(rebase(schema, contract.id) as Json);
        contract.compiled.set(key, check);
      }
      const typed = schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (!check(typed)) problems.push(`header ${name}: ${value}: ${contract.ajv.errorsText(check.errors)}`);
    }

    const documented = new Set(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase()));
    for (const name of contract.knownHeaders) {
      if (!documented.has(name) && res.headers.has(name))
        problems.push(`header ${name} is not documented here`);
    }

    const json = response.content?.['application/json'];
    if (!json) {
      if (res.text !== '') problems.push('a body where the document says there is none');
    } else {
      const contentType = res.headers.get('content-type') ?? '';
      if (!contentType.includes('application/json')) problems.push(`Content-Type ${contentType}`);
      let body: unknown;
      try {
        body = JSON.parse(res.text);
      } catch {
        problems.push('the body is not JSON');
      }
      if (body !== undefined) {
        // A 401 documented as "this form's, or the default form's without X-API-Form" (anyOf)
        // is judged by the branch that applies, so a form leak still fails: the form's own body
        // (the first branch) when the request named its form.
        const named = req.headers.get('x-api-form') !== null;
        const branches = (json.schema as { anyOf?: Json[] }).anyOf;
        const schema = branches && named ? (branches[0] as Json) : json.schema;
        const key = `${template} ${method} ${res.status} ${named}`;
        let check = contract.compiled.get(key);
        if (!check) {
          check = contract.ajv.compile(rebase(schema, contract.id) as Json);
          contract.compiled.set(key, check);
        }
        if (!check(body))
          problems.push(`body: ${contract.ajv.errorsText(check.errors, { separator: '; ' })}`);
      }
    }
    if (problems.length) fail(problems);
    contractCounts.validated++;
  };
}

/** Appends this process's counts to test-results/openapi-contract.log, a line per test file. */
export function recordContractCounts(testFile: string | undefined) {
  const dir = path.join(process.cwd(), 'test-results');
  mkdirSync(dir, { recursive: true });
  const file = testFile ? path.relative(process.cwd(), testFile) : 'unknown';
  appendFileSync(
    path.join(dir, 'openapi-contract.log'),
    `${file}\tvalidated=${contractCounts.validated}\toutside=${contractCounts.outsideContract}\n`,
  );
  contractCounts.validated = 0;
  contractCounts.outsideContract = 0;
}
