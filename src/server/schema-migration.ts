/**
 * A writer's start-up migration of the data to the project's schema version
 * (docs/query-language.md "Schema versions and migrations"; the steps are checked and
 * lowered when the project loads, src/hql/migration.ts).
 *
 * The version the data is at is recorded in the database as one node labelled
 * `$trellis_schema` holding `{version}`: written by an ordinary write batch, so it is logged
 * and replicated like any write. Before the first request:
 *  - no record: a project of one version needs none, and records nothing; one of several
 *    versions records its highest on an empty database, and takes the data of a non-empty
 *    one to be at its lowest version;
 *  - a record below the highest version: the migrations from it to the highest run, in
 *    order, in ONE write batch that ends by recording the highest version, so the data is
 *    migrated whole or not at all; a version with no migration from it stops start-up;
 *  - a record above the highest version stops start-up: the project is older than the data.
 */
import { parseJson } from '../core/json.js';
import { stringifyJson } from '../core/json-stringify.js';
import type { PipelineOptions } from '../core/request-options.js';
import type { Logger } from '../observe/log.js';
import type { HnswBuildParameters } from '../core/index-spec.js';
import { SCHEMA_LABEL, type MigrationStep, type SchemaVersions } from '../hql/migration.js';
import { failedEntry } from '../hql/statement-source.js';
import { compare, constant, labelIs, op, property } from '../hql/wire-build.js';
import { utf8Text, type QueryReply } from './service.js';
import { isTypeVectorIndex, listIndexes } from './list-indexes.js';

/** What the migration needs of the service: running a /v2/query request. */
export interface QueryRunner {
  query(body: Uint8Array, options: PipelineOptions): Promise<QueryReply>;
}

/** Start-up cannot go on: the data is at a version the project cannot serve or migrate. */
export class SchemaMigrationError extends Error {}

const OPTIONS: PipelineOptions = { warm: false, requireWriter: false, awaitDurable: true };

/**
 * Migrates the data in `dataDir` to the highest of `versions` (see above); throws
 * SchemaMigrationError when it cannot. `vectorIndex`: the build parameters of the vector
 * indexes the project makes, for the index of a renamed vector type.
 */
export async function migrateSchema(
  service: QueryRunner,
  versions: SchemaVersions,
  vectorIndex: HnswBuildParameters,
  dataDir: string,
  logger: Logger,
): Promise<void> {
  const lowest = versions.versions[0]!;
  const highest = versions.versions[versions.versions.length - 1]!;
  const held = await recordedVersion(service);
  if (held.version === null && lowest === highest) return;
  if (held.version === null && held.empty) {
    await write(service, markerEntries(highest), []);
    logger.info({ schema_version: highest }, `the empty database records schema::${highest}`);
    return;
  }
  const at = held.version ?? lowest;
  if (at === highest) return;
  if (at > highest) throw dataNewerThanProject(dataDir, at, highest);
  const chain: MigrationStep[] = [];
  for (let v = at; v < highest;) {
    const step = versions.steps.get(v);
    if (step === undefined) {
      const next = versions.versions.find((x) => x > v)!;
      throw new SchemaMigrationError(
        `the data in ${dataDir} is at schema::${at}${held.version === null ? ' (no version recorded: the lowest declared)' : ''} ` +
          `and this project's queries are of schema::${highest}, but no MIGRATION starts at schema::${v}: ` +
          `add MIGRATION schema::${v} => schema::${next} { ... }`,
      );
    }
    chain.push(step);
    v = step.to;
  }
  const indexes = await renamedVectorIndexes(service, chain, vectorIndex);
  const marker = markerEntries(highest);
  const entries = [...indexes, ...chain.flatMap((s) => s.entries), ...marker];
  const what = [
    ...indexes.map(() => 'the vector index of a renamed vector type'),
    ...chain.flatMap((s) => s.what),
    ...marker.map(() => `recording schema::${highest}`),
  ];
  const path = `schema::${at} to schema::${highest}`;
  try {
    await write(service, entries, what);
  } catch (err) {
    if (!(err instanceof SchemaMigrationError)) throw err;
    throw new SchemaMigrationError(`the data in ${dataDir} could not be migrated from ${path}, and is unchanged: ${err.message}`);
  }
  logger.info(
    { from: at, to: highest, migrations: chain.map((s) => s.at) },
    `the data is migrated from ${path} (${chain.map((s) => `MIGRATION at ${s.at}`).join(', ')})`,
  );
}

/**
 * A reader's or a replica's start: it never migrates, so it serves the project only once
 * the data is at the project's highest version, as the writer leaves it. Data at a later
 * version stops start-up (the project is older than the data, as for a writer); data at
 * an earlier one is waited for, polling every `pollMs` while the routes answer not_ready,
 * until the writer (or, for a replica, the change log) brings the migrated data. No record
 * counts as the writer reads it: the lowest version, or any on an empty database.
 */
export async function awaitSchemaVersion(
  service: QueryRunner,
  versions: SchemaVersions,
  dataDir: string,
  logger: Logger,
  pollMs = 500,
): Promise<void> {
  const lowest = versions.versions[0]!;
  const highest = versions.versions[versions.versions.length - 1]!;
  let waiting = false;
  for (;;) {
    const held = await recordedVersion(service);
    const at = held.version ?? (held.empty ? highest : lowest);
    if (at === highest) {
      if (waiting) logger.info({ schema_version: at }, `the data is at schema::${at}: serving`);
      return;
    }
    if (at > highest) throw dataNewerThanProject(dataDir, at, highest);
    if (!waiting)
      logger.info(
        { schema_version: at, project_version: highest },
        `the data is at schema::${at} and this project's queries are of schema::${highest}: not ready until the writer migrates it`,
      );
    waiting = true;
    await new Promise((resolve) => setTimeout(resolve, pollMs).unref());
  }
}

/** Start-up stops, a writer's or not: the project is older than the data. */
function dataNewerThanProject(dataDir: string, at: number, highest: number): SchemaMigrationError {
  return new SchemaMigrationError(
    `the data in ${dataDir} is at schema::${at}, and this project's highest version is schema::${highest}: ` +
      `serve it with a project that declares schema::${at}`,
  );
}

/** The version the database records (null: none), and whether it holds no element but the record. */
async function recordedVersion(service: QueryRunner): Promise<{ version: number | null; empty: boolean }> {
  const record = op('values', { input: op('nodes_where', { predicate: labelIs(SCHEMA_LABEL) }), properties: ['version'] });
  const others = op('where', {
    input: op('nodes', { reference: 'all' }),
    predicate: compare('neq', property('$label'), constant({ string: SCHEMA_LABEL })),
  });
  const entries = [
    { query: { name: 'record', root: record } },
    { query: { name: 'nodes', root: op('exists', { input: others }) } },
    { query: { name: 'edges', root: op('exists', { input: op('edges', { reference: 'all' }) }) } },
  ];
  const body = stringifyJson({ request_type: 'read', query: { read: { entries, returns: ['record', 'nodes', 'edges'] } } });
  const reply = await service.query(Buffer.from(body), { ...OPTIONS, awaitDurable: undefined });
  const text = utf8Text(reply.body);
  if (reply.status !== 200) throw new SchemaMigrationError(`the recorded schema version could not be read: ${text}`);
  const answer = parseJson(text) as { record: { version?: unknown }[]; nodes: [boolean]; edges: [boolean] };
  const recorded = answer.record.map((r) => r.version).filter((v): v is bigint => typeof v === 'bigint');
  const version = recorded.length === 0 ? null : Number(recorded.reduce((a, b) => (b > a ? b : a)));
  return { version, empty: !answer.nodes[0] && !answer.edges[0] };
}

/**
 * `create_index` entries for the vector types the chain renames into: the vectors of a type
 * (nodes holding `data`) are found through the cosine index of their label, which the first
 * AddV of a type makes. A renamed type's index is made before its vectors are relabelled,
 * of the old index's dimension and metric, so each vector enters it in the same write. A
 * type without an index (no vector written yet) needs none; one whose new type has its
 * index already keeps it.
 */
async function renamedVectorIndexes(service: QueryRunner, chain: readonly MigrationStep[], build: HnswBuildParameters): Promise<unknown[]> {
  const renames = chain.flatMap((s) => s.vectorRenames);
  if (renames.length === 0) return [];
  const listed = await listIndexes(service);
  if (!('indexes' in listed)) throw new SchemaMigrationError(`the vector indexes could not be listed: ${listed.text}`);
  const vectors = new Map<string, { dimension: number; metric: string }>();
  for (const index of listed.indexes) {
    if (!isTypeVectorIndex(index)) continue;
    if (index.dimension !== undefined && index.metric !== undefined)
      vectors.set(index.label, { dimension: index.dimension, metric: index.metric });
  }
  const made: unknown[] = [];
  for (const { from, to } of renames) {
    const old = vectors.get(from);
    if (old === undefined || vectors.has(to)) continue;
    vectors.set(to, old);
    const spec = { node_vector: { label: to, property: 'data', dimension: old.dimension, metric: old.metric, ...build } };
    made.push({ query: { root: { create_index: { spec, if_not_exists: true } } } });
  }
  return made;
}

/** Entries recording `version`: the record node updated, or made when there is none. */
function markerEntries(version: number): unknown[] {
  const value = { value: { i64: BigInt(version) } };
  return [
    { query: { name: 'schema_record', root: op('nodes_where', { predicate: labelIs(SCHEMA_LABEL) }) } },
    { query: { root: op('set_property', { input: op('nodes', { reference: { var: 'schema_record' } }), name: 'version', value }) } },
    { query: { root: op('add_n', { label: SCHEMA_LABEL, properties: [['version', value]] }), condition: { var_empty: 'schema_record' } } },
  ];
}

/** Runs `entries` as one write batch; a failure names what the failing entry does (`what`, by index). */
async function write(service: QueryRunner, entries: readonly unknown[], what: readonly string[]): Promise<void> {
  const body = stringifyJson({ request_type: 'write', query: { write: { entries, returns: [] } } });
  const reply = await service.query(Buffer.from(body), OPTIONS);
  if (reply.status === 200) return;
  const text = utf8Text(reply.body);
  let message = text;
  try {
    message = String((JSON.parse(text) as { msg?: unknown }).msg ?? text);
  } catch {
    // Not JSON: the text as it is.
  }
  const failed = failedEntry(message);
  const step = failed === null ? undefined : what[failed.entry];
  throw new SchemaMigrationError(step === undefined ? message : `${step}: ${failed!.problem}`);
}
