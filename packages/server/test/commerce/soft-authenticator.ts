import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';
import { fromHtml } from './hosted-forms.js';

/**
 * A WebAuthn authenticator in software, for HTTP tests of the hosted pages: it makes the JSON a
 * browser posts after `navigator.credentials.create()` / `.get()`, with a real P-256 key, so the
 * server's verification runs for real. It is also exactly what a script could make on its own,
 * which is why the docs call the first registration trust on first use. Each field can be bent
 * (origin, rpID, challenge) to show the server refuses it.
 */
export class SoftAuthenticator {
  readonly credentialId = isoBase64URL.fromBuffer(new Uint8Array(randomBytes(16)));
  #keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  #counter = 0;

  constructor(
    readonly rpId: string,
    readonly origin: string,
  ) {}

  /** The response to creation options (`data-passkey-options` of the approval page). */
  register(options: { challenge: string }, bend: Bend = {}) {
    const jwk = this.#keys.publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, isoBase64URL.toBuffer(jwk.x as string)],
        [-3, isoBase64URL.toBuffer(jwk.y as string)],
      ]),
    );
    const id = isoBase64URL.toBuffer(this.credentialId);
    const authData = Buffer.concat([
      this.#rpIdHash(bend.rpId),
      Buffer.from([0x45]), // user present, user verified, attested credential data
      counterBytes(this.#counter),
      Buffer.alloc(16), // AAGUID: none
      Buffer.from([id.length >> 8, id.length & 0xff]),
      id,
      cose,
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    );
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: this.#clientData('webauthn.create', options.challenge, bend),
        attestationObject: isoBase64URL.fromBuffer(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** The response to request options (`data-passkey-options` of a page that asks for a signature). */
  sign(options: { challenge: string }, bend: Bend = {}) {
    this.#counter += 1;
    const authData = Buffer.concat([
      this.#rpIdHash(bend.rpId),
      Buffer.from([0x05]), // user present, user verified
      counterBytes(this.#counter),
    ]);
    const clientDataJSON = this.#clientData('webauthn.get', options.challenge, bend);
    const clientHash = createHash('sha256').update(isoBase64URL.toBuffer(clientDataJSON)).digest();
    const signature = sign('sha256', Buffer.concat([authData, clientHash]), this.#keys.privateKey);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON,
        authenticatorData: isoBase64URL.fromBuffer(new Uint8Array(authData)),
        signature: isoBase64URL.fromBuffer(new Uint8Array(signature)),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  #rpIdHash(rpId = this.rpId) {
    return createHash('sha256').update(rpId).digest();
  }

  #clientData(type: string, challenge: string, bend: Bend) {
    const json = JSON.stringify({
      type,
      challenge: bend.challenge ?? challenge,
      origin: bend.origin ?? this.origin,
      crossOrigin: false,
    });
    return isoBase64URL.fromUTF8String(json);
  }
}

/** What a test changes to show a refusal: another origin, another relying party, another challenge. */
export interface Bend {
  origin?: string;
  rpId?: string;
  challenge?: string;
}

const counterBytes = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/** The options a hosted page hands its script, read from its form as a browser would. */
export function passkeyOptions(page: string): { challenge: string; [k: string]: unknown } {
  const raw = /data-passkey-options="([^"]*)"/.exec(page)?.[1];
  if (raw === undefined) throw new Error('the page asks for no passkey');
  return JSON.parse(fromHtml(raw));
}
