import { expect } from 'vitest';
import { createPkcePair } from '../../src/content/publishers/pkce.js';
import {
  type PlatformProvider,
  ProviderError,
  type TokenSet,
} from '../../src/content/publishers/provider.js';

/** The consent dance on a fake: authorise URL → the fake's redirect (the person said yes) → the code. */
export async function authorizeOn(
  provider: PlatformProvider,
  redirectUri: string,
  scopes?: string[],
  state = 'st-1',
) {
  const pkce = createPkcePair();
  const url = provider.authorizeUrl({ state, codeChallenge: pkce.challenge, redirectUri, scopes });
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location') as string);
  return { pkce, back, code: back.searchParams.get('code') as string };
}

/** A connected account's tokens. */
export async function connectOn(
  provider: PlatformProvider,
  redirectUri: string,
  scopes?: string[],
): Promise<TokenSet> {
  const { pkce, code } = await authorizeOn(provider, redirectUri, scopes);
  return provider.exchangeCode({ code, codeVerifier: pkce.verifier, redirectUri });
}

export async function rejection(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

// A 1×1 PNG and a 1×1 JPEG.
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
export const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);
