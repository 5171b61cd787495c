import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

/** The claims of an account at the test provider; `sub` is its login. */
export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
  xms_edov?: boolean;
  preferred_username?: string;
}

/** A port free now, so an app's PUBLIC_URL (and with it its redirect URI) is known before it starts. */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo; // listening on TCP: an AddressInfo
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export const PROVIDER_CLIENT = { clientId: 'staff-portal', clientSecret: 'test-client-secret-not-for-production' };

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function loginPage(uid: string, error = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test provider sign-in</title></head>
<body><main><h1>Test provider</h1>${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}">
<label for="login">Account</label> <input id="login" name="login" autocomplete="username">
<button type="submit">Continue</button></form></main></body></html>`;
}

async function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer); // a request stream yields Buffers
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * A real OpenID provider (the `oidc-provider` package) on a random port of 127.0.0.1, with one confidential client
 * and accounts whose claims the test chooses. Its sign-in is a one-field form at `/interaction/<uid>` (the account's
 * login, no password), which a test posts over HTTP and a journey fills in a browser; consent is given with it.
 * The provider is built on its first request, and again after each app's redirect URI is added (`allowRedirect`).
 */
export async function startOidcProvider(options: { idTokenTtlSeconds?: number; publishWrongKey?: boolean } = {}) {
  const accounts = new Map<string, ProviderAccount>();
  const redirectUris: string[] = [];
  let provider: Provider | undefined;
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`; // listening on TCP: an AddressInfo

  // One signing key for the provider's life, so a provider built again for a new redirect URI signs alike.
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const configuration: Configuration = {
    jwks: { keys: [{ ...signingKey, kid: 'test-key', use: 'sig', alg: 'RS256' }] },
    clients: [
      {
        client_id: PROVIDER_CLIENT.clientId,
        client_secret: PROVIDER_CLIENT.clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified', 'xms_edov'], profile: ['preferred_username'] },
    // The scope's claims go in the ID token, as Entra ID and Google put the e-mail there.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ['test-provider-cookie-key'] },
    ttl: {
      IdToken: options.idTokenTtlSeconds ?? 3600,
      AccessToken: 600,
      AuthorizationCode: 60,
      Interaction: 600,
      Grant: 600,
      Session: 600,
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, sub) {
      const claims = accounts.get(sub);
      if (!claims) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...claims }) };
    },
  };

  const build = () => {
    provider ??= new Provider(issuer, configuration);
    return provider;
  };

  async function interaction(req: http.IncomingMessage, res: http.ServerResponse, uid: string) {
    const op = build();
    if (req.method !== 'POST') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(loginPage(uid));
      return;
    }
    const details = await op.interactionDetails(req, res);
    const login = (await readForm(req)).get('login') ?? '';
    if (!accounts.has(login)) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(loginPage(uid, 'No such account'));
      return;
    }
    const grant = new op.Grant({ accountId: login, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await op.interactionFinished(req, res, { login: { accountId: login }, consent: { grantId } });
  }

  // A provider whose published key is not the one it signs with: its ID tokens must be refused.
  const wrongKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (options.publishWrongKey && req.url === '/jwks') {
      const keys = [{ ...wrongKey, kid: 'test-key', use: 'sig', alg: 'RS256' }];
      res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys }));
      return;
    }
    const match = /^\/interaction\/([\w-]+)$/.exec(req.url ?? '');
    const handled = match ? interaction(req, res, match[1]) : Promise.resolve(build().callback()(req, res));
    handled.catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });

  return {
    issuer,
    ...PROVIDER_CLIENT,
    /** Registers an app's callback; the provider reads its client once, so it is built again on its next request. */
    allowRedirect(uri: string) {
      redirectUris.push(uri);
      provider = undefined;
    },
    /** Adds (or replaces) an account the sign-in form accepts by its login. */
    addAccount(login: string, claims: ProviderAccount) {
      accounts.set(login, claims);
    },
    /**
     * Follows the provider's redirects from the app's authorisation URL, signs in as `login` on the form, and answers
     * the URL the provider sends the browser back to (the app's callback with code and state).
     */
    async signIn(authorizationUrl: string, login: string): Promise<string> {
      const jar = new Map<string, string>();
      const send = async (url: string, init: RequestInit = {}) => {
        const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
        const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, cookie } });
        for (const line of res.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const at = pair.indexOf('=');
          jar.set(pair.slice(0, at), pair.slice(at + 1));
        }
        return res;
      };
      let res = await send(authorizationUrl);
      for (let hops = 0; hops < 10; hops += 1) {
        const location = res.headers.get('location');
        if (!location) throw new Error(`The provider answered ${res.status} without a redirect: ${await res.text()}`);
        const next = new URL(location, issuer);
        if (next.origin !== issuer) return next.href;
        res = /^\/interaction\//.test(next.pathname)
          ? await send(next.href, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: new URLSearchParams({ login }).toString(),
            })
          : await send(next.href);
      }
      throw new Error('The provider redirected too many times');
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type OidcTestProvider = Awaited<ReturnType<typeof startOidcProvider>>;
