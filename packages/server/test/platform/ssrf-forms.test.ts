import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkPublicUrl,
  guardedLookup,
  isBlockedAddress,
  judgeAddress,
  publicFetch,
} from '../../src/platform/net/public-url.js';
import { as, type Commerce, startCommerce } from '../commerce/helpers.js';
import { type MediaTestService, startMediaService } from '../content/media-harness.js';
import { api } from '../helpers/start.js';

/**
 * Every IPv6 form that embeds an IPv4 address is judged as that IPv4 address, in every spelling.
 * The table is built, not listed, so a new wrapper or spelling is checked against every target.
 */

const hex = (v4: string) => {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
};

/** Spellings of one IPv6 form that carries `v4` in its last 32 bits, given spellings of its prefix. */
function lastBitsForms(prefixes: string[], v4: string, dottedTail = true): string[] {
  const [hi, lo] = hex(v4) as [string, string];
  const tails = [`${hi}:${lo}`, `${hi.padStart(4, '0')}:${lo.padStart(4, '0')}`];
  if (dottedTail) tails.push(v4);
  return prefixes.flatMap((p) => tails.map((t) => `${p}${t}`));
}

/** Every wrapper that embeds an IPv4 address, each with several spellings of its prefix. */
const wrappers: Record<string, (v4: string) => string[]> = {
  mapped: (v4) =>
    lastBitsForms(['::ffff:', '0:0:0:0:0:ffff:', '0000:0000:0000:0000:0000:ffff:', '::0:ffff:'], v4),
  translated: (v4) => lastBitsForms(['::ffff:0:', '0:0:0:0:ffff:0:', '::ffff:0000:'], v4),
  compatible: (v4) => lastBitsForms(['::', '0:0:0:0:0:0:', '0::0:'], v4),
  nat64: (v4) => lastBitsForms(['64:ff9b::', '0064:ff9b:0:0:0:0:', '64:ff9b:0::'], v4),
  nat64LocalUse: (v4) => lastBitsForms(['64:ff9b:1::', '64:ff9b:1:0:0:0:'], v4),
  sixToFour: (v4) => {
    const [hi, lo] = hex(v4) as [string, string];
    return [
      `2002:${hi}:${lo}::`,
      `2002:${hi}:${lo}::1`,
      `2002:${hi}:${lo}:0:0:0:0:1`,
      `2002:${hi}:${lo}:ab::cd`,
    ];
  },
};

/** Uppercase and zone-id spellings of every form. */
const spellings = (forms: string[]) => forms.flatMap((f) => [f, f.toUpperCase(), `${f}%eth0`, `[${f}]`]);

const PRIVATE_V4 = [
  '127.0.0.1',
  '10.0.0.1',
  '169.254.169.254',
  '192.168.1.10',
  '172.16.0.1',
  '100.64.0.1',
  '0.0.0.0',
];
const PUBLIC_V4 = ['8.8.8.8', '93.184.216.34'];

const privateForms = Object.entries(wrappers).flatMap(([name, wrap]) =>
  PRIVATE_V4.flatMap((v4) => spellings(wrap(v4)).map((form) => [name, v4, form] as const)),
);

describe('IPv6 forms that embed a private IPv4 address are blocked', () => {
  it(`covers ${privateForms.length} forms`, () => {
    const passed = privateForms.filter(([, , form]) => !isBlockedAddress(form));
    expect(passed).toEqual([]);
  });

  it('names the embedded IPv4 address', () => {
    for (const [name, v4, form] of privateForms) {
      // ::0.0.0.0 is the unspecified address, judged as itself.
      if (name === 'compatible' && v4 === '0.0.0.0') continue;
      expect(judgeAddress(form).embeddedIpv4, form).toBe(v4);
    }
  });

  it('refuses the issue’s two forms and their kin as URL literals', () => {
    const literals = privateForms
      .filter(([, , form]) => !form.includes('%') && !form.startsWith('['))
      .map(([, , form]) => `https://[${form}]/hook`);
    const accepted = literals.filter((url) => {
      try {
        checkPublicUrl(url, { allowPrivate: false, requireHttps: true });
        return true;
      } catch (err) {
        return (err as { code?: string }).code !== 'URL_NOT_ALLOWED';
      }
    });
    expect(accepted).toEqual([]);
  });
});

describe('IPv6 forms that embed a public IPv4 address are judged as that address', () => {
  const judgedAsPublic = ['mapped', 'translated', 'compatible', 'nat64', 'sixToFour'];
  it.each(judgedAsPublic)('%s of a public address is allowed', (name) => {
    const wrap = wrappers[name] as (v4: string) => string[];
    const forms = PUBLIC_V4.flatMap((v4) => spellings(wrap(v4)));
    expect(forms.filter((f) => isBlockedAddress(f))).toEqual([]);
  });

  it('refuses the local-use NAT64 prefix and Teredo whole, whatever they carry', () => {
    const forms = [
      ...PUBLIC_V4.flatMap((v4) => spellings((wrappers.nat64LocalUse as (v: string) => string[])(v4))),
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001::f7f7:f7f7',
      '2001:0000:4136:E378:8000:63BF:3FFF:FDD2',
    ];
    expect(forms.filter((f) => !isBlockedAddress(f))).toEqual([]);
  });
});

describe('plain IPv6 and IPv4', () => {
  it.each([
    '::',
    '::1',
    '0:0:0:0:0:0:0:1',
    '::1%lo',
    'fe80::1%eth0',
    'FE80::1',
    'fc00::1',
    'fd12:3456::1',
    'fec0::1',
    'ff02::1',
    '100::1',
    '2001:db8::1',
    '5f00::1',
    '255.255.255.255',
    '240.0.0.1',
    '198.18.0.1',
    '',
    'example.com',
    '2130706433',
    '0x7f.1',
  ])('blocks %s', (ip) => {
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each(['2606:4700:4700::1111', '2a00:1450:4001:82a::200e', '8.8.8.8', '1.1.1.1'])('allows %s', (ip) => {
    expect(isBlockedAddress(ip)).toBe(false);
  });
});

describe('the same judgement at connect time', () => {
  const answering = (address: string): typeof import('node:dns').lookup =>
    ((_host: string, _opts: unknown, cb: (e: null, a: LookupAddress[]) => void) =>
      cb(null, [{ address, family: 6 }])) as never;

  it.each(['::ffff:0:7f00:1', '::7f00:1', '64:ff9b::a9fe:a9fe', '2002:a00:1::1'])(
    'the pinned lookup refuses a name that resolves to %s',
    async (address) => {
      const lookup = guardedLookup(false, answering(address));
      const err = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
        lookup('hooks.example.com', { all: true }, (e) => resolve(e)),
      );
      expect(err?.code).toBe('EBLOCKEDADDRESS');
      await expect(
        publicFetch('http://hooks.example.com/', {
          allowPrivate: false,
          timeoutMs: 2000,
          lookup: answering(address),
        }),
      ).rejects.toThrow();
    },
  );
});

/** One spelling per wrapper and target, for the HTTP tests (each is a request). */
const overHttp = [
  '::127.0.0.1',
  '::ffff:0:7f00:1',
  '::FFFF:0:127.0.0.1',
  '0:0:0:0:0:ffff:a9fe:a9fe',
  '::ffff:10.0.0.1',
  '::a00:1',
  '64:ff9b::7f00:1',
  '64:ff9b::192.168.1.10',
  '64:ff9b:1::808:808',
  '2002:7f00:1::',
  '2002:a9fe:a9fe::1',
  '2001:0:4136:e378:8000:63bf:3fff:fdd2',
];

describe('POST /v1/webhook_endpoints refuses every embedded form', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce({ webhookAllowPrivate: false });
  });
  afterAll(() => c.close());

  it.each(overHttp)('https://[%s]/', async (form) => {
    const res = await as(c.svc, c.sandboxKey)('POST', '/v1/webhook_endpoints', {
      url: `https://[${form}]/hook`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('URL_NOT_ALLOWED');
    expect(res.body.error.message).toMatch(/private, loopback or reserved/);
  });

  it('still accepts a public host and a NAT64 form of a public address', async () => {
    const app = as(c.svc, c.sandboxKey);
    expect((await app('POST', '/v1/webhook_endpoints', { url: 'https://hooks.example.com/x' })).status).toBe(
      201,
    );
    expect((await app('POST', '/v1/webhook_endpoints', { url: 'https://[64:ff9b::808:808]/x' })).status).toBe(
      201,
    );
  });
});

describe('media from-url uses the same guard', () => {
  let svc: MediaTestService;
  beforeAll(async () => {
    svc = await startMediaService();
    await svc.addBrand('brd_a');
  });
  afterAll(() => svc.close());

  it.each(['::ffff:0:7f00:1', '::127.0.0.1'])('refuses http://[%s]/', async (form) => {
    const res = await api(svc.url, 'POST', '/v1/brands/brd_a/media/from-url', {
      body: { url: `http://[${form}]/x.png` },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('URL_NOT_ALLOWED');
  });
});
