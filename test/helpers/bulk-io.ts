/** The import and export commands run in-process, their output captured; files written from lines. */
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { exportMain, importMain } from '../../src/bulk-io/cli.js';
import { open, type Database } from '../../src/index.js';

export interface Run {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs `fn` with console.log and console.error captured. */
async function captured(fn: () => Promise<number>): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const log = console.log;
  const error = console.error;
  console.log = (...args: unknown[]) => void out.push(args.join(' '));
  console.error = (...args: unknown[]) => void err.push(args.join(' '));
  try {
    const code = await fn();
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    console.log = log;
    console.error = error;
  }
}

/** `trellis import <args>` in `cwd` (progress off unless asked). */
export function runImportCli(args: string[], cwd: string): Promise<Run> {
  const progress = args.some((a) => a.startsWith('--progress')) ? [] : ['--progress', 'none'];
  return captured(() => importMain([...args, ...progress], cwd));
}

export function runExportCli(args: string[], cwd: string): Promise<Run> {
  const progress = args.some((a) => a.startsWith('--progress')) ? [] : ['--progress', 'none'];
  return captured(() => exportMain([...args, ...progress], cwd));
}

/** Writes `lines` (joined by LF, with a final LF) to dir/name; gzip-compressed when it ends in .gz. */
export function writeLines(dir: string, name: string, lines: string[]): string {
  const path = join(dir, name);
  const text = lines.join('\n') + '\n';
  writeFileSync(path, name.endsWith('.gz') ? gzipSync(text) : text);
  return path;
}

/** Everything in a database: nodes and edges as plain records, for comparisons. */
export interface Dump {
  nodes: { id: number; label: string; props: Record<string, unknown> }[];
  edges: { from: number; to: number; label: string; props: Record<string, unknown> }[];
}

export async function dump(path: string): Promise<Dump> {
  const db: Database = await open(path, { readOnly: true });
  try {
    return db.store.read((r) => ({
      nodes: [...r.nodeRecords()].map((n) => ({ id: n.id, label: n.label, props: { ...n.props } })),
      edges: [...r.edgeRecords()].map((e) => ({ from: e.from, to: e.to, label: e.label, props: { ...e.props } })),
    }));
  } finally {
    await db.close();
  }
}

/** A stable text of a value (typed arrays and date-times by kind, -0 and NaN apart), for sorting. */
function key(v: unknown): string {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'undefined';
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}[${Array.from(v as unknown as ArrayLike<unknown>, key).join(',')}]`;
  if (Array.isArray(v)) return `[${v.map(key).join(',')}]`;
  return `${v.constructor.name}{${Object.entries(v)
    .map(([k, x]) => `${k}:${key(x)}`)
    .join(',')}}`;
}

/**
 * A dump without ids (they differ between two loads of the same data): nodes in order of
 * their label and properties, edges by their ends' places in that order.
 */
export function canonical(d: Dump): { nodes: unknown[]; edges: unknown[] } {
  const nodes = d.nodes.map((n) => ({ n, k: `${n.label}|${key(n.props)}` })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  const position = new Map(nodes.map(({ n }, i) => [n.id, i]));
  const edges = d.edges
    .map((e) => ({ from: position.get(e.from), to: position.get(e.to), label: e.label, props: e.props }))
    .sort((a, b) => {
      const x = key(a);
      const y = key(b);
      return x < y ? -1 : x > y ? 1 : 0;
    });
  return { nodes: nodes.map(({ n }) => ({ label: n.label, props: n.props })), edges };
}
