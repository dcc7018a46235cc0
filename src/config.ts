/**
 * Configuration (DECISIONS D0): each setting comes from a CLI flag, else an environment
 * variable, else `trellis.json` in the project folder, else its default. One TypeBox schema
 * per setting validates all three sources, so a value means the same wherever it is written.
 *
 * Relative paths from flags and variables are resolved against the working directory;
 * `dataDir` in trellis.json is resolved against the project folder, where the file lives.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { constants as bufferConstants } from 'node:buffer';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import Type, { type Static, type TSchema } from 'typebox';
import Value from 'typebox/value';
import { LIMITS } from './plan/limits.js';
import { LOG_LEVELS, type LogLevel } from './core/log-levels.js';
import { messageOf } from './core/errors.js';
import type { EmbeddingConfig } from './core/embedding-config.js';
import { buildParametersProblem, DEFAULT_HNSW_BUILD, HNSW_BUILD, type HnswBuildParameters } from './core/index-spec.js';
import { parseToml, TomlError, type TomlTable, type TomlValue } from './core/toml-subset.js';

export type Mode = 'writer' | 'reader' | 'replica';

export interface Config {
  port: number;
  host: string;
  /** Absolute. */
  dataDir: string;
  mode: Mode;
  /** Absolute project folder (holds trellis.json and .hx files), if any. */
  project: string | undefined;
  /** The trellis.json that was read, if any. */
  configFile: string | undefined;
  /** Absolute folder whose `.hx` files the project is (helix.toml's `queries`); undefined: the whole project folder. */
  queriesDir: string | undefined;
  /** The project's name (helix.toml's `[project] name`), if it has one. */
  projectName: string | undefined;
  /** The beam of the project's vector searches (config.hx.json's `vector_config.ef_search`); undefined: the index's default. */
  efSearch: number | undefined;
  /**
   * The build parameters (`m`, `ef_construction`) of the vector indexes the project's
   * queries make: trellis.json's `vectorIndex`, else config.hx.json's `vector_config`, for
   * each key; default HelixDB's, 16 and 128.
   */
  vectorIndex: HnswBuildParameters;
  workers: number;
  /** Worker threads of the lane for long queries (src/pool/read-pool.ts). */
  longWorkers: number;
  /** A read running longer than this (ms) moves to the long lane; 0: never. */
  querySliceMs: number;
  /** Heap limit of each read worker (MiB); 0: V8's default. */
  workerHeapMb: number;
  maxBodyBytes: number;
  /** Wall-clock budget of one query's execution; past it the query stops with 408. */
  queryTimeoutMs: number;
  mcp: boolean;
  /** Text search in the query language (SearchBM25, SearchHybrid); false: queries using it are refused at load. */
  bm25: boolean;
  /** The embedding provider of the query language's Embed() (an OpenAI-compatible /v1/embeddings API), if any. */
  embedding: EmbeddingConfig | undefined;
  /** Serve `GET /metrics` and count what it reports; false: 404, nothing counted. */
  metrics: boolean;
  /** Serve `POST /v2/cypher` and `POST /v2/cypher/explain` (DECISIONS D21); false: both 404. */
  cypher: boolean;
  /** Serve the explorer at `GET /` (docs/explorer.md); false: its paths are 404. */
  explorer: boolean;
  /** The least severe level logged (pino's levels; `silent`: nothing). */
  logLevel: LogLevel;
  /** NATS server of the replication stream (docs/replication.md): a writer publishes to it, a replica follows it. */
  nats: string | undefined;
  /** The JetStream stream's name. */
  stream: string;
  /** A replica's writer, for snapshots. */
  writerUrl: string | undefined;
  /** A replica further behind than this (ms) answers /readyz 503. */
  maxLagMs: number;
  /** How long a replica waits for X-Trellis-Min-Lsn before 503 lsn_not_reached (ms). */
  minLsnWaitMs: number;
  /** `--help` was given: print USAGE and exit; the other fields are defaults. */
  help: boolean;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export const CONFIG_FILE_NAME = 'trellis.json';

const MAX_WORKERS = 1024;

const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const NonEmpty = Type.String({ minLength: 1 });
const ModeSchema = Type.Union([Type.Literal('writer'), Type.Literal('reader'), Type.Literal('replica')]);
const NatsUrl = Type.String({ pattern: '^(nats|tls)://[^\\s]+$' });
const HttpUrl = Type.String({ pattern: '^https?://[^\\s]+$' });
const StreamName = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' });
const Workers = Type.Integer({ minimum: 1, maximum: MAX_WORKERS });
const MaxBody = Type.Integer({ minimum: 1, maximum: bufferConstants.MAX_LENGTH });
const MAX_TIMEOUT_MS = 24 * 3600 * 1000;
const SliceMs = Type.Integer({ minimum: 0, maximum: 60_000 });
const HeapMb = Type.Integer({ minimum: 0, maximum: 1024 * 1024 });
const Timeout = Type.Integer({ minimum: 1, maximum: MAX_TIMEOUT_MS });
const Bool = Type.Boolean();
const LogLevelSchema = Type.Union(LOG_LEVELS.map((level) => Type.Literal(level)));
const LOG_LEVEL_LIST = `${LOG_LEVELS.slice(0, -1)
  .map((l) => `"${l}"`)
  .join(', ')} or "${LOG_LEVELS[LOG_LEVELS.length - 1]}"`;

const FileSchema = Type.Object(
  {
    port: Type.Optional(Port),
    host: Type.Optional(NonEmpty),
    dataDir: Type.Optional(NonEmpty),
    mode: Type.Optional(ModeSchema),
    workers: Type.Optional(Workers),
    longWorkers: Type.Optional(Workers),
    querySliceMs: Type.Optional(SliceMs),
    workerHeapMb: Type.Optional(HeapMb),
    maxBodyBytes: Type.Optional(MaxBody),
    queryTimeoutMs: Type.Optional(Timeout),
    mcp: Type.Optional(Bool),
    bm25: Type.Optional(Bool),
    embedding: Type.Optional(
      Type.Object(
        {
          url: Type.String({ pattern: '^https?://' }),
          model: NonEmpty,
          dimensions: Type.Optional(Type.Integer({ minimum: 1, maximum: 65536 })),
          api_key_env: Type.Optional(NonEmpty),
          timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000 })),
        },
        { additionalProperties: false },
      ),
    ),
    vectorIndex: Type.Optional(
      Type.Object(
        {
          m: Type.Optional(Type.Integer({ minimum: HNSW_BUILD.m.min, maximum: HNSW_BUILD.m.max })),
          ef_construction: Type.Optional(Type.Integer({ minimum: HNSW_BUILD.m.min, maximum: HNSW_BUILD.efConstruction.max })),
        },
        { additionalProperties: false },
      ),
    ),
    metrics: Type.Optional(Bool),
    cypher: Type.Optional(Bool),
    explorer: Type.Optional(Bool),
    logLevel: Type.Optional(LogLevelSchema),
    nats: Type.Optional(NatsUrl),
    stream: Type.Optional(StreamName),
    writerUrl: Type.Optional(HttpUrl),
    maxLagMs: Type.Optional(Timeout),
    minLsnWaitMs: Type.Optional(SliceMs),
  },
  { additionalProperties: false },
);
type FileConfig = Static<typeof FileSchema>;

type FlagKey =
  | 'port'
  | 'host'
  | 'dataDir'
  | 'mode'
  | 'project'
  | 'workers'
  | 'longWorkers'
  | 'querySliceMs'
  | 'workerHeapMb'
  | 'maxBodyBytes'
  | 'queryTimeoutMs'
  | 'metrics'
  | 'cypher'
  | 'explorer'
  | 'logLevel'
  | 'nats'
  | 'stream'
  | 'writerUrl'
  | 'maxLagMs'
  | 'minLsnWaitMs';

interface Setting {
  readonly key: FlagKey;
  readonly flag: string;
  readonly env: string;
  readonly schema: TSchema;
  readonly expects: string;
  /** How a flag's or variable's text becomes the value the schema checks. */
  readonly parse: 'integer' | 'text' | 'boolean';
}

const SETTINGS: readonly Setting[] = [
  { key: 'port', flag: '--port', env: 'TRELLIS_PORT', schema: Port, expects: 'an integer from 0 to 65535', parse: 'integer' },
  { key: 'host', flag: '--host', env: 'TRELLIS_HOST', schema: NonEmpty, expects: 'a non-empty host name or address', parse: 'text' },
  { key: 'dataDir', flag: '--data', env: 'TRELLIS_DATA_DIR', schema: NonEmpty, expects: 'a non-empty path', parse: 'text' },
  { key: 'mode', flag: '--mode', env: 'TRELLIS_MODE', schema: ModeSchema, expects: '"writer", "reader" or "replica"', parse: 'text' },
  { key: 'project', flag: '--project', env: 'TRELLIS_PROJECT', schema: NonEmpty, expects: 'a non-empty path', parse: 'text' },
  {
    key: 'workers',
    flag: '--workers',
    env: 'TRELLIS_WORKERS',
    schema: Workers,
    expects: `an integer from 1 to ${MAX_WORKERS}`,
    parse: 'integer',
  },
  {
    key: 'longWorkers',
    flag: '--long-workers',
    env: 'TRELLIS_LONG_WORKERS',
    schema: Workers,
    expects: `an integer from 1 to ${MAX_WORKERS}`,
    parse: 'integer',
  },
  {
    key: 'querySliceMs',
    flag: '--query-slice-ms',
    env: 'TRELLIS_QUERY_SLICE_MS',
    schema: SliceMs,
    expects: 'an integer from 0 to 60000 (milliseconds; 0: never move reads)',
    parse: 'integer',
  },
  {
    key: 'workerHeapMb',
    flag: '--worker-heap-mb',
    env: 'TRELLIS_WORKER_HEAP_MB',
    schema: HeapMb,
    expects: 'an integer from 0 to 1048576 (MiB; 0: the default heap)',
    parse: 'integer',
  },
  {
    key: 'maxBodyBytes',
    flag: '--max-body-bytes',
    env: 'TRELLIS_MAX_BODY_BYTES',
    schema: MaxBody,
    expects: `an integer from 1 to ${bufferConstants.MAX_LENGTH}`,
    parse: 'integer',
  },
  {
    key: 'queryTimeoutMs',
    flag: '--query-timeout-ms',
    env: 'TRELLIS_QUERY_TIMEOUT_MS',
    schema: Timeout,
    expects: `an integer from 1 to ${MAX_TIMEOUT_MS} (milliseconds)`,
    parse: 'integer',
  },
  { key: 'metrics', flag: '--metrics', env: 'TRELLIS_METRICS', schema: Bool, expects: 'true or false', parse: 'boolean' },
  { key: 'cypher', flag: '--cypher', env: 'TRELLIS_CYPHER', schema: Bool, expects: 'true or false', parse: 'boolean' },
  { key: 'explorer', flag: '--explorer', env: 'TRELLIS_EXPLORER', schema: Bool, expects: 'true or false', parse: 'boolean' },
  { key: 'logLevel', flag: '--log-level', env: 'TRELLIS_LOG_LEVEL', schema: LogLevelSchema, expects: LOG_LEVEL_LIST, parse: 'text' },
  { key: 'nats', flag: '--nats', env: 'TRELLIS_NATS', schema: NatsUrl, expects: 'a nats:// URL (nats://host:port)', parse: 'text' },
  { key: 'stream', flag: '--stream', env: 'TRELLIS_STREAM', schema: StreamName, expects: '1 to 64 letters, digits, _ or -', parse: 'text' },
  {
    key: 'writerUrl',
    flag: '--writer-url',
    env: 'TRELLIS_WRITER_URL',
    schema: HttpUrl,
    expects: 'an http:// URL of the writer',
    parse: 'text',
  },
  {
    key: 'maxLagMs',
    flag: '--max-lag-ms',
    env: 'TRELLIS_MAX_LAG_MS',
    schema: Timeout,
    expects: `an integer from 1 to ${MAX_TIMEOUT_MS} (milliseconds)`,
    parse: 'integer',
  },
  {
    key: 'minLsnWaitMs',
    flag: '--min-lsn-wait-ms',
    env: 'TRELLIS_MIN_LSN_WAIT_MS',
    schema: SliceMs,
    expects: 'an integer from 0 to 60000 (milliseconds)',
    parse: 'integer',
  },
];
const BY_FLAG = new Map(SETTINGS.map((s) => [s.flag, s]));

export const USAGE = `Usage: trellis [options]

Each setting is read from its flag, else its environment variable, else trellis.json
in the project folder (camelCase key), else its default.

  --port <n>             TRELLIS_PORT            HTTP port, 0 picks a free one (6969)
  --host <addr>          TRELLIS_HOST            address to bind (127.0.0.1)
  --data <dir>           TRELLIS_DATA_DIR        database folder (./data)
  --mode <writer|reader|replica>
                         TRELLIS_MODE            serve writes, reads of the writer's folder,
                                                 or reads of a replicated copy (writer)
  --project <dir>        TRELLIS_PROJECT         folder with trellis.json and .hx files
                                                 (the current folder if it has trellis.json)
  --workers <n>          TRELLIS_WORKERS         read worker threads (CPUs - 1, at least 1)
  --long-workers <n>     TRELLIS_LONG_WORKERS    read worker threads for long queries (1)
  --query-slice-ms <n>   TRELLIS_QUERY_SLICE_MS  a read running longer moves to the long
                                                 queries' threads (2; 0: never)
  --worker-heap-mb <n>   TRELLIS_WORKER_HEAP_MB  heap limit of each read worker, MiB
                                                 (0: Node's default)
  --max-body-bytes <n>   TRELLIS_MAX_BODY_BYTES  largest request body (16777216)
  --query-timeout-ms <n> TRELLIS_QUERY_TIMEOUT_MS
                                                 execution budget of one query (30000)
  --metrics <true|false> TRELLIS_METRICS         serve GET /metrics, and count for it (true)
  --cypher <true|false>  TRELLIS_CYPHER          serve POST /v2/cypher and /v2/cypher/explain
                                                 (true)
  --explorer <true|false> TRELLIS_EXPLORER       serve the explorer, a graph workbench, at GET /
                                                 (true)
  --log-level <level>    TRELLIS_LOG_LEVEL       least severe level logged: fatal, error,
                                                 warn, info, debug, trace or silent (info)
  --nats <url>           TRELLIS_NATS            NATS of the replication stream: a writer
                                                 publishes its log, a replica follows it
  --stream <name>        TRELLIS_STREAM          the JetStream stream's name (trellis)
  --writer-url <url>     TRELLIS_WRITER_URL      a replica's writer, for snapshots
  --max-lag-ms <n>       TRELLIS_MAX_LAG_MS      a replica further behind answers /readyz
                                                 503 (5000)
  --min-lsn-wait-ms <n>  TRELLIS_MIN_LSN_WAIT_MS how long a replica waits for
                                                 X-Trellis-Min-Lsn (1000)
  --help                                         print this text

trellis.json may also set "mcp": true to serve the MCP routes, "bm25": false to turn
text search off, "embedding": {"url", "model", "dimensions", "api_key_env", "timeout_ms"}
for Embed(), and "vectorIndex": {"m", "ef_construction"} for the project's vector indexes.
Flags take "--port 7000" or "--port=7000".`;

type Raw = Partial<Record<FlagKey, string>>;

function parseArgv(argv: readonly string[]): { values: Raw; help: boolean } {
  const values: Raw = {};
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument "${arg}" (options start with --; see --help)`);
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const setting = BY_FLAG.get(flag);
    if (setting === undefined) throw new ConfigError(`unknown option ${flag}`);
    let value: string;
    if (eq !== -1) {
      value = arg.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new ConfigError(`${flag} needs a value (${setting.expects})`);
      value = next;
      i++;
    }
    // Repeating a flag is allowed, the last one wins, as in most CLIs.
    values[setting.key] = value;
  }
  return { values, help };
}

function fromString(setting: Setting, text: string, source: string): unknown {
  let value: unknown = text;
  if (setting.parse === 'integer') value = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  else if (setting.parse === 'boolean') value = text === 'true' ? true : text === 'false' ? false : text;
  if (!Value.Check(setting.schema, value)) throw new ConfigError(`${source} must be ${setting.expects}, got "${text}"`);
  return value;
}

/** The JSON object a configuration file holds; anything else is a ConfigError naming the file. */
function readJsonObject(path: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`${path}: cannot read it as JSON: ${messageOf(err)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`${path}: must hold a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

function readConfigFile(path: string): FileConfig {
  const parsed = readJsonObject(path);
  for (const key of Object.keys(parsed)) {
    if (!Object.hasOwn(FileSchema.properties, key)) {
      const hint = key === 'project' ? ' (the project is the folder holding this file; set it with --project or TRELLIS_PROJECT)' : '';
      throw new ConfigError(`${path}: unknown key "${key}"${hint}; known keys: ${Object.keys(FileSchema.properties).join(', ')}`);
    }
  }
  if (!Value.Check(FileSchema, parsed)) {
    for (const error of Value.Errors(FileSchema, parsed)) {
      const key = error.instancePath.split('/')[1] ?? '';
      const setting = SETTINGS.find((s) => s.key === key);
      const expects =
        setting?.expects ??
        (key === 'mcp' || key === 'bm25'
          ? 'true or false'
          : key === 'embedding'
            ? '{"url": "http(s)://...", "model": "...", "dimensions"?: n, "api_key_env"?: "VAR", "timeout_ms"?: n} (' +
              `${error.instancePath} ${error.message})`
            : key === 'vectorIndex'
              ? `{"m"?: ${HNSW_BUILD.m.min} to ${HNSW_BUILD.m.max}, "ef_construction"?: m to ${HNSW_BUILD.efConstruction.max}} (` +
                `${error.instancePath} ${error.message})`
              : error.message);
      const got = JSON.stringify(parsed[key]);
      throw new ConfigError(`${path}: "${key}" must be ${expects}, got ${got}`);
    }
  }
  return parsed as FileConfig;
}

/** HelixDB's project settings (v1 CLI): the keys of config.hx.json that Trellis reads. */
export const HELIX_CONFIG_FILE_NAME = 'config.hx.json';
/** The newer HelixDB CLI's project file. */
export const HELIX_TOML_FILE_NAME = 'helix.toml';

/** What a HelixDB project folder's files say of Trellis's settings. */
interface HelixSettings {
  mcp?: boolean;
  bm25?: boolean;
  embedding?: EmbeddingConfig;
  efSearch?: number;
  /** `vector_config.m` and `ef_construction`: the build parameters of the project's vector indexes. */
  m?: number;
  efConstruction?: number;
  port?: number;
  queries?: string;
  name?: string;
  /** The file exists. */
  found: boolean;
}

/**
 * What a HelixDB project folder's config.hx.json says of the settings Trellis has: `mcp`
 * (HelixDB's default: true), `bm25`, `embedding_model`, an OpenAI model name, as OpenAI's
 * API with the key in OPENAI_API_KEY (as HelixDB called it), and `vector_config.ef_search`,
 * the beam of the project's vector searches, and `vector_config.m` and `ef_construction`,
 * the build parameters of the project's vector indexes (checked as an index spec's). Its
 * other keys (db_max_size_gb, graph_config, graphvis_node_label) are read and not needed
 * (docs/query-language.md, "HelixDB project folders"). No file: nothing.
 */
export function readHelixConfig(project: string): HelixSettings {
  const path = join(project, HELIX_CONFIG_FILE_NAME);
  if (!existsSync(path)) return { found: false };
  const c = readJsonObject(path);
  const bool = (key: string): boolean | undefined => {
    const v = c[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw new ConfigError(`${path}: "${key}" must be true or false, got ${JSON.stringify(v)}`);
    return v;
  };
  const out: HelixSettings = { mcp: bool('mcp') ?? true, found: true };
  const bm25 = bool('bm25');
  if (bm25 !== undefined) out.bm25 = bm25;
  const model = c.embedding_model;
  if (model !== undefined && model !== null) {
    if (typeof model !== 'string' || model === '')
      throw new ConfigError(`${path}: "embedding_model" must be a model name, got ${JSON.stringify(model)}`);
    out.embedding = { url: 'https://api.openai.com/v1', model, api_key_env: 'OPENAI_API_KEY' };
  }
  const vectors = c.vector_config;
  if (vectors !== undefined && vectors !== null) {
    if (typeof vectors !== 'object' || Array.isArray(vectors))
      throw new ConfigError(
        `${path}: "vector_config" must be an object {"m", "ef_construction", "ef_search"}, got ${JSON.stringify(vectors)}`,
      );
    const v = vectors as Record<string, unknown>;
    const count = (key: string, min: number, max: number): number | undefined => {
      const n = v[key];
      if (n === undefined || n === null) return undefined;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max)
        throw new ConfigError(`${path}: "vector_config.${key}" must be an integer from ${min} to ${max}, got ${JSON.stringify(n)}`);
      return n;
    };
    const ef = count('ef_search', 1, LIMITS.maxSearchEf);
    if (ef !== undefined) out.efSearch = ef;
    const m = count('m', HNSW_BUILD.m.min, HNSW_BUILD.m.max);
    if (m !== undefined) out.m = m;
    const efConstruction = count('ef_construction', HNSW_BUILD.m.min, HNSW_BUILD.efConstruction.max);
    if (efConstruction !== undefined) out.efConstruction = efConstruction;
  }
  return out;
}

/**
 * What a HelixDB project folder's helix.toml says (the newer HelixDB CLI): `[project]`
 * `name` and `queries` (the folder of its .hx files, relative to the project), and, of its
 * local instance (`[local.dev]`, else the first `[local.*]`), `port`, `mcp` (HelixDB's
 * default: true) and `bm25`. Its other keys (build_mode, image, storage, cloud and
 * enterprise instances) are read and not needed. No file: nothing.
 */
export function readHelixToml(project: string): HelixSettings {
  const path = join(project, HELIX_TOML_FILE_NAME);
  if (!existsSync(path)) return { found: false };
  let toml: TomlTable;
  try {
    toml = parseToml(readFileSync(path, 'utf8'));
  } catch (err) {
    if (err instanceof TomlError) throw new ConfigError(`${path}: ${err.message}`);
    throw new ConfigError(`${path}: cannot read it: ${messageOf(err)}`);
  }
  const table = (v: TomlValue | undefined, where: string): TomlTable | undefined => {
    if (v === undefined) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) throw new ConfigError(`${path}: ${where} must be a table`);
    return v;
  };
  const typed = <T>(t: TomlTable | undefined, key: string, where: string, check: (v: TomlValue) => v is T & TomlValue, expects: string) => {
    const v = t?.[key];
    if (v === undefined) return undefined;
    if (!check(v)) throw new ConfigError(`${path}: ${where}${key} must be ${expects}, got ${JSON.stringify(v)}`);
    return v as T;
  };
  const isString = (v: TomlValue): v is string => typeof v === 'string' && v !== '';
  const isBool = (v: TomlValue): v is boolean => typeof v === 'boolean';
  const isPort = (v: TomlValue): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 65535;
  const out: HelixSettings = { found: true };
  const projectTable = table(toml.project, '[project]');
  const name = typed<string>(projectTable, 'name', '[project] ', isString, 'a name');
  if (name !== undefined) out.name = name;
  const queries = typed<string>(projectTable, 'queries', '[project] ', isString, 'a folder');
  if (queries !== undefined) {
    const dir = resolve(project, queries);
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new ConfigError(`${path}: [project] queries names ${dir}, which is not a folder`);
    out.queries = dir;
  }
  const local = table(toml.local, '[local]');
  if (local !== undefined) {
    const instance = Object.hasOwn(local, 'dev') ? 'dev' : Object.keys(local)[0];
    if (instance !== undefined) {
      const where = `[local.${instance}] `;
      const t = table(local[instance], `[local.${instance}]`);
      const port = typed<number>(t, 'port', where, isPort, 'a port number from 0 to 65535');
      if (port !== undefined) out.port = port;
      const mcp = typed<boolean>(t, 'mcp', where, isBool, 'true or false');
      if (mcp !== undefined) out.mcp = mcp;
      const bm25 = typed<boolean>(t, 'bm25', where, isBool, 'true or false');
      if (bm25 !== undefined) out.bm25 = bm25;
    }
  }
  return out;
}

/**
 * The build parameters of the project's vector indexes: each of trellis.json's
 * `vectorIndex` keys, else config.hx.json's `vector_config` key, else the default; the pair
 * is checked as an index spec's is (ef_construction at least m), naming where each came from.
 */
function vectorIndexOf(
  file: FileConfig,
  configFile: string | undefined,
  helix: HelixSettings,
  project: string | undefined,
): HnswBuildParameters {
  const own = file.vectorIndex;
  const helixFile = project === undefined ? HELIX_CONFIG_FILE_NAME : join(project, HELIX_CONFIG_FILE_NAME);
  const pick = (mine: number | undefined, theirs: number | undefined, key: 'm' | 'ef_construction') =>
    mine !== undefined
      ? { value: mine, key: `vectorIndex.${key}`, file: `${configFile}: ` }
      : theirs !== undefined
        ? { value: theirs, key: `vector_config.${key}`, file: `${helixFile}: ` }
        : { value: DEFAULT_HNSW_BUILD[key], key: `the default ${key}`, file: '' };
  const m = pick(own?.m, helix.m, 'm');
  const ef = pick(own?.ef_construction, helix.efConstruction, 'ef_construction');
  // m is in range (each file's check): only ef_construction can be wrong here.
  const problem = buildParametersProblem(m.value, ef.value, { m: m.key, efConstruction: `${ef.file}"${ef.key}"` });
  if (problem !== null) throw new ConfigError(problem);
  return { m: m.value, ef_construction: ef.value };
}

function findProject(flags: Raw, env: NodeJS.ProcessEnv, cwd: string): { project: string | undefined; configFile: string | undefined } {
  const setting = BY_FLAG.get('--project')!;
  const given = flags.project !== undefined ? { text: flags.project, source: '--project' } : envValue(env, setting);
  if (given === undefined) {
    const file = join(cwd, CONFIG_FILE_NAME);
    return existsSync(file) ? { project: resolve(cwd), configFile: file } : { project: undefined, configFile: undefined };
  }
  fromString(setting, given.text, given.source);
  const project = resolve(cwd, given.text);
  if (!existsSync(project) || !statSync(project).isDirectory()) {
    throw new ConfigError(`${given.source}: ${project} is not a folder`);
  }
  const file = join(project, CONFIG_FILE_NAME);
  return { project, configFile: existsSync(file) ? file : undefined };
}

/** An empty variable counts as unset, as shells make `VAR= cmd` easy to write by accident. */
function envValue(env: NodeJS.ProcessEnv, setting: Setting): { text: string; source: string } | undefined {
  const text = env[setting.env];
  return text === undefined || text === '' ? undefined : { text, source: setting.env };
}

function defaults(cwd: string): Omit<Config, 'help' | 'project' | 'configFile'> {
  return {
    port: 6969,
    host: '127.0.0.1',
    dataDir: resolve(cwd, 'data'),
    mode: 'writer',
    workers: Math.max(1, availableParallelism() - 1),
    longWorkers: 1,
    querySliceMs: 2,
    workerHeapMb: 0,
    maxBodyBytes: 16 * 1024 * 1024,
    queryTimeoutMs: LIMITS.defaultQueryTimeoutMs,
    mcp: false,
    bm25: true,
    embedding: undefined,
    queriesDir: undefined,
    projectName: undefined,
    efSearch: undefined,
    vectorIndex: DEFAULT_HNSW_BUILD,
    metrics: true,
    cypher: true,
    explorer: true,
    logLevel: 'info',
    nats: undefined,
    stream: 'trellis',
    writerUrl: undefined,
    maxLagMs: 5000,
    minLsnWaitMs: 1000,
  };
}

export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Config {
  const { values: flags, help } = parseArgv(argv);
  if (help) return { ...defaults(cwd), project: undefined, configFile: undefined, help: true };

  const { project, configFile } = findProject(flags, env, cwd);
  const file = configFile !== undefined ? readConfigFile(configFile) : {};
  const config: Config = { ...defaults(cwd), project, configFile, help: false };
  // A HelixDB project folder's helix.toml, then its config.hx.json, say what trellis.json does not.
  const toml: HelixSettings = project === undefined ? { found: false } : readHelixToml(project);
  const helix: HelixSettings = project === undefined ? { found: false } : readHelixConfig(project);
  // HelixDB serves #[mcp] queries unless told not to, in either file.
  const mcp = file.mcp ?? toml.mcp ?? helix.mcp ?? (toml.found ? true : undefined);
  if (mcp !== undefined) config.mcp = mcp;
  const bm25 = file.bm25 ?? toml.bm25 ?? helix.bm25;
  if (bm25 !== undefined) config.bm25 = bm25;
  const embedding = file.embedding ?? helix.embedding;
  if (embedding !== undefined) config.embedding = embedding;
  config.efSearch = helix.efSearch;
  config.vectorIndex = vectorIndexOf(file, configFile, helix, project);
  config.queriesDir = toml.queries;
  config.projectName = toml.name;
  // The instance's port, below trellis.json, the variable and the flag (the loop below).
  if (toml.port !== undefined) config.port = toml.port;

  for (const setting of SETTINGS) {
    if (setting.key === 'project') continue;
    const given = flags[setting.key] !== undefined ? { text: flags[setting.key]!, source: setting.flag } : envValue(env, setting);
    let value: unknown;
    if (given !== undefined) {
      value = fromString(setting, given.text, given.source);
      if (setting.key === 'dataDir') value = resolve(cwd, value as string);
    } else {
      value = file[setting.key];
      if (value === undefined) continue;
      if (setting.key === 'dataDir') value = resolve(project!, value as string);
    }
    (config as unknown as Record<string, unknown>)[setting.key] = value;
  }
  if (config.mode === 'replica' && (config.nats === undefined || config.writerUrl === undefined)) {
    throw new ConfigError('--mode replica needs --nats (the stream to follow) and --writer-url (where to take a snapshot from)');
  }
  if (config.mode === 'reader' && config.nats !== undefined) {
    throw new ConfigError("--nats is for a writer (it publishes) or a replica (it follows); a reader reads the writer's own folder");
  }
  return config;
}
