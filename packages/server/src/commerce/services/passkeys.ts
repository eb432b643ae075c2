import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { z } from 'zod';
import { sha256Hex } from '../../platform/api-key-hash.js';
import { randomBase62 } from '../../platform/ids.js';
import type { CommerceContext } from '../context.js';
import type { ChallengePurpose, PasskeyRecord } from '../db/passkeys-store.js';
import type { CommerceStores } from '../db/stores.js';

/**
 * Passkeys (WebAuthn) for confirming a live total above `confirm_above`. The threat: the app that
 * holds the user token can fetch the hosted confirm page and post its form itself, so a form
 * token proves only that our page was rendered, not that the user saw it. A passkey assertion is
 * a signature by a key that never leaves the user's authenticator, over a challenge this server
 * issued for this checkout, on this server's origin: a script without the authenticator cannot
 * make one. See docs/commerce/approval-flow.md#passkeys for what it does not protect against.
 */

/** How long a page's challenge can be answered; the browser's own prompt times out at the same. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

/**
 * The WebAuthn library is loaded on the first passkey page, not at start: with its X.509 and
 * ASN.1 dependencies its import was about a third of a second of a cold start's CPU (and memory
 * held for good), paid by every server though only live confirmations above a limit use it.
 */
let loading: Promise<{
  lib: typeof import('@simplewebauthn/server');
  helpers: typeof import('@simplewebauthn/server/helpers');
}> | null = null;
const webauthn = () => {
  loading ??= Promise.all([import('@simplewebauthn/server'), import('@simplewebauthn/server/helpers')]).then(
    ([lib, helpers]) => ({ lib, helpers }),
  );
  return loading;
};

/** The relying party a page is served as: its origin, and the host name passkeys are scoped to. */
export function relyingParty(baseUrl: string): { rpID: string; origin: string } {
  const url = new URL(baseUrl);
  return { rpID: url.hostname, origin: url.origin };
}

/**
 * What a hosted page's form needs besides itself: nothing (sandbox); a passkey signature (`sign`)
 * or a new passkey (`create`), with the options for the browser; or `missing` when a signature is
 * needed and the user has no passkey here.
 */
export type PasskeyStep =
  | { kind: 'none' }
  | { kind: 'missing' }
  | { kind: 'create'; options: PublicKeyCredentialCreationOptionsJSON }
  | { kind: 'sign'; options: PublicKeyCredentialRequestOptionsJSON };

/** Why a passkey response was refused, in words a shopper's page can show. */
export type PasskeyRefusal = { ok: false; reason: string };

const refuse = (reason: string): PasskeyRefusal => ({ ok: false, reason });

/** The JSON a browser's credential serializes to; the library checks the rest of its shape. */
const credentialJson = z.object({
  id: z.string().min(1).max(1024),
  rawId: z.string().min(1).max(1024),
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: z.string().min(1).max(4096) }),
  clientExtensionResults: z.looseObject({}).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});

/** Reads the posted credential and the challenge it answers; null for anything malformed. */
async function readCredential(raw: string) {
  const { decodeClientDataJSON } = (await webauthn()).helpers;
  try {
    const parsed = credentialJson.safeParse(JSON.parse(raw));
    if (!parsed.success) return null;
    const { challenge, type } = decodeClientDataJSON(parsed.data.response.clientDataJSON);
    if (typeof challenge !== 'string' || typeof type !== 'string') return null;
    return { credential: parsed.data, challenge };
  } catch {
    return null;
  }
}

/** Issues a one-time challenge for a page and remembers only its hash, bound to the page's subject. */
async function issueChallenge(
  s: CommerceStores,
  ctx: Pick<CommerceContext, 'clock'>,
  purpose: ChallengePurpose,
  subjectId: string,
  baseUrl: string,
): Promise<string> {
  const { rpID, origin } = relyingParty(baseUrl);
  const { isoBase64URL } = (await webauthn()).helpers;
  const challenge = isoBase64URL.fromUTF8String(randomBase62(43));
  await s.passkeys.issueChallenge({
    purpose,
    subject_id: subjectId,
    challenge_hash: sha256Hex(challenge),
    rp_id: rpID,
    origin,
    expires_at: new Date(ctx.clock.now().getTime() + CHALLENGE_TTL_MS).toISOString(),
  });
  return challenge;
}

/** Takes the challenge a response names: unknown, replaced, already used or expired are all stale. */
async function takeChallenge(
  s: CommerceStores,
  ctx: Pick<CommerceContext, 'clock'>,
  purpose: ChallengePurpose,
  subjectId: string,
  challenge: string,
) {
  const found = await s.passkeys.takeChallenge(purpose, subjectId, sha256Hex(challenge));
  if (!found || found.expires_at <= ctx.clock.now().toISOString()) return null;
  return found;
}

/**
 * A stable, opaque WebAuthn user handle for one of an account's users: the authenticator keeps
 * it with the passkey, so it must not be the app's own user id in clear.
 */
const userHandle = (accountId: string, env: string, clientUserId: string) =>
  new Uint8Array(Buffer.from(sha256Hex(`${accountId}:${env}:${clientUserId}`), 'hex'));

/** Options for `navigator.credentials.create()` on the hosted approval page. */
export async function registrationOptions(
  s: CommerceStores,
  ctx: Pick<CommerceContext, 'clock'>,
  approval: { id: string; account_id: string; env: string; client_user_id: string },
  existing: PasskeyRecord[],
  baseUrl: string,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const challenge = await issueChallenge(s, ctx, 'register', approval.id, baseUrl);
  const { lib, helpers } = await webauthn();
  const { isoBase64URL } = helpers;
  return lib.generateRegistrationOptions({
    rpName: 'Purchase confirmations',
    rpID: relyingParty(baseUrl).rpID,
    userID: userHandle(approval.account_id, approval.env, approval.client_user_id),
    userName: approval.client_user_id,
    challenge: isoBase64URL.toBuffer(challenge),
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports as never })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
  });
}

/**
 * Verifies a registration posted with the approval, answering this approval page's current
 * challenge. The caller stores the passkey once the user exists and the approval is decided, in
 * the same transaction, so a refused passkey leaves no user, token or approval decided.
 */
export async function verifyRegistration(
  s: CommerceStores,
  ctx: Pick<CommerceContext, 'clock'>,
  approvalId: string,
  raw: string,
): Promise<{ ok: true; passkey: Omit<PasskeyRecord, 'user_id'> } | PasskeyRefusal> {
  const read = await readCredential(raw);
  if (!read) return refuse('The passkey sent with the form could not be read.');
  const issued = await takeChallenge(s, ctx, 'register', approvalId, read.challenge);
  if (!issued) return refuse('The passkey was made for an older or expired page.');
  const { lib, helpers } = await webauthn();
  const { isoBase64URL } = helpers;
  let info: Awaited<ReturnType<typeof lib.verifyRegistrationResponse>>['registrationInfo'];
  try {
    const out = await lib.verifyRegistrationResponse({
      response: read.credential as unknown as RegistrationResponseJSON,
      expectedChallenge: read.challenge,
      expectedOrigin: issued.origin,
      expectedRPID: issued.rp_id,
      requireUserVerification: true,
    });
    info = out.verified ? out.registrationInfo : undefined;
  } catch {
    info = undefined;
  }
  if (!info) return refuse('The passkey could not be verified for this site.');
  if (await s.passkeys.exists(info.credential.id)) {
    return refuse('This passkey is already registered.');
  }
  return {
    ok: true,
    passkey: {
      id: info.credential.id,
      rp_id: issued.rp_id,
      public_key: isoBase64URL.fromBuffer(info.credential.publicKey),
      counter: info.credential.counter,
      transports: info.credential.transports ?? [],
      created_at: ctx.clock.now().toISOString(),
      last_used_at: null,
    },
  };
}

/** The user's passkeys that work on this site (a passkey is bound to the host it was made on). */
export const usableHere = (passkeys: PasskeyRecord[], baseUrl: string) =>
  passkeys.filter((p) => p.rp_id === relyingParty(baseUrl).rpID);

/**
 * Options for `navigator.credentials.get()`: on the confirm page of one checkout (`confirm`), or on
 * the approval page of a user who already has a passkey (`approve`).
 */
export async function assertionOptions(
  s: CommerceStores,
  ctx: Pick<CommerceContext, 'clock'>,
  purpose: 'approve' | 'confirm',
  subjectId: string,
  passkeys: PasskeyRecord[],
  baseUrl: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const challenge = await issueChallenge(s, ctx, purpose, subjectId, baseUrl);
  const { lib, helpers } = await webauthn();
  const { isoBase64URL } = helpers;
  return lib.generateAuthenticationOptions({
    rpID: relyingParty(baseUrl).rpID,
    challenge: isoBase64URL.toBuffer(challenge),
    timeout: CHALLENGE_TTL_MS,
    allowCredentials: passkeys.map((p) => ({ id: p.id, transports: p.transports as never })),
    userVerification: 'required',
  });
}

/**
 * Verifies that `userId` signed the page's current challenge (for this checkout, or this
 * approval) with one of their passkeys, on this site. Refused: anything malformed, a challenge
 * that is not the page's current one (replayed, replaced, expired), another user's passkey, a
 * wrong origin or rpID, a signature that does not verify, a counter that went backwards.
 */
export async function verifyAssertion(
  s: CommerceStores,
  ctx: Pick<CommerceContext, 'clock'>,
  page: { purpose: 'approve' | 'confirm'; subjectId: string; userId: string },
  raw: string,
): Promise<{ ok: true } | PasskeyRefusal> {
  const read = await readCredential(raw);
  if (!read) return refuse('No passkey signature came with the form.');
  const issued = await takeChallenge(s, ctx, page.purpose, page.subjectId, read.challenge);
  if (!issued) return refuse('The passkey signature was made for an older or expired page.');
  const passkey = (await s.passkeys.forUser(page.userId)).find((p) => p.id === read.credential.id);
  if (!passkey) return refuse('This passkey is not one you registered for these purchases.');
  const { lib, helpers } = await webauthn();
  const { isoBase64URL } = helpers;
  let newCounter: number | null = null;
  try {
    const out = await lib.verifyAuthenticationResponse({
      response: read.credential as unknown as AuthenticationResponseJSON,
      expectedChallenge: read.challenge,
      expectedOrigin: issued.origin,
      expectedRPID: passkey.rp_id,
      credential: {
        id: passkey.id,
        publicKey: isoBase64URL.toBuffer(passkey.public_key),
        counter: passkey.counter,
        transports: passkey.transports as never,
      },
      requireUserVerification: true,
    });
    if (out.verified) newCounter = out.authenticationInfo.newCounter;
  } catch {
    newCounter = null;
  }
  if (newCounter === null) return refuse('The passkey signature could not be verified for this site.');
  if (!(await s.passkeys.used(passkey.id, newCounter, ctx.clock.now().toISOString()))) {
    return refuse('This passkey signature was already used.');
  }
  return { ok: true };
}
