import { resolve } from 'node:path';
import { z } from 'zod';
import { PLATFORMS, type Platform } from './content/domain.js';
import { parseSecretKey } from './platform/crypto/secret-box.js';
import { DEFAULT_POOL_SIZE } from './platform/db/sql.js';

/**
 * Where each platform's API and authorisation page are when SERVICE_<P>_API_URL / _AUTH_URL are
 * left out: the real platforms. Sources:
 * - X: https://docs.x.com/resources/fundamentals/authentication/oauth-2-0/user-access-token
 * - LinkedIn: https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow
 * - Instagram (Instagram Login):
 *   https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login
 * - Threads: https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions
 */
export const PLATFORM_URLS: Record<Platform, { apiUrl: string; authUrl: string }> = {
  x: { apiUrl: 'https://api.x.com', authUrl: 'https://x.com/i/oauth2/authorize' },
  linkedin: {
    apiUrl: 'https://api.linkedin.com',
    authUrl: 'https://www.linkedin.com/oauth/v2/authorization',
  },
  instagram: { apiUrl: 'https://graph.instagram.com', authUrl: 'https://www.instagram.com/oauth/authorize' },
  threads: { apiUrl: 'https://graph.threads.net', authUrl: 'https://threads.net/oauth/authorize' },
};

/** SERVICE_X_CLIENT_ID, SERVICE_LINKEDIN_API_URL, …: one name per platform and setting. */
export const platformVar = (
  platform: Platform,
  setting: 'CLIENT_ID' | 'CLIENT_SECRET' | 'API_URL' | 'AUTH_URL' | 'EXTRA_SCOPES',
) => `SERVICE_${platform.toUpperCase()}_${setting}`;

const platformVars = Object.fromEntries(
  PLATFORMS.flatMap((p) => [
    [platformVar(p, 'CLIENT_ID'), z.string().optional()],
    [platformVar(p, 'CLIENT_SECRET'), z.string().optional()],
    [platformVar(p, 'EXTRA_SCOPES'), z.string().optional()],
    [
      platformVar(p, 'API_URL'),
      z
        .string()
        .url(`${platformVar(p, 'API_URL')} must be an absolute URL`)
        .optional(),
    ],
    [
      platformVar(p, 'AUTH_URL'),
      z
        .string()
        .url(`${platformVar(p, 'AUTH_URL')} must be an absolute URL`)
        .optional(),
    ],
  ]),
) as Record<string, z.ZodOptional<z.ZodString>>;

const port = (name: string, fallback: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      const n = Number(v);
      if (!/^\d+$/.test(v.trim()) || n > 65535) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a port number from 0 to 65535 (got '${v}')`,
        });
        return z.NEVER;
      }
      return n;
    });

const oneOf = <T extends string>(name: string, values: readonly T[], fallback: T) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      if (!(values as readonly string[]).includes(v)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be one of ${values.join(', ')} (got '${v}')` });
        return z.NEVER;
      }
      return v as T;
    });

const flag = (name: string, fallback: '0' | '1' = '0') =>
  oneOf(name, ['0', '1', 'true', 'false'], fallback).transform((v) => v === '1' || v === 'true');

/**
 * A whole number from `min` up (to `max` when given), with its unit in the error ("a whole number
 * of bytes, at least 1024"; "a whole number of days, from 0 to 36500").
 */
const wholeNumber = (name: string, fallback: number, min: number, unit: string, max?: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || (max !== undefined && n > max)) {
        const range = max === undefined ? `at least ${min}` : `from ${min} to ${max}`;
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a whole number of ${unit}, ${range} (got '${v}')`,
        });
        return z.NEVER;
      }
      return n;
    });

/**
 * The longest MCP call log retention: a century. Nobody means more and not "keep everything" (0),
 * and a bound keeps the cut-off a date JavaScript can make (1e9 days back is not one).
 */
export const MAX_MCP_LOG_RETENTION_DAYS = 36_500;

const envSchema = z.object({
  SERVICE_DATA_DIR: z.string().optional(),
  // Both services on PostgreSQL (one schema each) instead of SQLite files in SERVICE_DATA_DIR.
  SERVICE_DATABASE_URL: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || v === '' || /^postgres(ql)?:\/\//i.test(v),
      'SERVICE_DATABASE_URL must be a postgres:// (or postgresql://) URL, e.g. postgres://svc@127.0.0.1:5432/svc',
    ),
  // Media files in a directory every instance shares (default: SERVICE_DATA_DIR/media).
  SERVICE_MEDIA_DIR: z.string().optional(),
  SERVICE_DATABASE_POOL_SIZE: wholeNumber('SERVICE_DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, 2, 'connections'),
  // PostgreSQL: named prepared statements, on unless set to 0 (a transaction-mode pooler without them).
  SERVICE_DATABASE_PREPARE: flag('SERVICE_DATABASE_PREPARE', '1'),
  CONTENT_PORT: port('CONTENT_PORT', 3000),
  COMMERCE_PORT: port('COMMERCE_PORT', 4000),
  SERVICE_HOST: z.string().optional(),
  SERVICE_MODE: oneOf('SERVICE_MODE', ['sandbox', 'live'], 'sandbox'),
  SERVICE_MODEL: oneOf('SERVICE_MODEL', ['simulated', 'real'], 'simulated'),
  SERVICE_PUBLIC_API: oneOf('SERVICE_PUBLIC_API', ['local', 'all'], 'local'),
  SERVICE_SEED: oneOf('SERVICE_SEED', ['demo', 'none'], 'demo'),
  SERVICE_WEBHOOK_ALLOW_PRIVATE: flag('SERVICE_WEBHOOK_ALLOW_PRIVATE'),
  SERVICE_STORES_ALLOW_PRIVATE: flag('SERVICE_STORES_ALLOW_PRIVATE'),
  SERVICE_MEDIA_ALLOW_PRIVATE: flag('SERVICE_MEDIA_ALLOW_PRIVATE'),
  SERVICE_VALIDATE_RESPONSES: flag('SERVICE_VALIDATE_RESPONSES'),
  SERVICE_MAX_BODY_BYTES: wholeNumber('SERVICE_MAX_BODY_BYTES', 1024 * 1024, 1024, 'bytes'),
  CONTENT_PUBLIC_URL: z.string().url('CONTENT_PUBLIC_URL must be an absolute URL').optional(),
  SERVICE_KEY_RATE_LIMIT: wholeNumber('SERVICE_KEY_RATE_LIMIT', 120, 1, 'calls per minute'),
  // Days the MCP call log keeps an entry; 0 keeps every entry (docs/content/mcp.md, "Retention").
  SERVICE_MCP_LOG_RETENTION_DAYS: wholeNumber(
    'SERVICE_MCP_LOG_RETENTION_DAYS',
    90,
    0,
    'days',
    MAX_MCP_LOG_RETENTION_DAYS,
  ),
  COMMERCE_PUBLIC_URL: z.string().url('COMMERCE_PUBLIC_URL must be an absolute URL').optional(),
  // SERVICE_MODEL=real: any OpenAI-compatible chat completions server (see docs/content/model.md).
  SERVICE_MODEL_BASE_URL: z
    .string()
    .url('SERVICE_MODEL_BASE_URL must be an absolute URL such as http://127.0.0.1:11434/v1')
    .optional(),
  SERVICE_MODEL_API_KEY: z.string().optional(),
  SERVICE_MODEL_NAME: z.string().optional(),
  LOG_LEVEL: oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  // Encrypts platform tokens at rest (platform/crypto/secret-box.ts); required in live mode.
  SERVICE_SECRET_KEY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const parsed = parseSecretKey(v);
      if ('problem' in parsed) {
        ctx.addIssue({ code: 'custom', message: `SERVICE_SECRET_KEY ${parsed.problem}` });
        return z.NEVER;
      }
      return parsed.key;
    }),
  ...platformVars,
});

/** One platform's OAuth app and where its API is. `client` is null when it is not configured. */
export interface PlatformClientConfig {
  client: { id: string; secret: string } | null;
  apiUrl: string;
  authUrl: string;
  /** Scopes asked for besides the provider's own (SERVICE_<P>_EXTRA_SCOPES), e.g. one the platform granted on request. */
  extraScopes?: string[];
}

export interface Config {
  dataDir: string;
  /**
   * SERVICE_DATABASE_URL: PostgreSQL for both services (schemas `content` and `commerce`);
   * undefined keeps each service's SQLite file in `dataDir`.
   */
  databaseUrl?: string | undefined;
  /**
   * SERVICE_MEDIA_DIR: where media files live; `<dataDir>/media` when left out. Instances on
   * several machines point it at one shared directory (see docs/operations.md, "Media").
   */
  mediaDir?: string;
  /** Connections each service's pool may open, per process (SERVICE_DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  /**
   * SERVICE_DATABASE_PREPARE: on PostgreSQL each connection prepares the statements it runs, so
   * the server parses (and, once it keeps a generic plan, plans) each one once instead of on every
   * call. `0` sends every statement as a one-off (docs/operations.md, "PostgreSQL").
   */
  databasePrepare: boolean;
  host: string;
  mode: 'sandbox' | 'live';
  model: 'simulated' | 'real';
  /** Where the real model is; set when `model` is `real` (start-up refuses it missing). */
  realModel?: { baseUrl: string; apiKey?: string; name: string };
  /**
   * false when SERVICE_PUBLIC_API=all: the content REST API's local-only gate is off. Nothing
   * else reads it: the commerce dashboard is local-only whatever it says.
   */
  localOnly: boolean;
  seed: 'demo' | 'none';
  webhookAllowPrivate: boolean;
  /**
   * SERVICE_STORES_ALLOW_PRIVATE: store adapters (product pages, UCP) may reach loopback, private
   * addresses and plain http. Local development and tests only.
   */
  storesAllowPrivate: boolean;
  /**
   * SERVICE_MEDIA_ALLOW_PRIVATE: live publishing may hand platforms that fetch images by URL
   * (Instagram, Threads) a loopback or private http URL. Only for local fakes: the real
   * platforms cannot reach such an address.
   */
  mediaAllowPrivate: boolean;
  maxBodyBytes: number;
  /**
   * SERVICE_VALIDATE_RESPONSES: every answer is checked against its declared schema and a
   * mismatch is a 500. For development and the test suite (which turns it on), where schema
   * drift must fail loudly; off by default, since it costs every request a JSON round trip
   * and a parse in production.
   */
  validateResponses: boolean;
  /** SERVICE_KEY_RATE_LIMIT: MCP tool calls and resource reads one API key may make per minute. */
  keyRateLimit: number;
  /**
   * SERVICE_MCP_LOG_RETENTION_DAYS: entries of the MCP call log older than this many days are
   * deleted by the background pass (services/mcp-call-retention.ts); 0 keeps every entry.
   */
  mcpLogRetentionDays: number;
  logLevel: string;
  content: { port: number; publicUrl: string | undefined };
  commerce: { port: number; publicUrl: string | undefined };
  /** 32+ random bytes (SERVICE_SECRET_KEY) that key token encryption; start-up refuses live mode without. */
  secretKey?: Buffer;
  /** Each platform's OAuth app (SERVICE_<P>_CLIENT_ID/SECRET) and base URLs (SERVICE_<P>_API_URL/AUTH_URL). */
  platforms: Record<Platform, PlatformClientConfig>;
  /** How long one platform API call may take (30 s when left out); embedding and tests only. */
  platformTimeoutMs?: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads the environment once; the first bad setting stops start-up with one line that names it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'configuration');
    const message = issue?.message ?? 'invalid';
    throw new ConfigError(
      `Invalid configuration: ${message.startsWith(name) ? message : `${name}: ${message}`}.`,
    );
  }
  const e = parsed.data;
  if (e.SERVICE_MODEL === 'real') {
    for (const [name, value, example] of [
      [
        'SERVICE_MODEL_BASE_URL',
        e.SERVICE_MODEL_BASE_URL,
        'an OpenAI-compatible base URL such as http://127.0.0.1:11434/v1',
      ],
      ['SERVICE_MODEL_NAME', e.SERVICE_MODEL_NAME, 'the model to ask for, such as llama3.1 or gpt-4o-mini'],
    ] as const) {
      if (!value)
        throw new ConfigError(
          `Invalid configuration: ${name} is required with SERVICE_MODEL=real (${example}).`,
        );
    }
  }
  if (e.SERVICE_MODE === 'live' && !e.SERVICE_SECRET_KEY) {
    throw new ConfigError(
      'Invalid configuration: SERVICE_SECRET_KEY is required with SERVICE_MODE=live (it encrypts platform tokens at rest; generate one with `openssl rand -base64 32`).',
    );
  }
  const vars = e as unknown as Record<string, string | undefined>;
  const platforms = {} as Record<Platform, PlatformClientConfig>;
  for (const p of PLATFORMS) {
    const id = vars[platformVar(p, 'CLIENT_ID')] || undefined;
    const secret = vars[platformVar(p, 'CLIENT_SECRET')] || undefined;
    if (Boolean(id) !== Boolean(secret)) {
      const [set, missing] = id
        ? [platformVar(p, 'CLIENT_ID'), platformVar(p, 'CLIENT_SECRET')]
        : [platformVar(p, 'CLIENT_SECRET'), platformVar(p, 'CLIENT_ID')];
      throw new ConfigError(
        `Invalid configuration: ${missing} is required when ${set} is set (both name the same ${p} OAuth app; set both or neither).`,
      );
    }
    platforms[p] = {
      client: id && secret ? { id, secret } : null,
      apiUrl: vars[platformVar(p, 'API_URL')] || PLATFORM_URLS[p].apiUrl,
      authUrl: vars[platformVar(p, 'AUTH_URL')] || PLATFORM_URLS[p].authUrl,
      extraScopes: (vars[platformVar(p, 'EXTRA_SCOPES')] ?? '').split(/[\s,]+/).filter(Boolean),
    };
  }
  return {
    dataDir: resolve(e.SERVICE_DATA_DIR || './.data'),
    ...(e.SERVICE_DATABASE_URL ? { databaseUrl: e.SERVICE_DATABASE_URL } : {}),
    ...(e.SERVICE_MEDIA_DIR ? { mediaDir: resolve(e.SERVICE_MEDIA_DIR) } : {}),
    databasePoolSize: e.SERVICE_DATABASE_POOL_SIZE,
    databasePrepare: e.SERVICE_DATABASE_PREPARE,
    host: e.SERVICE_HOST || '127.0.0.1',
    mode: e.SERVICE_MODE,
    model: e.SERVICE_MODEL,
    ...(e.SERVICE_MODEL === 'real' && e.SERVICE_MODEL_BASE_URL && e.SERVICE_MODEL_NAME
      ? {
          realModel: {
            baseUrl: e.SERVICE_MODEL_BASE_URL,
            name: e.SERVICE_MODEL_NAME,
            ...(e.SERVICE_MODEL_API_KEY ? { apiKey: e.SERVICE_MODEL_API_KEY } : {}),
          },
        }
      : {}),
    localOnly: e.SERVICE_PUBLIC_API !== 'all',
    seed: e.SERVICE_SEED,
    webhookAllowPrivate: e.SERVICE_WEBHOOK_ALLOW_PRIVATE,
    storesAllowPrivate: e.SERVICE_STORES_ALLOW_PRIVATE,
    mediaAllowPrivate: e.SERVICE_MEDIA_ALLOW_PRIVATE,
    maxBodyBytes: e.SERVICE_MAX_BODY_BYTES,
    validateResponses: e.SERVICE_VALIDATE_RESPONSES,
    keyRateLimit: e.SERVICE_KEY_RATE_LIMIT,
    mcpLogRetentionDays: e.SERVICE_MCP_LOG_RETENTION_DAYS,
    logLevel: e.LOG_LEVEL,
    content: { port: e.CONTENT_PORT, publicUrl: e.CONTENT_PUBLIC_URL },
    commerce: { port: e.COMMERCE_PORT, publicUrl: e.COMMERCE_PUBLIC_URL },
    ...(e.SERVICE_SECRET_KEY ? { secretKey: e.SERVICE_SECRET_KEY } : {}),
    platforms,
  };
}

/** A config for tests and embedding: defaults plus overrides, no environment involved. */
export function testConfig(overrides: Partial<Config> & { dataDir: string }): Config {
  const base = loadConfig({});
  // Responses are held to their schemas in every test, so drift fails the suite.
  return { ...base, logLevel: 'silent', seed: 'none', validateResponses: true, ...overrides };
}
