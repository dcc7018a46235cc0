/**
 * `trellis export`: the whole database, or chosen labels, to CSV (the import's header
 * syntax), JSON Lines, Parquet or a Cypher script, from one read snapshot (docs/import-export.md).
 *
 * The folder is opened read-only, which works while a server runs on it (LMDB readers take
 * no lock), and everything is read in one read transaction: the export is the database as
 * of one commit, whatever the server writes meanwhile. Two passes over that snapshot: the
 * first finds each label's properties and the one type that holds every value exactly
 * (column-types.ts), the second writes. Next to the data goes `import.json`, a mapping
 * file with which `trellis import --mapping` loads the export back as it was (node keys
 * are the exported ids, not kept as properties).
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Value } from '../core/value.js';
import type { GraphReader, SnapshotReader } from '../store/index.js';
import { openStore } from '../store/index.js';
import { ColumnTypes } from './column-types.js';
import { cellText, csvField, cypherLiteral, cypherMap, cypherName, jsonMember } from './formats.js';
import { typeName, type ValueType } from './header.js';
import type { Progress } from './progress.js';
import type * as HyparquetWriter from 'hyparquet-writer';

export type ExportFormat = 'csv' | 'jsonl' | 'parquet' | 'cypher';

export interface ExportPlan {
  readonly data: string;
  readonly out: string;
  readonly format: ExportFormat;
  /** Node labels to export (edges between exported nodes); null: all. */
  readonly labels: readonly string[] | null;
  /** Edge labels to export; null: all (between exported nodes). */
  readonly types: readonly string[] | null;
  readonly arrayDelimiter: string;
}

export interface ExportSummary {
  nodes: number;
  edges: number;
  files: string[];
  ms: number;
}

const DELIMITER = ',';
const QUOTE = '"';
/** Bytes buffered per output file between writes. */
const FLUSH_BYTES = 1 << 20;

/** Buffered writes to one file. */
class Output {
  private readonly fd: number;
  private parts: string[] = [];
  private size = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  write(text: string): void {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= FLUSH_BYTES) this.flush();
  }

  private flush(): void {
    if (this.parts.length > 0) writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.size = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** One exported label: its file, its columns and their types. */
interface Group {
  readonly label: string;
  readonly file: string;
  readonly types: ColumnTypes;
  /** The properties and their types, settled by the first pass (read per row by the second). */
  columns: readonly { readonly name: string; readonly type: ValueType }[];
  count: number;
  output: Output | null;
  /** Parquet: the columns, filled row by row and written at the end. */
  parquet: Map<string, unknown[]> | null;
}

/** File names from labels: safe characters only, numbered so two labels never share one. */
function fileName(prefix: string, index: number, label: string, extension: string): string {
  const safe = label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60);
  return `${prefix}-${index}-${safe}.${extension}`;
}

const EXTENSION: Record<ExportFormat, string> = { csv: 'csv', jsonl: 'jsonl', parquet: 'parquet', cypher: 'cypher' };

/** Ids seen, as a growable bitmap (ids are dense). */
class IdSet {
  private bits = new Uint8Array(1024);

  add(id: number): void {
    const byte = id >>> 3;
    if (byte >= this.bits.length) {
      let size = this.bits.length;
      while (size <= byte) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[byte]! |= 1 << (id & 7);
  }

  has(id: number): boolean {
    const byte = id >>> 3;
    return byte < this.bits.length && (this.bits[byte]! & (1 << (id & 7))) !== 0;
  }
}

export async function exportDatabase(plan: ExportPlan, progress: Progress): Promise<ExportSummary> {
  const started = performance.now();
  const store = await openStore({ path: plan.data, readOnly: true });
  try {
    mkdirSync(plan.out, { recursive: true });
    // Parquet's writer is loaded only for Parquet exports.
    const parquet = plan.format === 'parquet' ? await import('hyparquet-writer') : null;
    const summary = store.read((r) => exportSnapshot(r, plan, progress, parquet));
    summary.ms = performance.now() - started;
    return summary;
  } finally {
    await store.close();
  }
}

type ParquetWriter = typeof HyparquetWriter;

function exportSnapshot(r: SnapshotReader, plan: ExportPlan, progress: Progress, parquet: ParquetWriter | null): ExportSummary {
  const ext = EXTENSION[plan.format];
  const wanted = plan.labels === null ? null : new Set(plan.labels);
  const wantedTypes = plan.types === null ? null : new Set(plan.types);
  const nodeGroups = new Map<string, Group>();
  const edgeGroups = new Map<string, Group>();
  const exported = new IdSet();
  const group = (groups: Map<string, Group>, prefix: string, label: string): Group => {
    let g = groups.get(label);
    if (g === undefined) {
      const file = plan.format === 'cypher' ? 'graph.cypher' : fileName(prefix, groups.size + 1, label, ext);
      g = { label, file, types: new ColumnTypes(), columns: [], count: 0, output: null, parquet: null };
      groups.set(label, g);
    }
    return g;
  };
  // Pass 1: labels, properties and their types.
  progress.phase('export: scanning', 0);
  for (const node of r.nodeRecords()) {
    if (wanted !== null && !wanted.has(node.label)) continue;
    exported.add(node.id);
    const g = group(nodeGroups, 'nodes', node.label);
    g.count++;
    for (const key in node.props) g.types.see(key, node.props[key]!, plan.arrayDelimiter);
  }
  for (const edge of r.edgeRecords()) {
    if (wantedTypes !== null && !wantedTypes.has(edge.label)) continue;
    if (!exported.has(edge.from) || !exported.has(edge.to)) continue;
    const g = group(edgeGroups, 'edges', edge.label);
    g.count++;
    for (const key in edge.props) g.types.see(key, edge.props[key]!, plan.arrayDelimiter);
  }
  progress.done();
  for (const g of [...nodeGroups.values(), ...edgeGroups.values()])
    g.columns = g.types.names.map((name) => ({ name, type: g.types.typeOf(name) }));
  const writer = formatWriter(plan, parquet);
  // Pass 2: the rows.
  let nodes = 0;
  let edges = 0;
  const cypher = plan.format === 'cypher' ? new Output(join(plan.out, 'graph.cypher')) : null;
  if (cypher !== null) writeCypherHead(cypher);
  progress.phase('export: nodes', 0);
  for (const g of nodeGroups.values()) writer.open(g, 'node', cypher);
  for (const node of r.nodeRecords()) {
    if (!exported.has(node.id)) continue;
    writer.row(nodeGroups.get(node.label)!, node.id, null, node.props);
    if (++nodes % 10_000 === 0) progress.advance(0, 10_000);
  }
  progress.advance(0, nodes % 10_000);
  progress.done();
  progress.phase('export: edges', 0);
  for (const g of edgeGroups.values()) writer.open(g, 'edge', cypher);
  const labels = plan.format === 'cypher' ? labelsOf(r) : () => '';
  for (const edge of r.edgeRecords()) {
    const g = edgeGroups.get(edge.label);
    if (g === undefined || !exported.has(edge.from) || !exported.has(edge.to)) continue;
    writer.row(g, edge.from, { to: edge.to, fromLabel: labels(edge.from), toLabel: labels(edge.to) }, edge.props);
    if (++edges % 10_000 === 0) progress.advance(0, 10_000);
  }
  progress.advance(0, edges % 10_000);
  progress.done();
  for (const g of [...nodeGroups.values(), ...edgeGroups.values()]) writer.close(g);
  if (cypher !== null) {
    cypher.write(`MATCH (n) WHERE n.${CYPHER_KEY} IS NOT NULL REMOVE n.${CYPHER_KEY};\n`);
    cypher.close();
  }
  const files = [...nodeGroups.values(), ...edgeGroups.values()].map((g) => g.file);
  if (plan.format !== 'cypher') {
    writeFileSync(join(plan.out, 'import.json'), JSON.stringify(manifest(plan, nodeGroups, edgeGroups), null, 2) + '\n');
    files.push('import.json');
  }
  return { nodes, edges, files: [...new Set(files)], ms: 0 };
}

/**
 * Node labels by id, for Cypher's MATCH of an edge's ends, cached (edges repeat their
 * ends); one cache per export, as ids name other nodes in another database.
 */
function labelsOf(r: GraphReader): (id: number) => string {
  const cache = new Map<number, string>();
  return (id) => {
    let label = cache.get(id);
    if (label === undefined) {
      if (cache.size > 100_000) cache.clear();
      label = r.getNode(id)!.label;
      cache.set(id, label);
    }
    return label;
  };
}

/** The property the Cypher script keys nodes by while it creates edges, removed at its end. */
const CYPHER_KEY = '`__trellis_id`';

function writeCypherHead(out: Output): void {
  out.write(
    `// A Trellis export as Cypher statements, one per line. Nodes carry ${CYPHER_KEY} while the\n` +
      '// edges are created (an index on it speeds that up); the last statement removes it.\n',
  );
}

interface EdgeEnds {
  readonly to: number;
  readonly fromLabel: string;
  readonly toLabel: string;
}

interface FormatWriter {
  open(g: Group, element: 'node' | 'edge', cypher: Output | null): void;
  /** A node (`ends` null: `key` is its id) or an edge (`key` is its start's id). */
  row(g: Group, key: number, ends: EdgeEnds | null, props: Record<string, Value>): void;
  close(g: Group): void;
}

function formatWriter(plan: ExportPlan, parquet: ParquetWriter | null): FormatWriter {
  const out = (g: Group) => join(plan.out, g.file);
  const d = plan.arrayDelimiter;
  switch (plan.format) {
    case 'csv':
      return {
        open(g, element) {
          g.output = new Output(out(g));
          const keys = element === 'node' ? [':ID'] : [':START_ID', ':END_ID'];
          const props = g.columns.map(({ name, type }) => `${name}:${typeName(type)}`);
          g.output.write([...keys, ...props].map((f) => csvField(f, DELIMITER, QUOTE)).join(DELIMITER) + '\n');
        },
        row(g, key, ends, props) {
          const cells = ends === null ? [String(key)] : [String(key), String(ends.to)];
          for (const { name, type } of g.columns) {
            const v = props[name];
            cells.push(v === undefined ? '' : csvField(cellText(v, type, d), DELIMITER, QUOTE));
          }
          g.output!.write(cells.join(DELIMITER) + '\n');
        },
        close: (g) => g.output?.close(),
      };
    case 'jsonl':
      return {
        open(g) {
          g.output = new Output(out(g));
        },
        row(g, key, ends, props) {
          const members = ends === null ? [`":ID":${key}`] : [`":START_ID":${key}`, `":END_ID":${ends.to}`];
          for (const { name, type } of g.columns) {
            const v = props[name];
            if (v !== undefined) members.push(`${JSON.stringify(name)}:${jsonMember(v, type)}`);
          }
          g.output!.write(`{${members.join(',')}}\n`);
        },
        close: (g) => g.output?.close(),
      };
    case 'parquet':
      return {
        open(g, element) {
          g.parquet = new Map();
          for (const k of element === 'node' ? [':ID'] : [':START_ID', ':END_ID']) g.parquet.set(k, []);
          for (const { name } of g.columns) g.parquet.set(name, []);
        },
        row(g, key, ends, props) {
          const columns = g.parquet!;
          if (ends === null) columns.get(':ID')!.push(BigInt(key));
          else {
            columns.get(':START_ID')!.push(BigInt(key));
            columns.get(':END_ID')!.push(BigInt(ends.to));
          }
          for (const { name, type } of g.columns) columns.get(name)!.push(parquetCell(props[name], type, d));
        },
        close(g) {
          const columnData = [...g.parquet!].map(([name, data]) => ({
            name,
            data,
            type: name.startsWith(':') ? ('INT64' as const) : parquetType(g.types.typeOf(name)),
          }));
          parquet!.parquetWriteFile({ filename: out(g), columnData });
          g.parquet = null;
        },
      };
    case 'cypher': {
      let cypher: Output | null = null;
      return {
        open(_g, _element, file) {
          cypher = file;
        },
        row(g, key, ends, props) {
          if (ends === null) {
            const members = [`${CYPHER_KEY}: ${key}`, ...Object.entries(props).map(([k, v]) => `${cypherName(k)}: ${cypherLiteral(v)}`)];
            cypher!.write(`CREATE (:${cypherName(g.label)} {${members.join(', ')}});\n`);
          } else {
            const map = Object.keys(props).length > 0 ? ` ${cypherMap(props)}` : '';
            cypher!.write(
              `MATCH (a:${cypherName(ends.fromLabel)} {${CYPHER_KEY}: ${key}}), (b:${cypherName(ends.toLabel)} {${CYPHER_KEY}: ${ends.to}}) CREATE (a)-[:${cypherName(g.label)}${map}]->(b);\n`,
            );
          }
        },
        close() {},
      };
    }
  }
}

/** Parquet's column type of a property type: scalars natively, arrays and json as text cells. */
function parquetType(type: ValueType): 'INT64' | 'DOUBLE' | 'BOOLEAN' | 'STRING' | 'TIMESTAMP' {
  if (type.array || type.scalar === 'json') return 'STRING';
  switch (type.scalar) {
    case 'long':
      return 'INT64';
    case 'double':
      return 'DOUBLE';
    case 'boolean':
      return 'BOOLEAN';
    case 'datetime':
      return 'TIMESTAMP';
    default:
      return 'STRING';
  }
}

function parquetCell(v: Value | undefined, type: ValueType, d: string): unknown {
  if (v === undefined) return null;
  const t = parquetType(type);
  if (t === 'STRING') return type.scalar === 'string' && !type.array ? v : cellText(v, type, d);
  if (t === 'TIMESTAMP') return new Date((v as { ms: number }).ms);
  return v;
}

/** The mapping file that imports the export back (plan.ts readMapping). */
function manifest(plan: ExportPlan, nodeGroups: Map<string, Group>, edgeGroups: Map<string, Group>): object {
  const columns = (g: Group) => {
    // CSV headers carry their types; JSON Lines and Parquet members are declared here.
    if (plan.format === 'csv') return undefined;
    return Object.fromEntries(g.columns.map(({ name, type }) => [name, `:${typeName(type)}`]));
  };
  const entry = (g: Group, key: 'label' | 'type') => ({ [key]: g.label, files: [g.file], columns: columns(g) });
  return {
    idType: 'integer',
    arrayDelimiter: plan.arrayDelimiter,
    nodes: [...nodeGroups.values()].map((g) => entry(g, 'label')),
    edges: [...edgeGroups.values()].map((g) => entry(g, 'type')),
  };
}
