// What the settings app says when a call fails. Never the raw text of a failed
// fetch ("Failed to fetch") or of a schema check ("Too big: expected string to have <=256
// characters"); the service's own messages (AppError, server/api/trpc.ts errorFormatter) are
// already written for people and are shown as they are.

export const OFFLINE_MESSAGE =
  'You appear to be offline, or the service could not be reached. Check your connection and try again.';
export const SERVER_MESSAGE = 'Something went wrong on our side. Please try again in a moment.';

interface ErrorLike {
  message?: unknown;
  data?: { code?: unknown; httpStatus?: unknown } | null;
  cause?: unknown;
  name?: unknown;
}

/** zod 4's default messages, which reach the browser when a field has no message of its own. */
const ZOD_DEFAULTS: [RegExp, (m: RegExpMatchArray) => string][] = [
  [
    /^Too big: expected string to have <=?(\d+) characters?/i,
    (m) => `That is too long: at most ${m[1]} characters.`,
  ],
  [
    /^Too small: expected string to have >=?(\d+) characters?/i,
    (m) => (m[1] === '1' ? 'This cannot be empty.' : `That is too short: at least ${m[1]} characters.`),
  ],
  [/^Too big: expected (?:number|int) to be <=?(\S+)/i, (m) => `That number is too large: at most ${m[1]}.`],
  [
    /^Too small: expected (?:number|int) to be >=?(\S+)/i,
    (m) => `That number is too small: at least ${m[1]}.`,
  ],
  [/^Too big: expected array to have <=?(\d+) items?/i, (m) => `Too many chosen: at most ${m[1]}.`],
  [/^Too small: expected array to have >=?(\d+) items?/i, (m) => `Choose at least ${m[1]}.`],
  [/^Invalid (?:uuid|guid|UUID|GUID)/, () => 'That id is not valid: check the link.'],
  [/^Invalid (?:url|URL)/, () => 'That is not a valid URL.'],
  [/^Invalid (?:email|email address)/i, () => 'That is not a valid email address.'],
  [/^Invalid (?:ISO )?datetime|^Invalid date/i, () => 'That date is not valid.'],
  [/^Invalid (?:option|enum value)/i, () => 'That choice is not one of the options.'],
  [/^Invalid input|^Unrecognized key|^Expected /i, () => 'Some of what was entered is not valid.'],
];

function isNetworkFailure(error: ErrorLike): boolean {
  if (typeof navigator !== 'undefined' && navigator.onLine === false) return true;
  // tRPC wraps the fetch's TypeError; a response that was not the service's JSON (a proxy's
  // error page) has no data either.
  const texts = [error.message, (error.cause as ErrorLike | undefined)?.message].filter(
    (t): t is string => typeof t === 'string',
  );
  return texts.some((t) =>
    /failed to fetch|networkerror|network request failed|load failed|fetch failed|unexpected token|not valid json|JSON\.parse/i.test(
      t,
    ),
  );
}

/** A sentence for a person: offline, a validation message made plain, or the service's own text. */
export function friendlyMessage(error: unknown): string {
  if (!error) return '';
  const e = (typeof error === 'object' ? error : { message: String(error) }) as ErrorLike;
  const code = typeof e.data?.code === 'string' ? e.data.code : undefined;
  if (!code && isNetworkFailure(e)) return OFFLINE_MESSAGE;
  const message = typeof e.message === 'string' ? e.message.trim() : '';
  if (code === 'INTERNAL_SERVER_ERROR' || (!code && !message)) return SERVER_MESSAGE;
  for (const [pattern, say] of ZOD_DEFAULTS) {
    const match = message.match(pattern);
    if (match) return say(match);
  }
  // A zod error that escaped as JSON (an array of issues) is never shown as it is.
  if (message.startsWith('[') || message.startsWith('{')) return 'Some of what was entered is not valid.';
  if (!code) return isNetworkFailure(e) ? OFFLINE_MESSAGE : message || SERVER_MESSAGE;
  return message;
}

/** Whether trying the same call again may help (not for "not found" or a refused input). */
export function isRetryable(error: unknown): boolean {
  const code = (error as ErrorLike | null)?.data?.code;
  return !(code === 'BAD_REQUEST' || code === 'NOT_FOUND' || code === 'FORBIDDEN' || code === 'UNAUTHORIZED');
}
