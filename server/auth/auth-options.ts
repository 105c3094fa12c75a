import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import GitHubProvider from 'next-auth/providers/github';
import GoogleProvider from 'next-auth/providers/google';
import { createAccount, findAccountByEmail, verifyPassword } from '../accounts/accounts';
import { getDatabase } from '../db';
import { getEnv } from '../env';

/**
 * next-auth v4: email and password (bcrypt), plus GitHub and Google when their variables are
 * set. Sessions are JWTs (v4's Credentials provider does not work with database sessions)
 * carrying the account id; every UI procedure scopes by it.
 */
export function authOptions(): NextAuthOptions {
  const env = getEnv();
  const oauth = [
    ...(env.GITHUB_ID && env.GITHUB_SECRET ? [GitHubProvider({ clientId: env.GITHUB_ID, clientSecret: env.GITHUB_SECRET })] : []),
    ...(env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET
      ? [GoogleProvider({ clientId: env.GOOGLE_CLIENT_ID, clientSecret: env.GOOGLE_CLIENT_SECRET })]
      : []),
  ];
  return {
    secret: env.NEXTAUTH_SECRET,
    session: { strategy: 'jwt', maxAge: 30 * 24 * 3600 },
    pages: { signIn: '/sign-in' },
    providers: [
      CredentialsProvider({
        name: 'Email and password',
        credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
        async authorize(credentials) {
          if (!credentials?.email || !credentials.password) return null;
          const { db } = await getDatabase();
          const account = await findAccountByEmail(db, credentials.email);
          // Compare even without an account, so the answer takes as long either way.
          const ok = await verifyPassword(credentials.password, account?.passwordHash ?? '$2b$12$invalidinvalidinvalidinvalidinvalidinvalidinvalidinvali');
          return account && account.passwordHash && ok ? { id: account.id, email: account.email, name: account.name } : null;
        },
      }),
      ...oauth,
    ],
    callbacks: {
      async signIn({ user, account }) {
        if (account?.provider === 'credentials') return true;
        // OAuth: the verified email is the account; the first sign-in creates it (no early access).
        if (!user.email) return false;
        const { db } = await getDatabase();
        if (!(await findAccountByEmail(db, user.email))) await createAccount(db, { email: user.email, name: user.name ?? null });
        return true;
      },
      async jwt({ token, user }) {
        if (user?.email) {
          const { db } = await getDatabase();
          const account = await findAccountByEmail(db, user.email);
          if (account) token.accountId = account.id;
        }
        return token;
      },
      async session({ session, token }) {
        return { ...session, accountId: typeof token.accountId === 'string' ? token.accountId : undefined };
      },
    },
  };
}

declare module 'next-auth' {
  interface Session {
    accountId?: string;
  }
}
