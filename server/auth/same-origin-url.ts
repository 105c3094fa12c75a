/** Where a sign-in lands when its callbackUrl is missing or leads elsewhere. */
export const DEFAULT_LANDING_PATH = '/notes';

/**
 * The absolute URL to send a browser to after signing in or out: `url` when it stays on
 * `baseUrl`'s origin (a path such as "/keys?x=1", or an absolute URL of that origin), otherwise
 * the default landing page. Parsed the way a browser parses it, so "//evil.example",
 * "/\evil.example", "https://evil.example" and "javascript:…" all land on the default; any
 * backslash or control character is refused outright rather than guessed about.
 */
export function sameOriginUrl(url: unknown, baseUrl: string): string {
  const base = new URL(baseUrl);
  const fallback = new URL(DEFAULT_LANDING_PATH, base).toString();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: input validation: a URL with a control character is refused
  if (typeof url !== 'string' || !url || url.length > 2048 || /[\\\u0000-\u001f\u007f]/.test(url))
    return fallback;
  let target: URL;
  try {
    target = new URL(url, base);
  } catch {
    return fallback;
  }
  if (target.origin !== base.origin || (target.protocol !== 'http:' && target.protocol !== 'https:'))
    return fallback;
  return target.toString();
}
