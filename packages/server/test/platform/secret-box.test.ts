import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, parseSecretKey, SecretBoxError } from '../../src/platform/crypto/secret-box.js';

const key = () => randomBytes(32);

describe('secret box (AES-256-GCM for tokens at rest)', () => {
  it('opens what it sealed, and seals the same text differently each time (random IV)', () => {
    const box = createSecretBox(key());
    const a = box.seal('at-123-secret', 'channel_credentials:ch_1:access_token');
    const b = box.seal('at-123-secret', 'channel_credentials:ch_1:access_token');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{11}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(a).not.toContain('at-123-secret');
    expect(box.open(a, 'channel_credentials:ch_1:access_token')).toBe('at-123-secret');
    expect(box.open(b, 'channel_credentials:ch_1:access_token')).toBe('at-123-secret');
  });

  it('refuses a value altered anywhere: ciphertext, tag or IV', () => {
    const box = createSecretBox(key());
    const sealed = box.seal('rt-456-secret', 'ctx');
    const parts = sealed.split('.');
    for (const i of [2, 3, 4]) {
      const p = [...parts];
      const bytes = Buffer.from(p[i] as string, 'base64url');
      bytes[0] = (bytes[0] as number) ^ 1;
      p[i] = bytes.toString('base64url');
      expect(() => box.open(p.join('.'), 'ctx')).toThrow(SecretBoxError);
    }
    expect(() => box.open('plain-token', 'ctx')).toThrow(/not in a format/);
  });

  it('refuses a value moved to another record (the context is authenticated)', () => {
    const box = createSecretBox(key());
    const sealed = box.seal('at-1', 'channel_credentials:ch_1:access_token');
    expect(() => box.open(sealed, 'channel_credentials:ch_2:access_token')).toThrow(/integrity check/);
  });

  it('refuses to open with another key, and says so', () => {
    const sealed = createSecretBox(key()).seal('at-1', 'ctx');
    expect(() => createSecretBox(key()).open(sealed, 'ctx')).toThrow(/another SERVICE_SECRET_KEY/);
  });

  it('reads keys as base64 or hex, 32 random bytes at least, and refuses short or typed ones', () => {
    const bytes = key();
    for (const text of [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')]) {
      const parsed = parseSecretKey(text);
      expect('key' in parsed && parsed.key.equals(bytes)).toBe(true);
    }
    expect(parseSecretKey(randomBytes(16).toString('base64'))).toMatchObject({
      problem: expect.stringMatching(/too short: it decodes to 16 bytes/),
    });
    expect(parseSecretKey('a'.repeat(64))).toMatchObject({
      problem: expect.stringMatching(/typed rather than random/),
    });
    expect(parseSecretKey('correct horse battery staple!')).toMatchObject({
      problem: expect.stringMatching(/base64 or hex/),
    });
  });
});
