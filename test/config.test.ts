import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, USAGE } from '../src/config.js';

let root: string;
let empty: string;
let project: string;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'trellis-config-'));
  empty = join(root, 'empty');
  project = join(root, 'proj');
  mkdirSync(empty);
  mkdirSync(project);
});
after(() => rmSync(root, { recursive: true, force: true }));

function writeConfig(dir: string, content: unknown): void {
  writeFileSync(join(dir, 'trellis.json'), typeof content === 'string' ? content : JSON.stringify(content));
}

function configError(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ConfigError, String(err));
    assert.match(err.message, pattern);
    return true;
  });
}

test('defaults with no flags, no variables, no file', () => {
  const c = loadConfig([], {}, empty);
  assert.deepEqual(c, {
    port: 6969,
    host: '127.0.0.1',
    dataDir: join(empty, 'data'),
    mode: 'writer',
    project: undefined,
    configFile: undefined,
    workers: Math.max(1, availableParallelism() - 1),
    longWorkers: 1,
    querySliceMs: 2,
    workerHeapMb: 0,
    maxBodyBytes: 16777216,
    queryTimeoutMs: 30000,
    mcp: false,
    bm25: true,
    embedding: undefined,
    queriesDir: undefined,
    projectName: undefined,
    efSearch: undefined,
    vectorIndex: { m: 16, ef_construction: 128 },
    metrics: true,
    cypher: true,
    explorer: true,
    logLevel: 'info',
    nats: undefined,
    stream: 'trellis',
    writerUrl: undefined,
    maxLagMs: 5000,
    minLsnWaitMs: 1000,
    help: false,
  });
});

test('precedence: flag > environment > file > default, for every setting', () => {
  const dir = join(root, 'prec');
  mkdirSync(dir);
  writeConfig(dir, {
    port: 1111,
    host: '0.0.0.0',
    dataDir: 'filedata',
    mode: 'reader',
    workers: 3,
    maxBodyBytes: 3000,
    queryTimeoutMs: 1000,
    mcp: true,
  });
  const fromFile = loadConfig([], {}, dir);
  assert.equal(fromFile.project, dir);
  assert.equal(fromFile.configFile, join(dir, 'trellis.json'));
  assert.deepEqual(
    [
      fromFile.port,
      fromFile.host,
      fromFile.dataDir,
      fromFile.mode,
      fromFile.workers,
      fromFile.maxBodyBytes,
      fromFile.queryTimeoutMs,
      fromFile.mcp,
    ],
    [1111, '0.0.0.0', join(dir, 'filedata'), 'reader', 3, 3000, 1000, true],
  );

  const env = {
    TRELLIS_PORT: '2222',
    TRELLIS_HOST: '::1',
    TRELLIS_DATA_DIR: 'envdata',
    TRELLIS_MODE: 'writer',
    TRELLIS_WORKERS: '4',
    TRELLIS_MAX_BODY_BYTES: '4000',
    TRELLIS_QUERY_TIMEOUT_MS: '2000',
  };
  const fromEnv = loadConfig([], env, dir);
  assert.deepEqual(
    [fromEnv.port, fromEnv.host, fromEnv.dataDir, fromEnv.mode, fromEnv.workers, fromEnv.maxBodyBytes, fromEnv.queryTimeoutMs, fromEnv.mcp],
    [2222, '::1', join(dir, 'envdata'), 'writer', 4, 4000, 2000, true],
  );

  const argv = [
    '--port',
    '3333',
    '--host=localhost',
    '--data',
    '/abs/flagdata',
    '--mode=reader',
    '--workers',
    '5',
    '--max-body-bytes=5000',
    '--query-timeout-ms',
    '3000',
  ];
  const fromFlags = loadConfig(argv, env, dir);
  assert.deepEqual(
    [
      fromFlags.port,
      fromFlags.host,
      fromFlags.dataDir,
      fromFlags.mode,
      fromFlags.workers,
      fromFlags.maxBodyBytes,
      fromFlags.queryTimeoutMs,
    ],
    [3333, 'localhost', '/abs/flagdata', 'reader', 5, 5000, 3000],
  );

  // The read pool's settings, through each source.
  const pool = (c: ReturnType<typeof loadConfig>) => [c.longWorkers, c.querySliceMs, c.workerHeapMb];
  writeConfig(dir, { longWorkers: 2, querySliceMs: 7, workerHeapMb: 256 });
  assert.deepEqual(pool(loadConfig([], {}, dir)), [2, 7, 256]);
  const poolEnv = { TRELLIS_LONG_WORKERS: '3', TRELLIS_QUERY_SLICE_MS: '0', TRELLIS_WORKER_HEAP_MB: '512' };
  assert.deepEqual(pool(loadConfig([], poolEnv, dir)), [3, 0, 512]);
  assert.deepEqual(pool(loadConfig(['--long-workers', '4', '--query-slice-ms=9', '--worker-heap-mb', '64'], poolEnv, dir)), [4, 9, 64]);
  assert.throws(() => loadConfig(['--long-workers', '0'], {}, dir), /--long-workers must be an integer from 1/);
  assert.throws(() => loadConfig(['--query-slice-ms', '-1'], {}, dir), /--query-slice-ms must be an integer from 0 to 60000/);

  // The observability settings, through each source.
  const observe = (c: ReturnType<typeof loadConfig>) => [c.metrics, c.logLevel];
  writeConfig(dir, { metrics: false, logLevel: 'warn' });
  assert.deepEqual(observe(loadConfig([], {}, dir)), [false, 'warn']);
  const observeEnv = { TRELLIS_METRICS: 'true', TRELLIS_LOG_LEVEL: 'debug' };
  assert.deepEqual(observe(loadConfig([], observeEnv, dir)), [true, 'debug']);
  assert.deepEqual(observe(loadConfig(['--metrics', 'false', '--log-level=silent'], observeEnv, dir)), [false, 'silent']);
  assert.deepEqual(observe(loadConfig(['--metrics=true'], { TRELLIS_METRICS: 'false' }, dir)), [true, 'warn']);
  // The explorer, through each source.
  writeConfig(dir, { explorer: false });
  assert.equal(loadConfig([], {}, dir).explorer, false);
  assert.equal(loadConfig([], { TRELLIS_EXPLORER: 'true' }, dir).explorer, true);
  assert.equal(loadConfig(['--explorer', 'false'], { TRELLIS_EXPLORER: 'true' }, dir).explorer, false);
  assert.throws(() => loadConfig(['--explorer', 'no'], {}, dir), /--explorer must be true or false, got "no"/);
  writeConfig(dir, { metrics: false, logLevel: 'warn' });
  for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) {
    assert.equal(loadConfig(['--log-level', level], {}, empty).logLevel, level);
  }
  writeConfig(dir, {
    port: 1111,
    host: '0.0.0.0',
    dataDir: 'filedata',
    mode: 'reader',
    workers: 3,
    maxBodyBytes: 3000,
    queryTimeoutMs: 1000,
    mcp: true,
  });

  // Mixed: each setting independently takes its highest-precedence source.
  const mixed = loadConfig(['--port', '7000'], { TRELLIS_WORKERS: '9' }, dir);
  assert.deepEqual([mixed.port, mixed.workers, mixed.maxBodyBytes, mixed.host], [7000, 9, 3000, '0.0.0.0']);
});

test('--port 7000 and --port=7000 are the same; the last repeated flag wins', () => {
  assert.equal(loadConfig(['--port', '7000'], {}, empty).port, 7000);
  assert.equal(loadConfig(['--port=7000'], {}, empty).port, 7000);
  assert.equal(loadConfig(['--port', '0', '--port', '7001'], {}, empty).port, 7001);
  assert.equal(loadConfig(['--port=0'], {}, empty).port, 0);
});

test('the project folder comes from --project or TRELLIS_PROJECT, relative to cwd', () => {
  writeConfig(project, { port: 4444 });
  const viaFlag = loadConfig(['--project', 'proj'], {}, root);
  assert.equal(viaFlag.project, project);
  assert.equal(viaFlag.port, 4444);
  assert.equal(viaFlag.dataDir, join(root, 'data'), 'the default data dir is relative to cwd');
  assert.equal(loadConfig([], { TRELLIS_PROJECT: project }, empty).port, 4444);
  assert.equal(loadConfig(['--project', project], { TRELLIS_PROJECT: empty }, root).port, 4444, 'flag beats variable');
  const noFile = loadConfig(['--project', empty], {}, root);
  assert.equal(noFile.project, empty);
  assert.equal(noFile.configFile, undefined);
  assert.equal(noFile.port, 6969);
  configError(() => loadConfig(['--project', 'missing'], {}, root), /^--project: .*missing is not a folder$/);
  configError(() => loadConfig([], { TRELLIS_PROJECT: join(project, 'trellis.json') }, root), /^TRELLIS_PROJECT: .* is not a folder$/);
});

test('an empty environment variable counts as unset', () => {
  assert.equal(loadConfig([], { TRELLIS_PORT: '' }, empty).port, 6969);
});

test('bad values name their flag, variable or file key', () => {
  configError(() => loadConfig(['--port', '65536'], {}, empty), /^--port must be an integer from 0 to 65535, got "65536"$/);
  configError(() => loadConfig(['--port=-1'], {}, empty), /^--port must be an integer from 0 to 65535, got "-1"$/);
  configError(() => loadConfig(['--port', '70a'], {}, empty), /^--port must be/);
  configError(() => loadConfig(['--port', '1e3'], {}, empty), /^--port must be/);
  configError(() => loadConfig(['--port', '80.5'], {}, empty), /^--port must be/);
  configError(() => loadConfig(['--port='], {}, empty), /^--port must be an integer from 0 to 65535, got ""$/);
  configError(() => loadConfig([], { TRELLIS_PORT: 'abc' }, empty), /^TRELLIS_PORT must be an integer from 0 to 65535, got "abc"$/);
  configError(() => loadConfig(['--mode', 'primary'], {}, empty), /^--mode must be "writer", "reader" or "replica", got "primary"$/);
  configError(() => loadConfig([], { TRELLIS_MODE: 'Writer' }, empty), /^TRELLIS_MODE must be "writer", "reader" or "replica"/);
  configError(() => loadConfig(['--workers', '0'], {}, empty), /^--workers must be an integer from 1 to 1024, got "0"$/);
  configError(() => loadConfig([], { TRELLIS_MAX_BODY_BYTES: '0' }, empty), /^TRELLIS_MAX_BODY_BYTES must be an integer from 1 to/);
  configError(() => loadConfig(['--host='], {}, empty), /^--host must be a non-empty host name or address/);
  configError(() => loadConfig(['--metrics', 'yes'], {}, empty), /^--metrics must be true or false, got "yes"$/);
  configError(() => loadConfig(['--metrics=1'], {}, empty), /^--metrics must be true or false, got "1"$/);
  configError(() => loadConfig([], { TRELLIS_METRICS: 'TRUE' }, empty), /^TRELLIS_METRICS must be true or false, got "TRUE"$/);
  configError(
    () => loadConfig(['--log-level', 'verbose'], {}, empty),
    /^--log-level must be "fatal", "error", "warn", "info", "debug", "trace" or "silent", got "verbose"$/,
  );
  configError(() => loadConfig([], { TRELLIS_LOG_LEVEL: 'INFO' }, empty), /^TRELLIS_LOG_LEVEL must be "fatal", .* got "INFO"$/);
});

test('unknown flags, stray arguments and missing values are errors', () => {
  configError(() => loadConfig(['--prot', '7000'], {}, empty), /^unknown option --prot$/);
  configError(() => loadConfig(['--verbose'], {}, empty), /^unknown option --verbose$/);
  configError(() => loadConfig(['7000'], {}, empty), /^unexpected argument "7000"/);
  configError(() => loadConfig(['--port'], {}, empty), /^--port needs a value/);
  configError(() => loadConfig(['--port', '--host', 'x'], {}, empty), /^--port needs a value/);
});

test('--help returns a flag and skips validation of other sources', () => {
  const c = loadConfig(['--help'], { TRELLIS_PORT: 'bad' }, empty);
  assert.equal(c.help, true);
  assert.equal(loadConfig(['-h'], {}, empty).help, true);
  configError(() => loadConfig(['--help', '--bogus'], {}, empty), /unknown option --bogus/);
  for (const word of [
    '--port',
    '--host',
    '--data',
    '--mode',
    '--project',
    '--workers',
    '--max-body-bytes',
    'TRELLIS_PORT',
    'TRELLIS_DATA_DIR',
    'mcp',
    '--metrics',
    'TRELLIS_METRICS',
    '--cypher',
    'TRELLIS_CYPHER',
    '--explorer',
    'TRELLIS_EXPLORER',
    '--log-level',
    'TRELLIS_LOG_LEVEL',
  ]) {
    assert.ok(USAGE.includes(word), word);
  }
});

test('config file errors: bad JSON, not an object, unknown key, bad value', () => {
  const dir = join(root, 'bad');
  mkdirSync(dir);
  const file = join(dir, 'trellis.json');
  writeConfig(dir, '{"port": 1,');
  configError(() => loadConfig([], {}, dir), new RegExp(`^${file}: cannot read it as JSON: `));
  writeConfig(dir, '[1]');
  configError(() => loadConfig([], {}, dir), /must hold a JSON object$/);
  writeConfig(dir, { port: 1, prot: 2 });
  configError(
    () => loadConfig([], {}, dir),
    /trellis\.json: unknown key "prot"; known keys: port, host, dataDir, mode, workers, longWorkers, querySliceMs, workerHeapMb, maxBodyBytes, queryTimeoutMs, mcp, bm25, embedding, vectorIndex, metrics, cypher, explorer, logLevel, nats, stream, writerUrl, maxLagMs, minLsnWaitMs$/,
  );
  writeConfig(dir, { project: '.' });
  configError(() => loadConfig([], {}, dir), /unknown key "project" \(the project is the folder holding this file/);
  writeConfig(dir, { port: 70000 });
  configError(() => loadConfig([], {}, dir), /trellis\.json: "port" must be an integer from 0 to 65535, got 70000$/);
  writeConfig(dir, { port: '7000' });
  configError(() => loadConfig([], {}, dir), /"port" must be an integer from 0 to 65535, got "7000"$/);
  writeConfig(dir, { mode: 'both' });
  configError(() => loadConfig([], {}, dir), /"mode" must be "writer", "reader" or "replica", got "both"$/);
  writeConfig(dir, { mcp: 'yes' });
  configError(() => loadConfig([], {}, dir), /"mcp" must be true or false, got "yes"$/);
  writeConfig(dir, { metrics: 'false' });
  configError(() => loadConfig([], {}, dir), /"metrics" must be true or false, got "false"$/);
  writeConfig(dir, { logLevel: 'loud' });
  configError(
    () => loadConfig([], {}, dir),
    /"logLevel" must be "fatal", "error", "warn", "info", "debug", "trace" or "silent", got "loud"$/,
  );
  writeConfig(dir, { workers: 1.5 });
  configError(() => loadConfig([], {}, dir), /"workers" must be an integer from 1 to 1024, got 1.5$/);
  // A flag does not excuse a broken file: the file is still read.
  writeConfig(dir, { port: -5 });
  configError(() => loadConfig(['--port', '1'], {}, dir), /"port" must be/);
});

test('bm25 and embedding from trellis.json; a bad embedding names its shape', () => {
  const dir = join(root, 'embedding');
  mkdirSync(dir);
  const embedding = { url: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', dimensions: 768, api_key_env: 'KEY' };
  writeConfig(dir, { bm25: false, embedding });
  const c = loadConfig([], {}, dir);
  assert.equal(c.bm25, false);
  assert.deepEqual(c.embedding, embedding);
  writeConfig(dir, { embedding: { url: 'ftp://x', model: 'm' } });
  configError(() => loadConfig([], {}, dir), /"embedding" must be \{"url": "http\(s\):\/\/\.\.\."/);
  writeConfig(dir, { embedding: { url: 'http://x/v1', model: 'm', extra: 1 } });
  configError(() => loadConfig([], {}, dir), /"embedding" must be/);
});

test("a HelixDB project folder: config.hx.json's mcp, bm25 and embedding_model, trellis.json winning", () => {
  const dir = join(root, 'helix');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'config.hx.json'),
    JSON.stringify({
      vector_config: { m: 16, ef_construction: 128, ef_search: 768 },
      graph_config: { secondary_indices: [] },
      db_max_size_gb: 10,
      mcp: true,
      bm25: false,
      embedding_model: 'text-embedding-3-small',
      graphvis_node_label: '',
    }),
  );
  const c = loadConfig(['--project', dir], {}, root);
  assert.equal(c.configFile, undefined, 'no trellis.json');
  assert.equal(c.mcp, true);
  assert.equal(c.bm25, false);
  assert.deepEqual(c.embedding, { url: 'https://api.openai.com/v1', model: 'text-embedding-3-small', api_key_env: 'OPENAI_API_KEY' });
  writeConfig(dir, { mcp: false, bm25: true });
  const both = loadConfig(['--project', dir], {}, root);
  assert.equal(both.mcp, false, 'trellis.json wins');
  assert.equal(both.bm25, true);
  assert.equal(both.embedding?.model, 'text-embedding-3-small', 'what trellis.json does not say comes from config.hx.json');
  writeFileSync(join(dir, 'config.hx.json'), '{}');
  rmSync(join(dir, 'trellis.json'));
  assert.equal(loadConfig(['--project', dir], {}, root).mcp, true, "HelixDB's default for mcp is true");
  writeFileSync(join(dir, 'config.hx.json'), '{"bm25": "yes"}');
  configError(() => loadConfig(['--project', dir], {}, root), /config\.hx\.json: "bm25" must be true or false, got "yes"$/);
  writeFileSync(join(dir, 'config.hx.json'), '{"mcp": tru');
  configError(() => loadConfig(['--project', dir], {}, root), /config\.hx\.json: cannot read it as JSON: /);
  writeFileSync(join(dir, 'config.hx.json'), '[1]');
  configError(() => loadConfig(['--project', dir], {}, root), /config\.hx\.json: must hold a JSON object$/);
  writeFileSync(join(dir, 'config.hx.json'), '{"embedding_model": 3}');
  configError(() => loadConfig(['--project', dir], {}, root), /config\.hx\.json: "embedding_model" must be a model name, got 3$/);
  writeFileSync(join(dir, 'config.hx.json'), '{"embedding_model": ""}');
  configError(() => loadConfig(['--project', dir], {}, root), /"embedding_model" must be a model name, got ""$/);
});

test("config.hx.json's vector_config: ef_search is the beam of the project's searches; m and ef_construction build its vector indexes", () => {
  const dir = join(root, 'helix-vectors');
  mkdirSync(dir);
  writeFileSync(join(dir, 'config.hx.json'), JSON.stringify({ vector_config: { m: 16, ef_construction: 128, ef_search: 768 } }));
  const c = loadConfig(['--project', dir], {}, root);
  assert.equal(c.efSearch, 768);
  assert.deepEqual(c.vectorIndex, { m: 16, ef_construction: 128 });
  writeFileSync(join(dir, 'config.hx.json'), JSON.stringify({ vector_config: { m: 32, ef_construction: 400, ef_search: 64 } }));
  const tuned = loadConfig(['--project', dir], {}, root);
  assert.equal(tuned.efSearch, 64);
  assert.deepEqual(tuned.vectorIndex, { m: 32, ef_construction: 400 });
  writeFileSync(join(dir, 'config.hx.json'), JSON.stringify({ vector_config: { m: 48 } }));
  assert.deepEqual(loadConfig(['--project', dir], {}, root).vectorIndex, { m: 48, ef_construction: 128 }, 'the other one is the default');
  assert.equal(loadConfig(['--project', empty], {}, root).efSearch, undefined, 'no HelixDB file: the index default');
  assert.deepEqual(loadConfig(['--project', empty], {}, root).vectorIndex, { m: 16, ef_construction: 128 });
  writeFileSync(join(dir, 'config.hx.json'), JSON.stringify({ vector_config: { m: 1 } }));
  configError(
    () => loadConfig(['--project', dir], {}, root),
    /config\.hx\.json: "vector_config\.m" must be an integer from 2 to 128, got 1$/,
  );
  writeFileSync(join(dir, 'config.hx.json'), JSON.stringify({ vector_config: { m: 16.5 } }));
  configError(() => loadConfig(['--project', dir], {}, root), /"vector_config\.m" must be an integer from 2 to 128, got 16\.5$/);
  writeFileSync(join(dir, 'config.hx.json'), JSON.stringify({ vector_config: { ef_construction: 5000 } }));
  configError(
    () => loadConfig(['--project', dir], {}, root),
    /"vector_config\.ef_construction" must be an integer from 2 to 4096, got 5000$/,
  );
  writeFileSync(join(dir, 'config.hx.json'), JSON.stringify({ vector_config: { m: 64, ef_construction: 32 } }));
  configError(
    () => loadConfig(['--project', dir], {}, root),
    /config\.hx\.json: "vector_config\.ef_construction" must be an integer from vector_config\.m \(64\) to 4096, got 32$/,
  );
  // trellis.json's vectorIndex wins, key by key; the pair is checked wherever each came from.
  writeFileSync(join(dir, 'config.hx.json'), JSON.stringify({ vector_config: { m: 32, ef_construction: 256 } }));
  writeConfig(dir, { vectorIndex: { ef_construction: 512 } });
  assert.deepEqual(loadConfig(['--project', dir], {}, root).vectorIndex, { m: 32, ef_construction: 512 });
  writeConfig(dir, { vectorIndex: { m: 64, ef_construction: 200 } });
  assert.deepEqual(loadConfig(['--project', dir], {}, root).vectorIndex, { m: 64, ef_construction: 200 });
  writeConfig(dir, { vectorIndex: { ef_construction: 20 } });
  configError(
    () => loadConfig(['--project', dir], {}, root),
    /trellis\.json: "vectorIndex\.ef_construction" must be an integer from vector_config\.m \(32\) to 4096, got 20$/,
  );
  writeConfig(dir, { vectorIndex: { m: 200 } });
  configError(
    () => loadConfig(['--project', dir], {}, root),
    /trellis\.json: "vectorIndex" must be \{"m"\?: 2 to 128, "ef_construction"\?: m to 4096\} \(\/vectorIndex\/m must be <= 128\), got \{"m":200\}$/,
  );
  writeConfig(dir, { vectorIndex: { M: 16 } });
  configError(() => loadConfig(['--project', dir], {}, root), /"vectorIndex" must be/);
  rmSync(join(dir, 'trellis.json'));
  writeFileSync(join(dir, 'config.hx.json'), JSON.stringify({ vector_config: { ef_search: 0 } }));
  configError(() => loadConfig(['--project', dir], {}, root), /"vector_config\.ef_search" must be an integer from 1 to 10000, got 0$/);
  writeFileSync(join(dir, 'config.hx.json'), JSON.stringify({ vector_config: { ef_search: 20000 } }));
  configError(() => loadConfig(['--project', dir], {}, root), /"vector_config\.ef_search" must be an integer from 1 to 10000, got 20000$/);
  writeFileSync(join(dir, 'config.hx.json'), JSON.stringify({ vector_config: [16] }));
  configError(() => loadConfig(['--project', dir], {}, root), /"vector_config" must be an object/);
});

test("helix.toml: the project's name, its queries folder, its local instance's port, mcp and bm25; trellis.json and flags win", () => {
  const dir = join(root, 'helix-toml');
  mkdirSync(join(dir, 'db'), { recursive: true });
  const toml = (text: string) => writeFileSync(join(dir, 'helix.toml'), text);
  toml(
    [
      '# made by helix init',
      '[project]',
      'name = "social-app"',
      'queries = "./db/"',
      '',
      '[local.dev]',
      'port = 7070',
      'build_mode = "debug"',
      'bm25 = false',
      '',
      '[cloud.production.fly]',
      'vm_size = "shared-cpu-4x"   # read and not needed',
    ].join('\n'),
  );
  const c = loadConfig(['--project', dir], {}, root);
  assert.equal(c.projectName, 'social-app');
  assert.equal(c.queriesDir, join(dir, 'db'));
  assert.equal(c.port, 7070);
  assert.equal(c.bm25, false);
  assert.equal(c.mcp, true, "helix.toml's mcp is on unless it says otherwise (HelixDB's default)");
  assert.equal(loadConfig(['--project', dir, '--port', '0'], {}, root).port, 0, 'the flag wins');
  assert.equal(loadConfig(['--project', dir], { TRELLIS_PORT: '7171' }, root).port, 7171, 'the variable wins');
  writeConfig(dir, { port: 7272, bm25: true, mcp: false });
  const both = loadConfig(['--project', dir], {}, root);
  assert.deepEqual([both.port, both.bm25, both.mcp], [7272, true, false], 'trellis.json wins');
  rmSync(join(dir, 'trellis.json'));
  writeFileSync(join(dir, 'config.hx.json'), JSON.stringify({ mcp: false, bm25: true }));
  const withJson = loadConfig(['--project', dir], {}, root);
  assert.equal(withJson.bm25, false, 'helix.toml before config.hx.json');
  assert.equal(withJson.mcp, false, "config.hx.json's mcp where helix.toml says nothing of it");
  rmSync(join(dir, 'config.hx.json'));
  toml('[project]\nname = "x"\n\n[local.staging]\nport = 7373\nmcp = false\n\n[local.other]\nport = 7474\n');
  const staging = loadConfig(['--project', dir], {}, root);
  assert.deepEqual(
    [staging.port, staging.mcp, staging.queriesDir],
    [7373, false, undefined],
    'no [local.dev]: the first instance; no queries: the whole folder',
  );

  toml('[project]\nname = "x"\nqueries = "missing"\n');
  configError(() => loadConfig(['--project', dir], {}, root), /helix\.toml: \[project\] queries names .*missing, which is not a folder$/);
  toml('[project]\nname = 3\n');
  configError(() => loadConfig(['--project', dir], {}, root), /helix\.toml: \[project\] name must be a name, got 3$/);
  toml('[local.dev]\nport = "6969"\n');
  configError(
    () => loadConfig(['--project', dir], {}, root),
    /helix\.toml: \[local\.dev\] port must be a port number from 0 to 65535, got "6969"$/,
  );
  toml('[project]\nname = "x\n');
  configError(() => loadConfig(['--project', dir], {}, root), /helix\.toml: line 2: a string is not closed on its line$/);
  toml('[project]\nname = "x"\nname = "y"\n');
  configError(() => loadConfig(['--project', dir], {}, root), /helix\.toml: line 3: "name" is set twice$/);
});
