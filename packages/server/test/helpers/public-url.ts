import { expect } from 'vitest';
import type { Platform } from '../../src/content/domain.js';
import { authorize, visit } from './live.js';
import { api, type TestService } from './start.js';

/**
 * Instagram and Threads fetch images by URL, so a live server that publishes to them sits behind a
 * public https address (CONTENT_PUBLIC_URL). In tests the server is on loopback: `viaProxy` plays
 * the reverse proxy that forwards the public address to it.
 */
export const PUBLIC_URL = 'https://content.fieldnote.test';

export const viaProxy = (svc: TestService, u: string) => u.replace(PUBLIC_URL, svc.url);

/** connectLive for a server behind PUBLIC_URL: the platform sends the browser to the public callback. */
export async function connectViaProxy(svc: TestService, brandId: string, platform: Platform) {
  const { callbackUrl } = await authorize(svc, brandId, platform);
  expect(callbackUrl.startsWith(`${PUBLIC_URL}/oauth/${platform}/callback?`), callbackUrl).toBe(true);
  const back = await visit(viaProxy(svc, callbackUrl));
  expect(back.status, JSON.stringify(back.body)).toBe(302);
  const id = new URL(back.location as string, svc.url).searchParams.get('connected') as string;
  const channel = await api(svc.url, 'GET', `/v1/channels/${id}`);
  expect(channel.body).toMatchObject({ platform, status: 'connected' });
  return id;
}
