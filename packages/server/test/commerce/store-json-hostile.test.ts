import { describe, expect, it } from 'vitest';
import { parseStoreProfile } from '../../src/commerce/merchants/ucp/discovery.js';
import { textNestsDeeper } from '../../src/platform/http/json-depth.js';
import { OUTSIDE_JSON_MAX_DEPTH, parseOutsideJson } from '../../src/platform/sliced/json.js';

const profile = (endpoint: string) => ({
  ucp: {
    version: '2026-04-08',
    services: { 'dev.ucp.shopping': [{ transport: 'rest', endpoint }] },
    capabilities: { 'dev.ucp.shopping.checkout': [{ version: '2026-04-08' }] },
  },
});

describe('UCP discovery on a hostile profile', () => {
  it('trims 150,000 trailing slashes from a REST endpoint', () => {
    const read = parseStoreProfile(
      profile(`https://shop.test/ucp${'/'.repeat(150_000)}`),
      'https://shop.test',
    );
    expect(read?.endpoint).toBe('https://shop.test/ucp');
  });

  it('keeps 150,000 slashes inside an endpoint (where /\\/+$/ was retried from every one of them)', () => {
    const endpoint = `https://shop.test/ucp${'/'.repeat(150_000)}v1`;
    expect(parseStoreProfile(profile(endpoint), 'https://shop.test')?.endpoint).toBe(endpoint);
  });

  it('keeps an endpoint without trailing slashes as it is', () => {
    expect(parseStoreProfile(profile('https://shop.test/api/ucp'), 'https://shop.test')?.endpoint).toBe(
      'https://shop.test/api/ucp',
    );
  });
});

describe('JSON from a store', () => {
  it(`refuses text nested more than ${OUTSIDE_JSON_MAX_DEPTH} levels before parsing it`, () => {
    const deep = `${'['.repeat(1_500_000)}1${']'.repeat(1_500_000)}`;
    expect(() => parseOutsideJson(deep)).toThrow(SyntaxError);
    expect(() => parseOutsideJson(deep)).toThrow(/more than 64 levels/);
  });

  it('parses JSON up to the limit, and brackets inside strings do not count', () => {
    const atLimit = `${'['.repeat(OUTSIDE_JSON_MAX_DEPTH)}"[[[{{{\\"[["${']'.repeat(OUTSIDE_JSON_MAX_DEPTH)}`;
    expect(textNestsDeeper(atLimit, OUTSIDE_JSON_MAX_DEPTH)).toBe(false);
    let value = parseOutsideJson(atLimit);
    for (let i = 0; i < OUTSIDE_JSON_MAX_DEPTH; i++) value = (value as unknown[])[0];
    expect(value).toBe('[[[{{{"[[');
    expect(textNestsDeeper(`[${atLimit}]`, OUTSIDE_JSON_MAX_DEPTH)).toBe(true);
  });

  it('reports text that is not JSON as JSON.parse does', () => {
    expect(() => parseOutsideJson('{"a":')).toThrow(SyntaxError);
  });
});
