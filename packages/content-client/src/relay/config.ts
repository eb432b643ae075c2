/** What the relay needs from its environment, checked before anything is sent. */
export interface RelayConfig {
  /** `{SERVICE_API_URL}/mcp` */
  endpoint: string;
  apiKey: string;
}

export class RelayConfigError extends Error {}

/**
 * `SERVICE_API_URL` is the service root (`http://127.0.0.1:3000`). A trailing `/mcp` or `/v1`
 * is tolerated, so a URL copied from the MCP config or the client's `baseUrl` works too.
 */
export function relayConfig(env: Record<string, string | undefined>): RelayConfig {
  const rawUrl = env.SERVICE_API_URL?.trim();
  const apiKey = env.SERVICE_API_KEY?.trim();
  const missing = [!rawUrl && 'SERVICE_API_URL', !apiKey && 'SERVICE_API_KEY'].filter(Boolean);
  if (missing.length)
    throw new RelayConfigError(
      `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not set. Set SERVICE_API_URL to the content service (e.g. http://127.0.0.1:3000) and SERVICE_API_KEY to an API key (svc_..., made in the app under Settings → API keys, e.g. http://127.0.0.1:3000/settings#api-keys, or with POST /v1/api-keys) in the MCP client's "env" for this server.`,
    );
  let url: URL;
  try {
    url = new URL(rawUrl as string);
  } catch {
    throw new RelayConfigError(`SERVICE_API_URL is not a URL: "${rawUrl}". Use e.g. http://127.0.0.1:3000.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RelayConfigError(`SERVICE_API_URL must be http(s): "${rawUrl}".`);
  // eslint-disable-next-line regexp/no-super-linear-move -- SERVICE_API_URL, the user's own setting, not outside input
  const root = `${url.origin}${url.pathname}`.replace(/\/+$/, '').replace(/\/(mcp|v1)$/, '');
  return { endpoint: `${root}/mcp`, apiKey: apiKey as string };
}
