/** Where signing in lands when nothing (or nothing acceptable) asked for another page. */
export const DEFAULT_CALLBACK_PATH = '/notes';

/** The request header through which proxy.ts tells the settings layout which page was asked for. */
export const REQUESTED_PATH_HEADER = 'x-requested-path';

// biome-ignore lint/suspicious/noControlCharactersInRegex: input validation: a target with a control character is refused
const UNSAFE = /[\\\u0000-\u001f\u007f]/;

/**
 * The page to return to after signing in: a path of this site ("/webhooks/…?x=1"), else
 * DEFAULT_CALLBACK_PATH. Only a single leading "/" is accepted: "//host" and "/\host" are other
 * sites to a browser, and a backslash or control character anywhere is refused rather than
 * guessed about. An absolute URL of `origin` (next-auth's own pages hand those on) becomes its path.
 * next-auth's redirect callback checks the target again on the server (same-origin-url.ts).
 */
export function safeCallbackPath(value: string | null | undefined, origin?: string): string {
  if (!value || value.length > 2048) return DEFAULT_CALLBACK_PATH;
  const path = origin && value.startsWith(`${origin}/`) ? value.slice(origin.length) : value;
  if (!path.startsWith('/') || path.startsWith('//') || UNSAFE.test(path)) return DEFAULT_CALLBACK_PATH;
  // Back to the sign-in page would only ask again.
  if (/^\/sign-(in|up)(?:[/?#]|$)/.test(path)) return DEFAULT_CALLBACK_PATH;
  return path;
}

/** The sign-in page, asked to come back to `path` (when it is acceptable) afterwards. */
export function signInPathFor(path: string | null | undefined): string {
  return path ? `/sign-in?callbackUrl=${encodeURIComponent(safeCallbackPath(path))}` : '/sign-in';
}
