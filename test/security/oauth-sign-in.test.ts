import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NextAuthOptions } from 'next-auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAccountByEmail } from '../../server/accounts/accounts';
import { isOperatorAccount } from '../../server/accounts/operator-console';
import { createAuthOptions } from '../../server/auth/auth-options';
import { providerVouchesForEmail } from '../../server/auth/oauth-email';
import type { Database } from '../../server/db/client';
import { createTestDatabase } from '../support/test-database';

// An OAuth sign-in opens (or creates) the account of the provider's address only when the
// provider vouches for that address; otherwise anyone could sign in as its owner. GitHub's API is
// played by a real HTTP server on 127.0.0.1 that answers /user/emails as GitHub does.

const GITHUB_EMAILS: Record<string, { email: string; verified: boolean; primary: boolean }[]> = {
  'token-verified': [
    { email: 'other@example.com', verified: false, primary: false },
    { email: 'Dev@Example.com', verified: true, primary: true },
  ],
  'token-unverified': [{ email: 'dev@example.com', verified: false, primary: true }],
};

let github: http.Server;
let githubApiUrl: string;
let database: Database;
const asked: string[] = [];

beforeAll(async () => {
  github = http.createServer((req, res) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    asked.push(`${req.method} ${req.url} ${token}`);
    const listed = GITHUB_EMAILS[token];
    res.writeHead(listed ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(listed ?? { message: 'Bad credentials' }));
  });
  await new Promise<void>((resolve) => github.listen(0, '127.0.0.1', resolve));
  githubApiUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;
  database = await createTestDatabase();
});
afterAll(async () => {
  await new Promise<void>((resolve) => github.close(() => resolve()));
  await database?.close();
});

describe('whether the provider vouches for the address', () => {
  it.each([
    ['a verified Google address', { email: 'dev@example.com', email_verified: true }, true],
    ['an unverified Google address', { email: 'dev@example.com', email_verified: false }, false],
    ['a Google profile without the claim', { email: 'dev@example.com' }, false],
    ['a claim given as text', { email: 'dev@example.com', email_verified: 'true' }, false],
    ['a verified claim for another address', { email: 'other@example.com', email_verified: true }, false],
  ])('%s', async (_label, profile, vouched) => {
    expect(await providerVouchesForEmail({ provider: 'google', email: 'Dev@example.com', profile })).toBe(
      vouched,
    );
  });

  it('GitHub: the address must be among the verified ones its API lists for the user, in any letter case', async () => {
    const ask = (email: string, accessToken?: string) =>
      providerVouchesForEmail({ provider: 'github', email, accessToken }, { githubApiUrl });
    expect(await ask('dev@example.com', 'token-verified')).toBe(true);
    expect(await ask('other@example.com', 'token-verified')).toBe(false);
    expect(await ask('dev@example.com', 'token-unverified')).toBe(false);
    expect(await ask('dev@example.com', 'revoked-token')).toBe(false);
    expect(await ask('dev@example.com')).toBe(false);
    expect(asked).toContain('GET /user/emails token-verified');
  });

  it('any other provider is not taken at its word', async () => {
    expect(
      await providerVouchesForEmail({
        provider: 'gitlab',
        email: 'dev@example.com',
        profile: { email_verified: true },
      }),
    ).toBe(false);
  });
});

describe('the sign-in', () => {
  const signIn = (email: string, provider: string, extra: { profile?: unknown; accessToken?: string }) => {
    const options = createAuthOptions({
      getDatabase: async () => database,
      settings: { secret: 'test-only', trustProxyHops: 0, githubApiUrl },
    });
    const callback = options.callbacks?.signIn as NonNullable<
      NonNullable<NextAuthOptions['callbacks']>['signIn']
    >;
    return callback({
      user: { id: email, email, name: 'Dev' },
      account: { provider, type: 'oauth', providerAccountId: '1', access_token: extra.accessToken },
      profile: extra.profile as never,
    });
  };

  it('an address the provider does not vouch for is refused and creates no account', async () => {
    expect(
      await signIn('unvouched@example.com', 'google', { profile: { email: 'unvouched@example.com' } }),
    ).toBe(false);
    expect(await findAccountByEmail(database.db, 'unvouched@example.com')).toBeUndefined();
    expect(await signIn('dev@example.com', 'github', { accessToken: 'token-unverified' })).toBe(false);
    expect(await findAccountByEmail(database.db, 'dev@example.com')).toBeUndefined();
  });

  it('a vouched address gets a verified account without early access, whose mailbox is not proven: no operator even with an operator address', async () => {
    const email = 'ops@example.com';
    const profile = { email, email_verified: true };
    expect(await signIn(email, 'google', { profile })).toBe(true);
    const account = (await findAccountByEmail(database.db, email))!;
    expect(account.emailVerifiedAt).not.toBeNull();
    expect(account.mailboxProvenAt).toBeNull();
    expect(account.earlyAccess).toBe(false);
    expect(isOperatorAccount(account, [email])).toBe(false);
    // Signing in again opens the same account.
    expect(await signIn(email, 'google', { profile })).toBe(true);
  });
});
