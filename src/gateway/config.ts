/**
 * The gateway's configuration file (docs/gateway.md, "Configuration"): where it listens,
 * its mode, Redis, the plans, the databases with their servers and overrides, and the API
 * keys, stored as SHA-256 digests with their permissions per database.
 *
 * Everything is checked when the gateway starts: a mistake is one ConfigError naming the
 * file, the JSON path and what is expected, never a gateway that starts and fails later.
 */
import { readFileSync } from 'node:fs';
import Type, { type Static } from 'typebox';
import Value from 'typebox/value';
import { LOG_LEVELS, type LogLevel } from '../observe/log.js';
import { type BucketLimits, DEFAULT_DEADLINE_MS, DEFAULT_RESERVE_MS } from './limiter.js';
import { messageOf } from '../core/errors.js';

export class GatewayConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayConfigError';
  }
}

export type GatewayMode = 'shared' | 'cluster';
export type Permission = 'read' | 'write';

export interface DatabaseConfig {
  readonly id: string;
  /** Base URL of the writer server, e.g. http://127.0.0.1:6969. */
  readonly writer: string;
  /** Base URLs of the reader servers (`--mode reader`), maybe none. */
  readonly readers: readonly string[];
  readonly limits: BucketLimits;
  /** Wall-clock budget of one request at the gateway, retries included; past it, 408. */
  readonly attemptBudgetMs: number;
}

export interface KeyConfig {
  readonly name: string;
  /** Lowercase hex SHA-256 of the key. */
  readonly sha256: string;
  readonly databases: ReadonlyMap<string, ReadonlySet<Permission>>;
  /** May read GET /metrics. */
  readonly metrics: boolean;
}

export interface GatewayConfig {
  readonly file: string;
  readonly host: string;
  readonly port: number;
  readonly mode: GatewayMode;
  readonly redis: { readonly url: string; readonly keyPrefix: string; readonly deadlineMs: number; readonly reserveMs: number };
  /** False turns the token bucket off (benchmarks, development); every request is admitted. */
  readonly rateLimit: boolean;
  readonly maxBodyBytes: number;
  readonly databases: ReadonlyMap<string, DatabaseConfig>;
  readonly keys: readonly KeyConfig[];
  readonly logLevel: LogLevel;
  readonly metrics: boolean;
  /** Serve the explorer's page and files (docs/explorer.md) without a key; its queries need one. */
  readonly explorer: boolean;
}

/** HelixDB's published tiers, used when the file names a plan it does not define. */
export const EXAMPLE_PLANS: Readonly<Record<string, BucketLimits>> = {
  idea: { rate: 5, burst: 10 },
  startup: { rate: 10, burst: 20 },
  growth: { rate: 20, burst: 40 },
};

export const GATEWAY_MAX_BODY_BYTES = 2 * 1024 * 1024;
const DEFAULT_ATTEMPT_BUDGET_MS = 30_000;
const MAX_BUDGET_MS = 3_600_000;

const Rate = Type.Number({ exclusiveMinimum: 0, maximum: 1e9 });
const Burst = Type.Integer({ minimum: 1, maximum: 1e9 });
const Budget = Type.Integer({ minimum: 1, maximum: MAX_BUDGET_MS });
const URL_PATTERN = '^https?://[^/?#\\s]+/?$';
const SHA256_PATTERN = '^[0-9a-fA-F]{64}$';
const REDIS_PATTERN = '^(rediss?://|unix:///)';
/** What a pattern means, for messages. */
const PATTERN_MEANS: Record<string, string> = {
  [URL_PATTERN]: 'must be a server base URL such as "http://127.0.0.1:6969"',
  [SHA256_PATTERN]: 'must be 64 hex digits, the SHA-256 of the key (`trellis gateway key` prints one)',
  [REDIS_PATTERN]: 'must be a Redis URL such as "redis://127.0.0.1:6379" or "unix:///run/redis/redis.sock"',
};
const Url = Type.String({ pattern: URL_PATTERN });
const PlanSchema = Type.Object({ rate: Rate, burst: Burst }, { additionalProperties: false });
const DatabaseSchema = Type.Object(
  {
    writer: Url,
    readers: Type.Optional(Type.Array(Url)),
    plan: Type.Optional(Type.String({ minLength: 1 })),
    rate: Type.Optional(Rate),
    burst: Type.Optional(Burst),
    attempt_budget_ms: Type.Optional(Budget),
  },
  { additionalProperties: false },
);
const KeySchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    sha256: Type.String({ pattern: SHA256_PATTERN }),
    databases: Type.Record(Type.String({ minLength: 1 }), Type.Array(Type.Union([Type.Literal('read'), Type.Literal('write')]))),
    metrics: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const FileSchema = Type.Object(
  {
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    mode: Type.Union([Type.Literal('shared'), Type.Literal('cluster')]),
    redis: Type.Object(
      {
        url: Type.String({ pattern: REDIS_PATTERN }),
        key_prefix: Type.Optional(Type.String()),
        deadline_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 60_000 })),
        reserve_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
      },
      { additionalProperties: false },
    ),
    rate_limit: Type.Optional(Type.Boolean()),
    attempt_budget_ms: Type.Optional(Budget),
    plans: Type.Optional(Type.Record(Type.String({ minLength: 1 }), PlanSchema)),
    default_plan: Type.Optional(Type.String({ minLength: 1 })),
    databases: Type.Record(Type.String({ minLength: 1 }), DatabaseSchema),
    keys: Type.Array(KeySchema),
    log_level: Type.Optional(Type.Union(LOG_LEVELS.map((l) => Type.Literal(l)))),
    metrics: Type.Optional(Type.Boolean()),
    explorer: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
type FileConfig = Static<typeof FileSchema>;

function fail(file: string, where: string, what: string): never {
  throw new GatewayConfigError(`${file}: ${where === '' ? '' : `${where}: `}${what}`);
}

function dotted(instancePath: string): string {
  return instancePath === '' ? '(top level)' : instancePath.slice(1).replaceAll('/', '.');
}

function checkShape(file: string, parsed: unknown): FileConfig {
  if (Value.Check(FileSchema, parsed)) return parsed;
  const errors = [...Value.Errors(FileSchema, parsed)];
  const first = errors[0];
  if (first === undefined) return fail(file, '', 'does not match the gateway configuration schema');
  const params = first.params as { requiredProperties?: string[]; allowedValue?: unknown };
  if (first.keyword === 'boolean') {
    // additionalProperties: false rejects the key itself.
    const segments = first.instancePath.split('/');
    const key = segments.pop()!;
    fail(file, dotted(segments.join('/')), `unknown key "${key}"`);
  }
  if (first.keyword === 'required') fail(file, dotted(first.instancePath), `"${params.requiredProperties?.[0]}" is required`);
  if (first.keyword === 'const') {
    const allowed = errors.filter((e) => e.instancePath === first.instancePath && e.keyword === 'const');
    const values = allowed.map((e) => JSON.stringify((e.params as { allowedValue?: unknown }).allowedValue)).join(', ');
    fail(file, dotted(first.instancePath), `must be one of ${values}`);
  }
  const pattern = (params as { pattern?: string }).pattern;
  if (first.keyword === 'pattern' && pattern !== undefined && PATTERN_MEANS[pattern] !== undefined) {
    fail(file, dotted(first.instancePath), PATTERN_MEANS[pattern]);
  }
  return fail(file, dotted(first.instancePath), first.message);
}

function limitsOf(
  file: string,
  id: string,
  db: FileConfig['databases'][string],
  plans: Record<string, BucketLimits>,
  defaultPlan: string,
): BucketLimits {
  const planName = db.plan ?? defaultPlan;
  const plan = plans[planName];
  if (plan === undefined) fail(file, `databases.${id}.plan`, `unknown plan "${planName}"; plans: ${Object.keys(plans).join(', ')}`);
  // Per-database overrides take precedence over the plan (contract, rate limit rule 6).
  return { rate: db.rate ?? plan.rate, burst: db.burst ?? plan.burst };
}

export function parseGatewayConfig(file: string, text: string): GatewayConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    fail(file, '', `cannot read it as JSON: ${messageOf(err)}`);
  }
  const raw = checkShape(file, parsed);
  const plans = { ...EXAMPLE_PLANS, ...(raw.plans ?? {}) };
  const defaultPlan = raw.default_plan ?? 'idea';
  if (plans[defaultPlan] === undefined) fail(file, 'default_plan', `unknown plan "${defaultPlan}"`);
  const budget = raw.attempt_budget_ms ?? DEFAULT_ATTEMPT_BUDGET_MS;

  const databases = new Map<string, DatabaseConfig>();
  for (const [id, db] of Object.entries(raw.databases)) {
    databases.set(id, {
      id,
      writer: db.writer.replace(/\/$/, ''),
      readers: (db.readers ?? []).map((r) => r.replace(/\/$/, '')),
      limits: limitsOf(file, id, db, plans, defaultPlan),
      attemptBudgetMs: db.attempt_budget_ms ?? budget,
    });
  }
  if (databases.size === 0) fail(file, 'databases', 'names no database');
  if (raw.mode === 'cluster' && databases.size !== 1) {
    fail(file, 'databases', `a cluster-mode gateway serves exactly one database, this file names ${databases.size}`);
  }

  const digests = new Set<string>();
  const keys = raw.keys.map((key, i): KeyConfig => {
    const sha256 = key.sha256.toLowerCase();
    if (digests.has(sha256)) fail(file, `keys.${i}.sha256`, 'the same key digest appears twice');
    digests.add(sha256);
    const grants = new Map<string, ReadonlySet<Permission>>();
    for (const [db, permissions] of Object.entries(key.databases)) {
      if (!databases.has(db)) fail(file, `keys.${i}.databases`, `key "${key.name}" names database "${db}", which is not in "databases"`);
      grants.set(db, new Set(permissions));
    }
    return { name: key.name, sha256, databases: grants, metrics: key.metrics ?? false };
  });

  return {
    file,
    host: raw.host ?? '127.0.0.1',
    port: raw.port ?? 8080,
    mode: raw.mode,
    redis: {
      url: raw.redis.url,
      keyPrefix: raw.redis.key_prefix ?? 'trellis:',
      deadlineMs: raw.redis.deadline_ms ?? DEFAULT_DEADLINE_MS,
      reserveMs: raw.redis.reserve_ms ?? DEFAULT_RESERVE_MS,
    },
    rateLimit: raw.rate_limit ?? true,
    maxBodyBytes: GATEWAY_MAX_BODY_BYTES,
    databases,
    keys,
    logLevel: raw.log_level ?? 'info',
    metrics: raw.metrics ?? true,
    explorer: raw.explorer ?? true,
  };
}

export function loadGatewayConfig(file: string): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new GatewayConfigError(`cannot read the gateway configuration ${file}: ${messageOf(err)}`);
  }
  return parseGatewayConfig(file, text);
}
