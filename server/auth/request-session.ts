import { getToken } from 'next-auth/jwt';
import type { Queryable } from '../db/client';
import { findLiveAuthSession } from './auth-sessions';

// next-auth names the cookie with the __Secure- prefix when the site is served over https.
const SESSION_COOKIES = ['__Secure-next-auth.session-token', 'next-auth.session-token'] as const;

/** A Cookie header's cookies, the first of each name, values percent-decoded where they decode. */
export function parseCookies(header: string | null): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch {
      /* kept as sent */
    }
    if (name && !cookies.has(name)) cookies.set(name, value);
  }
  return cookies;
}

/**
 * The account signed in on this request, read without next-auth's route or Next's request
 * context (so any fetch handler can use it): the session cookie's JWT decrypted with the secret,
 * then its session row checked, exactly as the jwt callback of auth-options.ts does. A cookie
 * that does not decrypt, a token from before session rows, or an ended session: null.
 */
export async function sessionAccountId(
  db: Queryable,
  request: Request,
  secret: string | undefined,
): Promise<string | null> {
  if (!secret) return null;
  const cookies = parseCookies(request.headers.get('cookie'));
  for (const cookieName of SESSION_COOKIES) {
    if (![...cookies.keys()].some((name) => name.startsWith(cookieName))) continue;
    const token = await getToken({
      req: { headers: {}, cookies } as never,
      secret,
      cookieName,
      secureCookie: cookieName.startsWith('__Secure-'),
    });
    if (!token) return null;
    return (await findLiveAuthSession(db, token.sid))?.accountId ?? null;
  }
  return null;
}
