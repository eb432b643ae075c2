// The call log's secret patterns, one name at a time (issue 18.14). The HTTP test that reads a
// recorded run back is in mcp-hardening.test.ts.
import { describe, expect, it } from 'vitest';
import { isSecretName, redactSecrets } from '../../src/content/services/redact.js';

describe('isSecretName', () => {
  it.each([
    'token',
    'access_token',
    'accessToken',
    'Access-Token',
    'refresh_token',
    'id_token',
    'client_secret',
    'clientSecret',
    'secret_key',
    'password',
    'db_password_hash',
    'passphrase',
    'api_key',
    'apiKey',
    'x-api-key',
    'private_key',
    'aws_access_key',
    'Authorization',
    'proxy_authorization',
    'cookie',
    'set_cookie',
    'credentials',
    'auth',
    'key',
  ])('%s is a secret', (name) => expect(isSecretName(name)).toBe(true));

  it.each([
    'brandId',
    'max_tokens',
    'prompt_tokens',
    'title',
    'body',
    'text',
    'key_id',
    'keyId',
    'author',
    'oauth_provider',
    'platform',
    'tokenizer',
  ])('%s is not', (name) => expect(isSecretName(name)).toBe(false));
});

describe('redactSecrets', () => {
  it('walks objects and arrays, and catches credentials pasted under innocent names', () => {
    expect(
      redactSecrets({
        brandId: 'brd_1',
        list: [{ token: 'a' }, 'Bearer xyz', 'plain'],
        note: 'svc_abcdefghijklmnop1234',
        n: 3,
        nothing: null,
      }),
    ).toEqual({
      brandId: 'brd_1',
      list: [{ token: '[redacted]' }, '[redacted]', 'plain'],
      note: '[redacted]',
      n: 3,
      nothing: null,
    });
  });

  it('stops at a fixed depth instead of following a hostile nesting', () => {
    let deep: Record<string, unknown> = { token: 'x' };
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const out = JSON.stringify(redactSecrets(deep));
    expect(out).toContain('[too deep]');
    expect(out).not.toContain('"x"');
  });
});
