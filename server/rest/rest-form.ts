import type { OpenApiRouter } from 'trpc-to-openapi';
import type { ApiPrincipal } from '../accounts/authenticate-api-key';
import type { RateLimitWindow } from '../rate-limit/consume-rate-limit';
import type { RateLimitRule } from '../rate-limit/plan-limits';
import type { FormProfile } from './form-profile';

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
}
