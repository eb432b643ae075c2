import { grantRefused } from '../http.js';
import { type AuthorizeInput, type ExchangeInput, ProviderError, type TokenSet } from '../provider.js';
import type { XClientOptions, XHttp } from './http.js';

/**
 * X's OAuth 2.0 Authorization Code flow with PKCE. The token endpoint is not in the X API v2
 * OpenAPI document (only named as its tokenUrl), so this follows RFC 6749 §4.1 and §6,
 * RFC 7636 §4.5, and X's guide
 * https://docs.x.com/resources/fundamentals/authentication/oauth-2-0/user-access-token :
 * a form-encoded POST to /2/oauth2/token; confidential clients authenticate with HTTP Basic
 * (client id and secret), public clients send `client_id` in the body.
 */

export const X_SCOPES = ['tweet.read', 'tweet.write', 'users.read', 'offline.access', 'media.write'] as const;

interface TokenResponse {
  token_type?: string;
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

export function xOAuth(opts: XClientOptions, call: XHttp) {
  const authUrl = opts.authUrl ?? 'https://x.com/i/oauth2/authorize';
  const now = opts.now ?? (() => new Date());
  const basic = opts.clientSecret
    ? Buffer.from(`${encodeURIComponent(opts.clientId)}:${encodeURIComponent(opts.clientSecret)}`).toString(
        'base64',
      )
    : undefined;

  const token = async (form: Record<string, string>): Promise<TokenSet> => {
    let body: TokenResponse;
    try {
      body = await call<TokenResponse>({
        method: 'POST',
        path: '/2/oauth2/token',
        tokenEndpoint: true,
        form: basic ? form : { ...form, client_id: opts.clientId },
        basic,
      });
    } catch (err) {
      throw grantRefused(err);
    }
    if (!body?.access_token || (body.token_type ?? '').toLowerCase() !== 'bearer') {
      throw new ProviderError('x', 'rejected', 'X’s token endpoint answered without a bearer access token.');
    }
    return {
      accessToken: body.access_token,
      refreshToken: body.refresh_token ?? null,
      expiresAt:
        typeof body.expires_in === 'number' ? new Date(now().getTime() + body.expires_in * 1000) : null,
      scopes: (body.scope ?? '').split(' ').filter(Boolean),
    };
  };

  return {
    authorizeUrl(input: AuthorizeInput): string {
      const url = new URL(authUrl);
      const params = {
        response_type: 'code',
        client_id: opts.clientId,
        redirect_uri: input.redirectUri,
        scope: (input.scopes ?? X_SCOPES).join(' '),
        state: input.state,
        code_challenge: input.codeChallenge,
        code_challenge_method: 'S256',
      };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      return url.toString();
    },
    exchangeCode: (input: ExchangeInput) =>
      token({
        grant_type: 'authorization_code',
        code: input.code,
        redirect_uri: input.redirectUri,
        code_verifier: input.codeVerifier,
      }),
    refresh: (refreshToken: string) => token({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  };
}
