import { z } from 'zod';
import type { FormName } from '../../server/domain';
import { FORMS } from '../../server/rest/forms';
import { recorderRouter } from '../../server/recorder/router';

// Every procedure the service answers, read from the routers themselves: a procedure or route
// added to a router (or a form added to the registry) is in these lists without anyone editing
// a test. Each comes with its input as JSON Schema (zod's own conversion, input side), from
// which the fuzz tests derive the fields to attack.

export type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  [key: string]: unknown;
};

type ProcedureDef = {
  _def: {
    type: 'query' | 'mutation' | 'subscription';
    inputs: unknown[];
    meta?: { openapi?: { method: string; path: string } };
  };
};

/** What a router is to these functions: tRPC v11 keeps its procedures flat and as a tree. */
export type RouterLike = { _def: { procedures: object; record: object } };

const procedureRecord = (router: RouterLike) =>
  router._def.procedures as unknown as Record<string, ProcedureDef>;

/**
 * A procedure's input as JSON Schema, or null when it takes none. Several `.input()` calls
 * merge their objects, as tRPC does.
 */
export function inputSchema(procedure: ProcedureDef): JsonSchema | null {
  const inputs = procedure._def.inputs;
  if (inputs.length === 0) return null;
  const schemas = inputs.map(
    (input) =>
      z.toJSONSchema(input as z.ZodType, { io: 'input', unrepresentable: 'any' }) as unknown as JsonSchema,
  );
  if (schemas.length === 1) return schemas[0] ?? null;
  return {
    type: 'object',
    properties: Object.assign({}, ...schemas.map((s) => s.properties ?? {})),
    required: schemas.flatMap((s) => s.required ?? []),
    $defs: Object.assign({}, ...schemas.map((s) => s.$defs ?? {})),
  };
}

export interface TrpcProcedure {
  /** The dotted path the client calls, e.g. `webhooks.update`. */
  path: string;
  type: 'query' | 'mutation' | 'subscription';
  input: JsonSchema | null;
}

/** Every procedure of a tRPC router, nested routers included. */
export function trpcProcedures(router: RouterLike): TrpcProcedure[] {
  return Object.entries(procedureRecord(router)).map(([path, procedure]) => ({
    path,
    type: procedure._def.type,
    input: inputSchema(procedure),
  }));
}

/**
 * The procedures of a router counted a second way, down its tree of nested routers rather than
 * from its flat list, so an enumeration that lost some (or all) of them does not pass unseen.
 */
export function countProceduresInTree(router: RouterLike): number {
  const walk = (node: object): number =>
    Object.values(node).reduce<number>((n, child: unknown) => {
      if (typeof child === 'function' && '_def' in child) return n + 1;
      if (child && typeof child === 'object') return n + walk(child);
      return n;
    }, 0);
  return walk(router._def.record);
}

export type RestSurface = 'v1' | 'recorder';

export interface RestRoute {
  surface: RestSurface;
  /** The form the route belongs to; the recorder answers as Form A. */
  form: FormName;
  method: string;
  /** The OpenAPI path, e.g. `/notes/{id}`, under the surface's prefix. */
  path: string;
  procedure: string;
  pathParams: string[];
  input: JsonSchema | null;
}

export const SURFACE_PREFIX: Record<RestSurface, string> = { v1: '/v1', recorder: '/api/recorder' };

/** Every route of a trpc-to-openapi router, from its procedures' OpenAPI meta. */
export function restRoutes(router: RouterLike, surface: RestSurface, form: FormName): RestRoute[] {
  return Object.entries(procedureRecord(router)).flatMap(([name, procedure]) => {
    const openapi = procedure._def.meta?.openapi;
    if (!openapi) return [];
    return [
      {
        surface,
        form,
        method: openapi.method.toUpperCase(),
        path: openapi.path,
        procedure: name,
        pathParams: [...openapi.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? ''),
        input: inputSchema(procedure),
      },
    ];
  });
}

/** Every /v1 operation of every registered form, and every recorder route (answered as Form A). */
export function everyRestRoute(): RestRoute[] {
  return [
    ...Object.entries(FORMS).flatMap(([form, served]) =>
      restRoutes(served.router as unknown as RouterLike, 'v1', form as FormName),
    ),
    ...restRoutes(recorderRouter as unknown as RouterLike, 'recorder', 'A'),
  ];
}

/** The routers behind everyRestRoute, for counting their procedures the other way. */
export function everyRestRouter(): RouterLike[] {
  return [
    ...Object.values(FORMS).map((served) => served.router as unknown as RouterLike),
    recorderRouter as unknown as RouterLike,
  ];
}
