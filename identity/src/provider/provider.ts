import type { Redis } from 'ioredis';
import type { JWK } from 'jose';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { LocalAccountsService } from '../accounts/local-accounts.service';
import { signOutPage } from '../http/pages';
import { redisAdapterFactory } from './redis-adapter';

/** The resource indicator of the platform's API; its tokens carry `aud` = OAUTH_AUDIENCE. */
export const API_RESOURCE = 'urn:event-media:api';
export const API_SCOPES = 'events:read events:write';

export interface ProviderOptions {
  issuer: string;
  audience: string;
  /** The signing key (private JWK): the embedded issuer's, whose public half the gateway verifies with. */
  signingKey: JWK;
  cookieSecret: string;
  dashboard: { clientId: string; clientSecret: string; redirectUri: string; postLogoutRedirectUri: string };
  accounts: LocalAccountsService;
  redis: Redis;
  accessTokenSeconds: number;
  /** Browsers reach the provider over https through a proxy that ends TLS (`identityHandler` sets the scheme's header). */
  servedOverHttps: boolean;
}

/**
 * panva's oidc-provider, configured for the platform: one first-party client (the dashboard's
 * backend-for-frontend, confidential, PKCE required), JWT access tokens for the API resource with
 * the account's e-mail and `email_verified` (what the gateway checks for every issuer), revocation
 * and RP-initiated logout, interactions served by our own login page.
 */
export async function createProvider(opts: ProviderOptions) {
  // oidc-provider is an ES module: loaded with import() so this CommonJS package stays CommonJS.
  const { default: Provider } = await import('oidc-provider');
  const configuration: Configuration = {
    adapter: redisAdapterFactory(opts.redis),
    clients: [
      {
        client_id: opts.dashboard.clientId,
        client_secret: opts.dashboard.clientSecret,
        redirect_uris: [opts.dashboard.redirectUri],
        post_logout_redirect_uris: [opts.dashboard.postLogoutRedirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    scopes: ['openid', 'email', ...API_SCOPES.split(' ')],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    async findAccount(_ctx, subject) {
      const claims = await opts.accounts.claims(subject);
      if (!claims) return undefined;
      return { accountId: subject, claims: async () => ({ ...claims }) };
    },
    async extraTokenClaims(_ctx, token) {
      // The gateway links an account by verified e-mail, as it does with any provider's tokens.
      const subject = (token as { accountId?: string }).accountId;
      const claims = subject ? await opts.accounts.claims(subject) : null;
      return claims ? { email: claims.email, email_verified: claims.email_verified } : {};
    },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        // The provider asks before ending its session (a link alone must not sign anyone out).
        logoutSource: async (ctx, form) => {
          ctx.type = 'text/html; charset=utf-8';
          ctx.body = signOutPage(form);
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== API_RESOURCE) throw new Error('unknown resource');
          return {
            scope: API_SCOPES,
            audience: opts.audience,
            accessTokenTTL: opts.accessTokenSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    // The dashboard is first-party: its grant is given without a consent screen.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const { client, session, result } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const grantId = result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      // The API's scopes are provider scopes too (an external-style request names them in `scope`).
      grant.addOIDCScope(['openid', 'email', ...API_SCOPES.split(' ')].join(' '));
      grant.addResourceScope(API_RESOURCE, API_SCOPES);
      await grant.save();
      return grant;
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: [opts.cookieSecret] },
    jwks: { keys: [opts.signingKey] },
    ttl: {
      AccessToken: opts.accessTokenSeconds,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 15 * 60,
      Session: 8 * 3600,
      Grant: 8 * 3600,
    },
    renderError: async (ctx, out) => {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `Sign-in failed: ${out.error}${out.error_description ? ` (${out.error_description})` : ''}`;
    },
  };
  const provider = new Provider(opts.issuer, configuration);
  // Koa then takes the scheme from X-Forwarded-Proto (which the handler sets) and marks its cookies Secure.
  provider.proxy = opts.servedOverHttps;
  return provider;
}
