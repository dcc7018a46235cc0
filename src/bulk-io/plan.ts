/**
 * What one `trellis import` does, from its flags and an optional mapping file
 * (docs/import-export.md): where to (a folder offline, a server online), which file groups,
 * how the files are written, what to do with bad rows, which indexes to build.
 */
import type { Mode } from './progress.js';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { IndexSpec } from '../core/index-spec.js';
import { parseJson } from '../core/json.js';
import { messageOf } from '../core/errors.js';
import { indexSpec } from '../wire/index-ops.js';
import type { IdType } from './header.js';
import { formatOf, type FileGroup, type Format } from './sources.js';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface ImportPlan {
  /** Offline: the database folder (the server not running). */
  readonly data: string | undefined;
  /** Online: the server's (or gateway's) base URL, and the gateway's API key. */
  readonly url: string | undefined;
  readonly key: string | undefined;
  readonly nodes: readonly FileGroup[];
  readonly edges: readonly FileGroup[];
  readonly delimiter: string;
  readonly quote: string;
  readonly arrayDelimiter: string;
  readonly idType: IdType;
  /** Rows that may be rejected before the import stops; 0: the first bad row stops it. */
  readonly skipBadRows: number;
  readonly rejects: string;
  readonly indexes: readonly IndexSpec[];
  readonly progress: Mode;
  /** Rows per request online. */
  readonly batchRows: number;
}

export const IMPORT_USAGE = `Usage: trellis import (--data DIR | --url URL [--key KEY]) [options]
                      --nodes [Label=]FILE[,FILE...] ... --edges [Type=]FILE[,FILE...] ...

Loads nodes and edges from CSV (neo4j-admin's header syntax; .gz too), JSON Lines
(.jsonl) and Parquet (.parquet) files. Offline (--data) it builds an empty database
folder while no server runs on it; online (--url) it sends batches to a running server.

  --data DIR               the database folder (missing, empty, or an empty database)
  --url URL                a running server or gateway, e.g. http://127.0.0.1:6969
  --key KEY                the gateway's API key (sent as Authorization: Bearer KEY)
  --nodes [Label=]FILES    a node file group: comma-separated files read as one, the
                           header in the first line of the first file (repeatable)
  --edges [Type=]FILES     an edge file group (repeatable; also --relationships)
  --mapping FILE           a JSON mapping file: groups, headers and indexes for files
                           whose headers cannot be changed (docs/import-export.md)
  --delimiter C            CSV field delimiter (,), TAB for a tab
  --quote C                CSV quote character (")
  --array-delimiter C      separator of array items in a CSV cell (;)
  --id-type string|integer how :ID, :START_ID and :END_ID values are read (string)
  --skip-bad-rows N        write up to N bad rows to the rejects file and go on (0:
                           the first bad row stops the import and nothing is kept)
  --rejects FILE           where rejected rows go (./trellis-import.rejects.jsonl)
  --index JSON             an index to build at the end, as create_index's spec, e.g.
                           '{"node_equality":{"label":"User","property":"uid","unique":true}}'
  --progress auto|bars|lines|none   progress bars on a terminal, else lines (auto)
  --batch-rows N           rows per request online, at most (250000)
  --help                   print this text`;

interface Raw {
  data?: string;
  url?: string;
  key?: string;
  mapping?: string;
  delimiter?: string;
  quote?: string;
  arrayDelimiter?: string;
  idType?: string;
  skipBadRows?: string;
  rejects?: string;
  progress?: string;
  batchRows?: string;
  nodes: string[];
  edges: string[];
  index: string[];
  help: boolean;
}

const FLAGS: Record<string, keyof Raw> = {
  '--data': 'data',
  '--url': 'url',
  '--key': 'key',
  '--mapping': 'mapping',
  '--delimiter': 'delimiter',
  '--quote': 'quote',
  '--array-delimiter': 'arrayDelimiter',
  '--id-type': 'idType',
  '--skip-bad-rows': 'skipBadRows',
  '--rejects': 'rejects',
  '--progress': 'progress',
  '--batch-rows': 'batchRows',
  '--nodes': 'nodes',
  '--edges': 'edges',
  '--relationships': 'edges',
  '--index': 'index',
};

/**
 * Flags as `--flag value` or `--flag=value`, by the table of a command (`flags`: each
 * flag's member of `raw`); list members collect every value of a repeated flag.
 */
export function parseFlags<T extends { help: boolean }>(argv: readonly string[], flags: Readonly<Record<string, keyof T>>, raw: T): T {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      raw.help = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}" (options start with --; see --help)`);
    const eq = arg.indexOf('=');
    const flag = eq < 0 ? arg : arg.slice(0, eq);
    const key = flags[flag];
    if (key === undefined) throw new UsageError(`unknown option ${flag}`);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`${flag} needs a value`);
      value = next;
      i++;
    }
    const slot = raw[key];
    if (Array.isArray(slot)) slot.push(value);
    else (raw as Record<keyof T, unknown>)[key] = value;
  }
  return raw;
}

/** The --progress flag's mode (auto when not given). */
export function progressMode(text: string | undefined): Mode {
  const mode = text ?? 'auto';
  if (!['auto', 'bars', 'lines', 'none'].includes(mode))
    throw new UsageError(`--progress must be auto, bars, lines or none, got "${mode}"`);
  return mode as Mode;
}

/** `Label=a.csv,b.csv` or `a.csv` as a group. */
function groupFromFlag(text: string, element: 'node' | 'edge', cwd: string): FileGroup {
  const eq = text.indexOf('=');
  const label = eq < 0 ? undefined : text.slice(0, eq).trim();
  if (label !== undefined && label.includes(':')) {
    throw new UsageError(
      `--${element === 'node' ? 'nodes' : 'edges'} ${text}: a Trellis ${element} has one label; give one name before "="`,
    );
  }
  const files = (eq < 0 ? text : text.slice(eq + 1))
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '')
    .map((f) => resolve(cwd, f));
  if (files.length === 0) throw new UsageError(`--${element === 'node' ? 'nodes' : 'edges'} ${text}: no file`);
  if (label === '') throw new UsageError(`--${element === 'node' ? 'nodes' : 'edges'} ${text}: the label before "=" is empty`);
  return { element, label, files, format: formatOf(files[0]!), header: undefined, headerLine: true, columns: new Map() };
}

const CHARACTER_NAMES: Record<string, string> = { TAB: '\t', '\\t': '\t', COMMA: ',', SEMICOLON: ';', PIPE: '|' };

function character(text: string | undefined, fallback: string, flag: string): string {
  if (text === undefined) return fallback;
  const c = CHARACTER_NAMES[text.toUpperCase()] ?? CHARACTER_NAMES[text] ?? text;
  if (c.length !== 1 || c.charCodeAt(0) > 127)
    throw new UsageError(`${flag} must be one ASCII character (or TAB), got ${JSON.stringify(text)}`);
  return c;
}

function positive(text: string | undefined, fallback: number, flag: string, min: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min) throw new UsageError(`${flag} must be an integer of at least ${min}, got "${text}"`);
  return Number(text);
}

function spec(json: unknown, where: string): IndexSpec {
  try {
    return indexSpec(json, where);
  } catch (err) {
    throw new UsageError(`${where}: ${messageOf(err)}`);
  }
}

interface MappingGroup {
  label?: unknown;
  type?: unknown;
  files?: unknown;
  format?: unknown;
  header?: unknown;
  headerLine?: unknown;
  columns?: unknown;
}

/** A mapping file (JSON): options, groups and indexes; files relative to the mapping's folder. */
function readMapping(path: string): { groups: FileGroup[]; options: Record<string, unknown>; indexes: IndexSpec[] } {
  let json: unknown;
  try {
    json = parseJson(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--mapping ${path}: ${messageOf(err)}`);
  }
  const fail = (msg: string): never => {
    throw new UsageError(`--mapping ${path}: ${msg}`);
  };
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail('must hold a JSON object');
  const top = json as Record<string, unknown>;
  const known = ['nodes', 'edges', 'indexes', 'delimiter', 'quote', 'arrayDelimiter', 'idType'];
  for (const key of Object.keys(top)) if (!known.includes(key)) fail(`unknown key "${key}"; known keys: ${known.join(', ')}`);
  const base = dirname(path);
  const groups: FileGroup[] = [];
  for (const element of ['node', 'edge'] as const) {
    const list = top[element === 'node' ? 'nodes' : 'edges'] ?? [];
    if (!Array.isArray(list)) fail(`"${element}s" must be an array of groups`);
    (list as MappingGroup[]).forEach((g, i) => {
      const where = `${element}s[${i}]`;
      if (typeof g !== 'object' || g === null) fail(`${where} must be an object`);
      const allowed = ['label', 'type', 'files', 'format', 'header', 'headerLine', 'columns'];
      for (const key of Object.keys(g))
        if (!allowed.includes(key)) fail(`${where}: unknown key "${key}"; known keys: ${allowed.join(', ')}`);
      const label = element === 'node' ? g.label : g.type;
      if (label !== undefined && (typeof label !== 'string' || label === ''))
        fail(`${where}.${element === 'node' ? 'label' : 'type'} must be a name`);
      if (!Array.isArray(g.files) || g.files.length === 0 || !g.files.every((f) => typeof f === 'string')) {
        fail(`${where}.files must be a list of file names`);
      }
      const files = (g.files as string[]).map((f) => resolve(base, f));
      const format = g.format ?? formatOf(files[0]!);
      if (format !== 'csv' && format !== 'jsonl' && format !== 'parquet') fail(`${where}.format must be "csv", "jsonl" or "parquet"`);
      let header: string[] | undefined;
      if (g.header !== undefined) {
        if (Array.isArray(g.header) && g.header.every((h) => typeof h === 'string')) header = g.header as string[];
        else if (typeof g.header === 'string') header = g.header.split(',');
        else fail(`${where}.header must be a header line ("uid:ID(User),name,age:long") or a list of fields`);
      }
      if (g.headerLine !== undefined && typeof g.headerLine !== 'boolean') fail(`${where}.headerLine must be true or false`);
      const columns = new Map<string, string>();
      if (g.columns !== undefined) {
        if (typeof g.columns !== 'object' || g.columns === null || Array.isArray(g.columns))
          fail(`${where}.columns must map member names to fields`);
        for (const [name, f] of Object.entries(g.columns as Record<string, unknown>)) {
          if (typeof f !== 'string') fail(`${where}.columns.${name} must be a header field such as ":long" or "uid:ID(User)"`);
          columns.set(name, f as string);
        }
      }
      groups.push({
        element,
        label: label as string | undefined,
        files,
        format: format as Format,
        header,
        headerLine: (g.headerLine as boolean | undefined) ?? true,
        columns,
      });
    });
  }
  const indexList = top.indexes ?? [];
  if (!Array.isArray(indexList)) fail('"indexes" must be an array of create_index specs');
  const indexes = (indexList as unknown[]).map((j, i) => spec(j, `--mapping ${path}: indexes[${i}]`));
  const options: Record<string, unknown> = {};
  for (const key of ['delimiter', 'quote', 'arrayDelimiter', 'idType']) {
    const v = top[key];
    if (v === undefined) continue;
    if (typeof v !== 'string') fail(`"${key}" must be a string`);
    options[key] = v;
  }
  return { groups, options, indexes };
}

/** The plan of `trellis import <argv>` run in `cwd`. */
export function importPlan(argv: readonly string[], cwd: string): ImportPlan & { help: boolean } {
  const raw = parseFlags<Raw>(argv, FLAGS, { nodes: [], edges: [], index: [], help: false });
  const mapping = raw.mapping === undefined ? undefined : readMapping(resolve(cwd, raw.mapping));
  const opt = (key: string, flag: string | undefined) => flag ?? (mapping?.options[key] as string | undefined);
  const idType = opt('idType', raw.idType) ?? 'string';
  if (idType !== 'string' && idType !== 'integer') throw new UsageError(`--id-type must be "string" or "integer", got "${idType}"`);
  const progress = progressMode(raw.progress);
  const groups = [...(mapping?.groups ?? [])];
  for (const text of raw.nodes) groups.push(groupFromFlag(text, 'node', cwd));
  for (const text of raw.edges) groups.push(groupFromFlag(text, 'edge', cwd));
  const plan = {
    help: raw.help,
    data: raw.data === undefined ? undefined : resolve(cwd, raw.data),
    url: raw.url,
    key: raw.key,
    nodes: groups.filter((g) => g.element === 'node'),
    edges: groups.filter((g) => g.element === 'edge'),
    delimiter: character(opt('delimiter', raw.delimiter), ',', '--delimiter'),
    quote: character(opt('quote', raw.quote), '"', '--quote'),
    arrayDelimiter: character(opt('arrayDelimiter', raw.arrayDelimiter), ';', '--array-delimiter'),
    idType: idType as IdType,
    skipBadRows: positive(raw.skipBadRows, 0, '--skip-bad-rows', 0),
    rejects: resolve(cwd, raw.rejects ?? 'trellis-import.rejects.jsonl'),
    indexes: [...(mapping?.indexes ?? []), ...raw.index.map((text, i) => spec(parseIndexFlag(text), `--index #${i + 1}`))],
    progress,
    batchRows: positive(raw.batchRows, 250_000, '--batch-rows', 1),
  };
  if (plan.help) return plan;
  if ((plan.data === undefined) === (plan.url === undefined))
    throw new UsageError('give exactly one of --data DIR (offline) and --url URL (a running server)');
  if (plan.key !== undefined && plan.url === undefined) throw new UsageError('--key is for --url (a gateway)');
  if (plan.nodes.length + plan.edges.length === 0) throw new UsageError('nothing to import: give --nodes, --edges or --mapping');
  if (plan.delimiter === plan.quote) throw new UsageError('the delimiter and the quote character must differ');
  return plan;
}

function parseIndexFlag(text: string): unknown {
  try {
    return parseJson(text);
  } catch (err) {
    throw new UsageError(
      `--index ${text}: not JSON (${messageOf(err)}); give a create_index spec such as {"node_equality":{"label":"User","property":"uid","unique":true}}`,
    );
  }
}
