import type { OpenApiRouter } from 'trpc-to-openapi';
import type { ApiPrincipal } from '../accounts/authenticate-api-key';
import type { FormName, Platform } from '../domain';
import type { RateLimitWindow } from '../rate-limit/consume-rate-limit';
import type { RateLimitRule } from '../rate-limit/plan-limits';
import { formA } from './form-a';
import { formB } from './form-b';
import type { FormProfile } from './form-profiles';

// A form is its folder plus one line in each registry: FORM_PROFILES in ./form-profiles.ts
// (what it says, light enough for the proxy and the browser) and FORMS here (what it serves,
// server only). Every place that differs by form looks the form up in one of the two; the
// compiler refuses a FormName (server/domain.ts) missing from either. The form folders import
// only types from here, so the registry below and the forms never load in a cycle.

/**
 * How a form names platforms and bounds a date range, for surfaces outside its router that speak
 * the key's form (the MCP server): the same rules as its list's filters.
 */
export interface NotesVocabulary {
  /** The platforms a filter may name, and a note's platform is written as. */
  platforms: readonly [string, ...string[]];
  /** The stored platforms a filter's platform stands for. */
  platformsOf(platform: string): Platform[];
  /** A stored platform in the form's words. */
  presentPlatform(platform: Platform): string;
  /** Whether created_before includes its own instant. */
  createdBeforeInclusive: boolean;
}

/** An API form complete: what it says (its profile) and what it serves. */
export interface RestForm extends FormProfile {
  /** Its routes, schemas and presenters. */
  router: OpenApiRouter;
  /** The kinds of window a request counts against, the form's own first (its X-RateLimit-* headers). */
  rateLimits: readonly RateLimitRule[];
  /** The same windows for one principal. */
  rateLimitWindows(principal: ApiPrincipal, now: Date): RateLimitWindow[];
  /**
   * The success body of each operation with one (`GET /notes`, ...), written by the
   * form's presenters from the sample records of openapi-samples.ts: the document's examples.
   */
  openApiExamples(): Record<string, unknown>;
  notesVocabulary: NotesVocabulary;
}

/** The registry of API forms as served. */
export const FORMS: Record<FormName, RestForm> = { A: formA, B: formB };

/** One value per form, built from its entry: a form added to the registry is never missed. */
export function mapForms<T>(build: (form: RestForm) => T): Record<FormName, T> {
  return Object.fromEntries(
    (Object.keys(FORMS) as FormName[]).map((name) => [name, build(FORMS[name])]),
  ) as Record<FormName, T>;
}
