import type { z } from 'zod';

/**
 * Gives a procedure its response schema for the OpenAPI document only: the
 * schema is what trpc-to-openapi publishes (it reads `_def.output`), but, unlike `.output()`,
 * tRPC does not parse every response through it, which on a page of notes re-validated every
 * segment of every transcript. The shape is guaranteed instead by the presenters' return types
 * (`z.input` of this schema: the compiler checks the resolver against it) and by the tests, which
 * validate every response against the published document (test/support/openapi-contract.ts).
 * Presenters build every object field by field, so nothing unlisted reaches the wire.
 */
export function documentedOutput<TProcedure extends { _def: object }, TOut>(
  schema: z.ZodType<unknown, TOut>,
  procedure: TProcedure & { _def: { $types: { output: NoInfer<TOut> } } },
): TProcedure {
  (procedure._def as { output?: unknown }).output = schema;
  return procedure;
}
