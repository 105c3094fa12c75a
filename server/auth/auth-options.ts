import type { NextAuthOptions } from 'next-auth';
import CredentialsModule from 'next-auth/providers/credentials';
import GitHubModule from 'next-auth/providers/github';
import GoogleModule from 'next-auth/providers/google';
import { createAccount, findAccountByEmail, PASSWORD_HASH_COST, verifyPassword } from '../accounts/accounts';
import { passwordTooLong } from '../accounts/password-policy';
import { getDatabase as getConfiguredDatabase } from '../db';
import type { Database } from '../db/client';
import { getEnv, isNextDev, type Env } from '../env';
import { log } from '../log';
import { authLogger, SessionEndedError } from './auth-logger';
import { cjsDefault } from './cjs-default';
import {
  endAuthSession,
  findLiveAuthSession,
  SESSION_MAX_AGE_SECONDS,
  startAuthSession,
} from './auth-sessions';
import { clientAddress } from './client-address';
import { providerVouchesForEmail } from './oauth-email';
import { sameOriginUrl } from './same-origin-url';
import { consumeSignInAttempt } from './throttle-attempts';

const CredentialsProvider = cjsDefault(CredentialsModule);
const GitHubProvider = cjsDefault(GitHubModule);
const GoogleProvider = cjsDefault(GoogleModule);

/** What the settings app's authentication is configured with (from the environment). */
export interface AuthSettings {
  /** Signs and encrypts the session JWTs. */
  secret: string | undefined;
  /** TRUST_PROXY: proxies in front of the server that append to X-Forwarded-For. */
  trustProxyHops: number;
  github?: { clientId: string; clientSecret: string };
  google?: { clientId: string; clientSecret: string };
  /** Where GitHub's REST API answers (its public address unless a test stands in for it). */
  githubApiUrl?: string;
}

export function authSettings(env: Env = getEnv()): AuthSettings {
  return {
    // next-auth derives a secret of its own under `next dev` when none is set, but the tRPC
    // route decodes the session without next-auth's help and needs the very same one.
    secret: env.NEXTAUTH_SECRET ?? (isNextDev() ? 'meeting-notes-development-only-secret' : undefined),
    trustProxyHops: env.TRUST_PROXY,
    ...(env.GITHUB_ID &&
      env.GITHUB_SECRET && { github: { clientId: env.GITHUB_ID, clientSecret: env.GITHUB_SECRET } }),
    ...(env.GOOGLE_CLIENT_ID &&
      env.GOOGLE_CLIENT_SECRET && {
        google: { clientId: env.GOOGLE_CLIENT_ID, clientSecret: env.GOOGLE_CLIENT_SECRET },
      }),
  };
}

export interface AuthDeps {
  getDatabase(): Promise<Database>;
  settings: AuthSettings;
}

/**
 * The error a throttled sign-in reports, with the seconds to wait after a colon; the sign-in
 * form reads it, and the auth route answers it with 429 and Retry-After.
 */
export const SIGN_IN_THROTTLED = 'TooManyAttempts';

/**
 * A real bcrypt hash, at the accounts' cost, of a random password nobody knows: a sign-in for an
 * email without an account compares against it, so it takes as long as one with an account and
 * the answer time does not tell whether the address is registered.
 */
export const NO_ACCOUNT_HASH =
  PASSWORD_HASH_COST === 12
    ? '$2b$12$G8Zx2s1/XSrpKM1jY0uYlOrmwoP9wqI6q5onH5ZmLClPmlfjO2V2i'
    : '$2b$04$WWdMrPZdXxRIAUcP2iIycunRBy2nbadRlyngDinAIrSEARNl9ujG.';

// biome-ignore lint/suspicious/noControlCharactersInRegex: input validation: finding control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/**
 * next-auth v4: email and password (bcrypt), plus GitHub and Google when configured. Sessions
 * are JWTs (v4's Credentials provider does not work with database sessions) that carry the id of
 * a row in auth_sessions: the jwt callback checks that row whenever next-auth reads the session
 * (its session endpoint, getServerSession in pages), and the tRPC route does the same
 * (request-session.ts), so a session ends for real when it is signed out.
 */
export function createAuthOptions(deps: AuthDeps): NextAuthOptions {
  const { settings } = deps;
  const oauth = [
    ...(settings.github ? [GitHubProvider(settings.github)] : []),
    ...(settings.google ? [GoogleProvider(settings.google)] : []),
  ];
  return {
    secret: settings.secret,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
    // Errors land on the sign-in page too, rather than on next-auth's own error page.
    pages: { signIn: '/sign-in', error: '/sign-in' },
    logger: authLogger,
    providers: [
      CredentialsProvider({
        name: 'Email and password',
        credentials: {
          email: { label: 'Email', type: 'email' },
          password: { label: 'Password', type: 'password' },
        },
        async authorize(credentials, req) {
          const email = typeof credentials?.email === 'string' ? credentials.email.trim() : '';
          const password = typeof credentials?.password === 'string' ? credentials.password : '';
          if (!email || !password || email.length > 320 || CONTROL_CHARACTERS.test(email)) return null;
          const { db } = await deps.getDatabase();
          const attempt = await consumeSignInAttempt(db, {
            email,
            address: clientAddress(req?.headers ?? {}, settings.trustProxyHops),
          });
          if (!attempt.allowed) throw new Error(`${SIGN_IN_THROTTLED}:${attempt.retryAfter}`);
          // Longer than bcrypt reads: never a match (its first 72 bytes alone must not sign in),
          // and refused before any hashing, whatever its size.
          if (passwordTooLong(password)) return null;
          const account = await findAccountByEmail(db, email);
          const matches = await verifyPassword(password, account?.passwordHash ?? NO_ACCOUNT_HASH);
          if (!account?.passwordHash || !matches) return null;
          await attempt.refund();
          return { id: account.id, email: account.email, name: account.name };
        },
      }),
      ...oauth,
    ],
    callbacks: {
      async signIn({ user, account, profile }) {
        if (account?.provider === 'credentials') return true;
        // OAuth: the address is the account, only when the provider vouches for it; the first
        // sign-in creates the account (verified, no early access, its mailbox not proven).
        if (!user.email || !account) return false;
        const vouched = await providerVouchesForEmail(
          { provider: account.provider, email: user.email, profile, accessToken: account.access_token },
          { githubApiUrl: settings.githubApiUrl },
        ).catch((err: unknown) => {
          log.warn('could not ask the OAuth provider whether the address is verified', {
            provider: account.provider,
            err,
          });
          return false;
        });
        if (!vouched) return false;
        const { db } = await deps.getDatabase();
        if (!(await findAccountByEmail(db, user.email)))
          await createAccount(db, { email: user.email, name: user.name ?? null }).catch(() => {});
        return true;
      },
      async jwt({ token, user, account }) {
        const { db } = await deps.getDatabase();
        if (user) {
          const accountId =
            account?.provider === 'credentials'
              ? user.id
              : user.email
                ? (await findAccountByEmail(db, user.email))?.id
                : undefined;
          if (!accountId) throw new SessionEndedError();
          return { ...token, accountId, sid: await startAuthSession(db, accountId) };
        }
        const live = await findLiveAuthSession(db, token.sid);
        // next-auth logs this (at info, see auth-logger.ts), clears the cookie and answers no session.
        if (!live) throw new SessionEndedError();
        return { ...token, accountId: live.accountId };
      },
      async session({ session, token }) {
        return { ...session, accountId: typeof token.accountId === 'string' ? token.accountId : undefined };
      },
      async redirect({ url, baseUrl }) {
        return sameOriginUrl(url, baseUrl);
      },
    },
    events: {
      async signOut({ token }) {
        try {
          const { db } = await deps.getDatabase();
          await endAuthSession(db, token?.sid);
        } catch (err) {
          // Said here, at error level: next-auth's own SIGNOUT_ERROR means a cookie that did not decrypt.
          log.error('sign-out could not end the session', { err });
        }
      },
    },
  };
}

/** The options of this server (its database and environment), for getServerSession in pages. */
export function authOptions(): NextAuthOptions {
  cachedOptions ??= createAuthOptions({ getDatabase: getConfiguredDatabase, settings: authSettings() });
  return cachedOptions;
}
let cachedOptions: NextAuthOptions | undefined;

declare module 'next-auth' {
  interface Session {
    accountId?: string;
  }
}
