/**
 * A real OpenID provider (`oidc-provider`) on loopback for single sign-on tests (docs/single-sign-on.md): one
 * confidential client, an in-memory account store (the login form's "login" is the account id; any password),
 * consent granted silently (a first-party client), PKCE required. `signInAt` drives its pages like a browser.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

export interface TestAccount {
  email: string;
  emailVerified: boolean;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Account id (what the login form's first field takes) -> claims. */
  accounts: Map<string, TestAccount>;
  close(): Promise<void>;
}

export async function startOidcProvider(opts: {
  redirectUris: string[];
  clientId?: string;
  clientSecret?: string;
  /** A fixed port (the e2e portal needs to know the issuer before the provider starts); default: any free one. */
  port?: number;
}): Promise<TestOidcProvider> {
  const clientId = opts.clientId ?? 'portal';
  const clientSecret = opts.clientSecret ?? 'portal-client-secret-0123456789';
  const accounts = new Map<string, TestAccount>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    cookies: { keys: ['oidc-test-cookie-key-0123456789'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, email: account.email, email_verified: account.emailVerified }),
      };
    },
    // A first-party client: the requested scope is granted without a consent screen.
    async loadExistingGrant(ctx) {
      const oidcCtx = ctx.oidc;
      const grantId = oidcCtx.result?.consent?.grantId ?? oidcCtx.session!.grantIdFor(oidcCtx.client!.clientId);
      if (grantId) {
        const found = await oidcCtx.provider.Grant.find(grantId);
        if (found) return found;
      }
      const grant = new oidcCtx.provider.Grant({
        clientId: oidcCtx.client!.clientId,
        accountId: oidcCtx.session!.accountId!,
      });
      grant.addOIDCScope('openid email');
      grant.addOIDCClaims(['email', 'email_verified']);
      await grant.save();
      return grant;
    },
  };
  const provider = new Provider(issuer, configuration);
  server.on('request', provider.callback());

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Follows the portal's authorization URL through the provider's login form like a browser (its own cookie jar),
 * signing in as `accountId`; answers the URL the provider sends the browser back to (the portal's callback).
 */
export async function signInAt(authorizationUrl: string, accountId: string): Promise<URL> {
  const jar = new Map<string, string>();
  const send = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(c)) jar.delete(name);
      else jar.set(name, value);
    }
    return res;
  };
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    const res = await send(url);
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      // Back at the portal: that is the answer.
      if (!next.href.startsWith(new URL(authorizationUrl).origin)) return next;
      url = next.href;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(html)?.[1];
    if (!action) throw new Error(`the provider answered ${res.status} without a form: ${html.slice(0, 300)}`);
    const submitted = await send(new URL(action, url).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ prompt: 'login', login: accountId, password: 'any' }).toString(),
    });
    const after = submitted.headers.get('location');
    if (!after)
      throw new Error(`the login form answered ${submitted.status}: ${(await submitted.text()).slice(0, 300)}`);
    url = new URL(after, url).href;
  }
  throw new Error('too many redirects at the provider');
}
