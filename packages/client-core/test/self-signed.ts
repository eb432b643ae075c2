import { generateKeyPairSync, sign } from 'node:crypto';

// A self-signed certificate for 127.0.0.1, made in the test with node:crypto (which signs but
// does not write X.509): a few DER structures by hand, so no key or certificate is checked in
// and no openssl binary is needed. Enough for an https server on loopback, trusted by passing
// the certificate as the client agent's CA.

function der(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const length =
    body.length < 0x80
      ? Buffer.from([body.length])
      : body.length < 0x100
        ? Buffer.from([0x81, body.length])
        : Buffer.from([0x82, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

const seq = (...parts: Buffer[]) => der(0x30, ...parts);
const oid = (bytes: number[]) => der(0x06, Buffer.from(bytes));
const ECDSA_SHA256 = seq(oid([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]));
const COMMON_NAME = oid([0x55, 0x04, 0x03]);
const SUBJECT_ALT_NAME = oid([0x55, 0x1d, 0x11]);
const BASIC_CONSTRAINTS = oid([0x55, 0x1d, 0x13]);

function utcTime(date: Date): Buffer {
  const text = `${date.toISOString().slice(2, 19).replace(/[-:T]/g, '')}Z`;
  return der(0x17, Buffer.from(text));
}

/** A PEM key and certificate for `127.0.0.1` (and `localhost`), valid from yesterday for a year. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = seq(der(0x31, seq(COMMON_NAME, der(0x0c, Buffer.from('svc test')))));
  const day = 24 * 60 * 60 * 1000;
  const altNames = seq(der(0x82, Buffer.from('localhost')), der(0x87, Buffer.from([127, 0, 0, 1])));
  const extensions = der(
    0xa3,
    seq(
      seq(BASIC_CONSTRAINTS, der(0x01, Buffer.from([0xff])), der(0x04, seq(der(0x01, Buffer.from([0xff]))))),
      seq(SUBJECT_ALT_NAME, der(0x04, altNames)),
    ),
  );
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, Buffer.from([0x01, ...Array.from({ length: 8 }, () => Math.floor(Math.random() * 256))])),
    ECDSA_SHA256,
    name,
    seq(utcTime(new Date(Date.now() - day)), utcTime(new Date(Date.now() + 365 * day))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = seq(tbs, ECDSA_SHA256, der(0x03, Buffer.from([0]), signature));
  const lines = certificate.toString('base64').match(/.{1,64}/g) ?? [];
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`,
  };
}
