/**
 * A query-language project: a folder holding `trellis.json` (read by src/config.ts) and
 * `.hx` files (DECISIONS D15, D18; docs/query-language.md "Projects"). Loading reads every
 * `.hx` file under the folder, parses it,
 * builds the schema and compiles every query, and collects every problem of every file as
 * diagnostics; a project with any diagnostic is not served.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { MigrationDef, QueryDef, TypeDef } from './ast.js';
import { compileQuery, type CompiledQuery } from './compile.js';
import { formatDiagnostics, type Diagnostic } from './diagnostics.js';
import { parse } from './parser.js';
import { buildSchema, type Located, type Schema } from './schema.js';
import { checkMigrations, type SchemaVersions } from './migration.js';
import { messageOf } from '../core/errors.js';
import { HELIXDB_DEFAULT_EMBEDDING, type EmbeddingConfig } from '../core/embedding-config.js';
import type { HnswBuildParameters } from '../core/index-spec.js';

export interface ProjectConfig {
  /** Serve `#[mcp]` queries to agents (D18): `"mcp": true` in trellis.json (src/config.ts); off by default. */
  readonly mcp: boolean;
  /** Text search (SearchBM25, SearchHybrid) is on: `"bm25"` in trellis.json, default true. */
  readonly bm25?: boolean;
  /** The embedding provider of Embed() (`"embedding"` in trellis.json); without one, HelixDB's default (HELIXDB_DEFAULT_EMBEDDING). */
  readonly embedding?: EmbeddingConfig | undefined;
  /** The folder of the project's `.hx` files (helix.toml's `queries`); default: the project folder. */
  readonly queries?: string | undefined;
  /** The beam of the project's vector searches (config.hx.json's `vector_config.ef_search`); default: the index's. */
  readonly efSearch?: number | undefined;
  /** The build parameters (`m`, `ef_construction`) of the vector indexes the queries make (src/config.ts); default 16 and 128. */
  readonly vectorIndex?: HnswBuildParameters | undefined;
}

export interface Project {
  readonly dir: string;
  readonly config: ProjectConfig;
  /** The schema of the highest version, which the queries are checked against. */
  readonly schema: Schema;
  /** The versions the schema items declare, and the migrations between them (migration.ts). */
  readonly versions: SchemaVersions;
  readonly queries: ReadonlyMap<string, CompiledQuery>;
  /** What the server and `trellis check` say of the project at start (a default it took), not problems. */
  readonly notices: readonly string[];
}

export type LoadResult =
  { readonly ok: true; readonly project: Project } | { readonly ok: false; readonly report: string; readonly count: number };

/** Paths the server itself serves; a query of that name could never be reached. */
const TAKEN_NAMES = new Set(['healthz', 'readyz', 'metrics', 'mcp', 'v2', 'introspect']);

/**
 * The names of the MCP endpoint's own tools begin with this (src/server/mcp-endpoint.ts);
 * no query may, so a tool name always means one thing, today and when tools are added.
 */
const TOOL_PREFIX = 'trellis_';
/** The endpoint's read-only schema tools. */
export const SCHEMA_TOOLS = { schema: `${TOOL_PREFIX}schema`, indexes: `${TOOL_PREFIX}indexes`, counts: `${TOOL_PREFIX}counts` } as const;

const ZERO = { offset: 0, line: 1, column: 1 };

export function loadProject(dir: string, config: ProjectConfig): LoadResult {
  const diagnostics: Diagnostic[] = [];
  const sources = new Map<string, string>();
  const types: Located<TypeDef>[] = [];
  const migrations: Located<MigrationDef>[] = [];
  const queries: Located<QueryDef>[] = [];
  for (const path of hxFiles(dir, config.queries ?? dir, diagnostics)) {
    const file = relative(dir, path).split(sep).join('/');
    const text = readFileSync(path, 'utf8');
    sources.set(file, text);
    const parsed = parse(text);
    for (const e of parsed.errors) diagnostics.push({ file, pos: e.pos, message: e.message });
    for (const item of parsed.file.types) types.push({ file, item });
    for (const item of parsed.file.migrations) migrations.push({ file, item });
    for (const item of parsed.file.queries) queries.push({ file, item });
  }
  // Each version's items make one schema (reference §2.1): a type may be declared again in another version.
  const schemas = new Map<number, Schema>();
  for (const version of [...new Set(types.map((t) => t.item.version))].sort((a, b) => a - b)) {
    const built = buildSchema(types.filter((t) => t.item.version === version));
    schemas.set(version, built.schema);
    for (const p of built.problems) diagnostics.push({ file: p.file, pos: p.pos, message: p.message });
  }
  const { steps, problems } = checkMigrations(migrations, schemas);
  for (const p of problems) diagnostics.push({ file: p.file, pos: p.pos, message: p.message });
  const versions: SchemaVersions = { versions: schemas.size === 0 ? [1] : [...schemas.keys()], steps };
  const schema = schemas.get(versions.versions[versions.versions.length - 1]!) ?? buildSchema([]).schema;
  const compiled = new Map<string, CompiledQuery>();
  const firstAt = new Map<string, string>();
  /** The queries that call Embed(). */
  const embedding: string[] = [];
  for (const { file, item } of queries) {
    const name = item.name.text;
    const earlier = firstAt.get(name);
    if (earlier !== undefined) {
      diagnostics.push({ file, pos: item.name.pos, message: `query "${name}" is defined twice (first in ${earlier})` });
      continue;
    }
    firstAt.set(name, `${file}:${item.name.pos.line}`);
    if (TAKEN_NAMES.has(name))
      diagnostics.push({
        file,
        pos: item.name.pos,
        message: `"${name}" names a route of the server (POST /${name}); choose another query name`,
      });
    if (name.startsWith(TOOL_PREFIX))
      diagnostics.push({
        file,
        pos: item.name.pos,
        message: `query names starting with "${TOOL_PREFIX}" are kept for the MCP endpoint's own tools; choose another query name`,
      });
    const result = compileQuery(item, schema, {
      bm25: config.bm25 ?? true,
      efSearch: config.efSearch ?? null,
      ...(config.vectorIndex === undefined ? {} : { vectorIndex: config.vectorIndex }),
    });
    if (result.compiled !== null && result.compiled.needs.embeds.length > 0) embedding.push(name);
    for (const p of result.problems) diagnostics.push({ file, pos: p.pos, message: `${p.message} (in query ${name})` });
    if (result.compiled !== null) compiled.set(name, { ...result.compiled, file });
  }
  if (diagnostics.length > 0) {
    return { ok: false, report: formatDiagnostics(diagnostics, sources), count: diagnostics.length };
  }
  if (embedding.length === 0 || config.embedding !== undefined)
    return { ok: true, project: { dir, config, schema, versions, queries: compiled, notices: [] } };
  const { url, model, api_key_env } = HELIXDB_DEFAULT_EMBEDDING;
  const notice =
    `${embedding.join(', ')} ${embedding.length === 1 ? 'calls' : 'call'} Embed() and the project names no embedding provider: ` +
    `HelixDB's default is used, ${model} at ${url} with the key in ${api_key_env} ` +
    `(set "embedding": {"url", "model", ...} in trellis.json for another)`;
  return {
    ok: true,
    project: { dir, config: { ...config, embedding: HELIXDB_DEFAULT_EMBEDDING }, schema, versions, queries: compiled, notices: [notice] },
  };
}

/**
 * Every `.hx` file under `from` (the project folder `dir` or its queries folder), sorted by
 * path; folders starting with "." and node_modules are skipped.
 */
function hxFiles(dir: string, from: string, diagnostics: Diagnostic[]): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch (err) {
      diagnostics.push({ file: relative(dir, d) || '.', pos: ZERO, message: `cannot read the folder: ${messageOf(err)}` });
      return;
    }
    for (const name of names) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.hx')) out.push(path);
    }
  };
  walk(from);
  return out;
}
