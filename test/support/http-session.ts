// A browser's side of the settings app over plain HTTP: a cookie jar, next-auth's CSRF dance,
// sign-in and sign-out as next-auth's client posts them, and tRPC calls as its client makes them.
// Free of any test runner, so vitest's tests and Playwright's specs both use it.

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export class BrowserSession {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    /** Sent with every request, e.g. an X-Forwarded-For that stands for the client's address. */
    readonly headers: Record<string, string> = {},
  ) {}

  /** Another browser holding a copy of this one's cookies (a stolen or replayed cookie). */
  copy(): BrowserSession {
    const other = new BrowserSession(this.baseUrl, this.headers);
    for (const [k, v] of this.cookies) other.cookies.set(k, v);
    return other;
  }

  private remember(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some(
        (a) =>
          /^\s*max-age=0\s*$/i.test(a) ||
          (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) < Date.now()),
      );
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(path: string, init: RequestInit = {}): Promise<HttpAnswer> {
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(this.headers)) if (!headers.has(k)) headers.set(k, v);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(this.baseUrl + path, { ...init, headers, redirect: 'manual' });
    this.remember(res);
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  private postForm(path: string, fields: Record<string, string>) {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }

  async csrfToken(): Promise<string> {
    const res = await this.request('/api/auth/csrf');
    if (res.status !== 200) throw new Error(`csrf: ${res.status} ${res.text}`);
    return res.json.csrfToken as string;
  }

  /** As next-auth's signIn('credentials', { redirect: false }) posts it. */
  async signIn(email: string, password: string, callbackUrl = '/notes') {
    const res = await this.postForm('/api/auth/callback/credentials', {
      email,
      password,
      csrfToken: await this.csrfToken(),
      callbackUrl,
      json: 'true',
    });
    const url = typeof res.json?.url === 'string' ? (res.json.url as string) : null;
    const error = url ? new URL(url).searchParams.get('error') : null;
    return { ...res, url: error ? null : url, error };
  }

  async signOut() {
    return this.postForm('/api/auth/signout', {
      csrfToken: await this.csrfToken(),
      callbackUrl: '/sign-in',
      json: 'true',
    });
  }

  /** next-auth's session endpoint: {} when signed out. */
  async session() {
    return this.request('/api/auth/session');
  }

  query(path: string, input?: unknown) {
    const qs = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
    return this.request(`/api/trpc/${path}${qs}`);
  }

  mutate(path: string, input?: unknown) {
    return this.request(`/api/trpc/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input ?? {}),
    });
  }
}
