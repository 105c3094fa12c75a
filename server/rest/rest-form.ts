import type { OpenApiRouter } from 'trpc-to-openapi';
import type { ApiPrincipal } from '../accounts/authenticate-api-key';
import type { FormName } from '../db/schema';
import type { AppError } from '../errors';
import type { RateLimitWindow } from '../rate-limit/consume-rate-limit';

/** Everything in which the two API forms differ: their routes and shapes, error format and limits. */
export interface RestForm {
  name: FormName;
  router: OpenApiRouter;
  presentError(err: AppError): { status: number; body: unknown };
  /** D22: the windows a request counts against, the form's own first (its headers, D14). */
  rateLimitWindows(principal: ApiPrincipal, now: Date): RateLimitWindow[];
}
