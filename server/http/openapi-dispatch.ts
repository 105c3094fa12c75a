import type { TRPCError } from '@trpc/server';
import { createOpenApiNodeHttpHandler, type OpenApiRouter } from 'trpc-to-openapi';
import { AppError } from '../errors';
import type { RestMeta } from './openapi-trpc';
import { unstorableInputError } from './storable-input';

/** A procedure's answer as trpc-to-openapi writes it: its status, and its JSON text (null for none). */
export interface DispatchAnswer {
  status: number;
  body: string | null;
}

export type DispatchResult = { answer: DispatchAnswer } | { error: unknown };

type ProcedureRecord = Record<
  string,
  { _def: { meta?: Partial<RestMeta> & { openapi?: { method: string; path: string } }; inputs?: unknown[] } }
>;

/** The routes the router offers, as (method, path pattern) pairs; `{id}` matches one segment. */
function offeredRoutes(procedures: ProcedureRecord): { method: string; path: RegExp; template: string }[] {
  return Object.values(procedures).flatMap((procedure) => {
    const openapi = procedure._def.meta?.openapi;
    if (!openapi) return [];
    const pattern = openapi.path
      .split('/')
      .map((segment) =>
        /^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    return [
      { method: openapi.method.toUpperCase(), path: new RegExp(`^${pattern}/?$`), template: openapi.path },
    ];
  });
}

/** Names of every top-level input field of the router's procedures (transform pipes unwrapped). */
function inputFieldNames(procedures: ProcedureRecord): Set<string> {
  const names = new Set<string>();
  for (const procedure of Object.values(procedures)) {
    for (const input of procedure._def.inputs ?? []) {
      let schema = input as {
        _zod?: { def: { type: string; in?: unknown; shape?: Record<string, unknown> } };
      };
      while (schema?._zod?.def.type === 'pipe') schema = schema._zod.def.in as typeof schema;
      for (const name of Object.keys(schema?._zod?.def.shape ?? {})) names.add(name);
    }
  }
  return names;
}

/**
 * The query as trpc-to-openapi reads it from `req.query`: only the parameters some procedure
 * takes (the others are ignored), in an object without a prototype. Left to itself,
 * trpc-to-openapi 3.3.0 (adapters/node-http/input.ts, getQuery) collects the query into a plain
 * `{}` with `if (!parsedQs[key]) parsedQs[key] = []; parsedQs[key].push(value)`, so a parameter named
 * `constructor`, `toString`, `valueOf`, `hasOwnProperty` or `__proto__` finds an inherited
 * member instead of an array and throws a TypeError. Each parameter stays an array, as the
 * adapter expects: it skips a lone value that is an empty string, where `['']` gives it `''`.
 */
function knownQuery(params: URLSearchParams, known: Set<string>): Record<string, string[]> {
  const query = Object.create(null) as Record<string, string[]>;
  for (const name of known) {
    const values = params.getAll(name);
    if (values.length > 0) query[name] = values;
  }
  return query;
}

/** An answer as a Response: with `headers`, and Content-Type JSON when it has a body. */
export function answerResponse(answer: DispatchAnswer, headers: Record<string, string>): Response {
  return new Response(answer.body, {
    status: answer.status,
    headers: answer.body === null ? headers : { ...headers, 'Content-Type': 'application/json' },
  });
}

/**
 * Runs a request through trpc-to-openapi's handler for one router. The handler is built once
 * per router: building it validates the whole router, which the package's fetch adapter does on
 * every request (docs/performance.md#the-openapi-dispatcher-and-the-trpc-to-openapi-pin). Errors
 * are handed back to the caller instead of being written, since each API form writes its own
 * error bodies.
 *
 * `url` is the request's URL as the caller parsed it, and `body` the request body already read
 * and parsed as JSON.
 */
export function createOpenApiDispatcher<TContext extends object>(router: OpenApiRouter, prefix: string) {
  const contexts = new WeakMap<object, TContext>();
  const errors = new WeakMap<object, unknown>();
  const procedures = router._def.procedures as unknown as ProcedureRecord;
  const knownParams = inputFieldNames(procedures);
  const routes = offeredRoutes(procedures);

  /**
   * The offered route that answers this method and path (the request's, still with the prefix), as
   * its document writes it (`/v1/notes/{id}`). Asked before the body is read, so a route the form
   * does not offer is a 404 whatever its body (not a 400 about the body).
   */
  function routeOf(method: string, pathname: string): string | undefined {
    const asked = method === 'HEAD' ? 'GET' : method;
    const path = pathname.slice(prefix.length) || '/';
    const route = routes.find((r) => r.method === asked && r.path.test(path));
    return route && `${prefix}${route.template}`;
  }

  const handle = createOpenApiNodeHttpHandler({
    router,
    createContext: ({ req }: { req: object }) => contexts.get(req),
    onError: ({ error, req }: { error: TRPCError; req: object }) => {
      errors.set(req, error);
    },
    responseMeta: ({ paths, errors: errs }: { paths?: string[]; errors: unknown[] }) => {
      if (errs.length > 0 || !paths?.[0]) return {};
      return { status: procedures[paths[0]]?._def.meta?.rest?.status ?? 200 };
    },
  } as never) as unknown as (req: unknown, res: unknown) => Promise<void>;

  async function dispatch(request: Request, url: URL, ctx: TContext, body: unknown): Promise<DispatchResult> {
    // A parameter given twice is malformed (unknown ones are ignored, however often they come).
    for (const name of new Set(url.searchParams.keys())) {
      if (knownParams.has(name) && url.searchParams.getAll(name).length > 1) {
        return { error: new AppError('invalid_request', `${name} must be given once`) };
      }
    }
    // The path as the router's documents write it, without the prefix.
    const href = `${url.origin}${url.pathname.slice(prefix.length) || '/'}${url.search}`;
    const query = knownQuery(url.searchParams, knownParams);
    // Text PostgreSQL would refuse (NUL, lone surrogates) anywhere in the input as the procedure
    // would receive it: the body, or else the query's parameters (each given once, by now). The
    // path is percent-encoded ASCII, which cannot hold such text.
    const unstorable = unstorableInputError(
      body ?? Object.fromEntries(Object.entries(query).map(([name, [value]]) => [name, value])),
    );
    if (unstorable) return { error: unstorable };
    const req = new Proxy(request, {
      get(target, prop) {
        if (prop === 'url') return href;
        // HEAD is GET without the body (RFC 9110), which the HTTP server leaves out; left as
        // HEAD, trpc-to-openapi would answer every path with an empty 204.
        if (prop === 'method') return target.method === 'HEAD' ? 'GET' : target.method;
        if (prop === 'query') return query;
        if (prop === 'body') return body;
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    contexts.set(req, ctx);
    let status = 200;
    let answer: DispatchAnswer | undefined;
    // Only what the adapter calls. It writes its answer before its promise settles; its one
    // header is Content-Type, which the caller writes itself (JSON whenever there is a body).
    const res = {
      setHeader() {},
      get statusCode() {
        return status;
      },
      set statusCode(code: number) {
        status = code;
      },
      end(payload?: string) {
        answer = { status, body: status === 204 || payload === undefined ? null : payload };
      },
    };
    await handle(req, res);
    const error = errors.get(req);
    if (error !== undefined) return { error };
    if (!answer) throw new Error('trpc-to-openapi finished without an answer');
    return { answer };
  }

  return Object.assign(dispatch, { routeOf });
}
