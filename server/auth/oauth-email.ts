// Whether an OAuth provider vouches for the email address it gave: only then may the sign-in
// open the account of that address (or create one). A provider that hands over an address its
// user never confirmed would otherwise let anyone sign in as that address's owner.

/** GitHub's REST API, where the user's addresses and whether each is verified are listed. */
export const GITHUB_API_URL = 'https://api.github.com';

export interface OAuthSignIn {
  provider: string;
  /** The address next-auth took from the provider's profile. */
  email: string;
  /** The provider's profile (OpenID claims for Google). */
  profile?: unknown;
  /** The access token, for providers that list verified addresses behind it (GitHub). */
  accessToken?: string;
}

/**
 * True when the provider says the address is verified: Google's `email_verified` claim, or the
 * address among the verified ones GitHub lists for the user (its profile address can be any of
 * the user's addresses, confirmed or not). Any other provider, or no answer, is false. The
 * result verifies the address for notices; it never proves the mailbox, which operator status
 * needs (only a link opened from the mailbox does).
 */
export async function providerVouchesForEmail(
  signIn: OAuthSignIn,
  opts: { githubApiUrl?: string; fetch?: typeof fetch } = {},
): Promise<boolean> {
  const email = signIn.email.trim().toLowerCase();
  switch (signIn.provider) {
    case 'google': {
      const claims = signIn.profile as { email?: unknown; email_verified?: unknown } | undefined;
      return (
        claims?.email_verified === true &&
        typeof claims.email === 'string' &&
        claims.email.trim().toLowerCase() === email
      );
    }
    case 'github': {
      if (!signIn.accessToken) return false;
      const res = await (opts.fetch ?? fetch)(`${opts.githubApiUrl ?? GITHUB_API_URL}/user/emails`, {
        headers: {
          Authorization: `Bearer ${signIn.accessToken}`,
          Accept: 'application/vnd.github+json',
          'User-Agent': 'meeting-notes',
        },
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) return false;
      const listed: unknown = await res.json();
      return (
        Array.isArray(listed) &&
        listed.some(
          (e: { email?: unknown; verified?: unknown }) =>
            e?.verified === true && typeof e.email === 'string' && e.email.trim().toLowerCase() === email,
        )
      );
    }
    default:
      return false;
  }
}
