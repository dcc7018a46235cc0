/** An embedded database in a temp folder, with request builders shared by exec tests. */
import { open, type Database } from '../../src/index.js';
import assert from 'node:assert/strict';
import { GraphError } from '../../src/core/errors.js';
import { tempDir } from './server.js';

export interface TestDb {
  db: Database;
  read(entries: unknown[], returns: string[], parameters?: Record<string, unknown>): Promise<Record<string, any>>;
  write(entries: unknown[], returns: string[], parameters?: Record<string, unknown>): Promise<Record<string, any>>;
  close(): Promise<void>;
}

export async function openTestDb(): Promise<TestDb> {
  const dir = tempDir('trellis-exec-');
  const db = await open(dir.path);
  const run = (type: 'read' | 'write') => (entries: unknown[], returns: string[], parameters?: Record<string, unknown>) =>
    db.query({ request_type: type, query: { [type]: { entries, returns } }, ...(parameters ? { parameters } : {}) });
  return {
    db,
    read: run('read'),
    write: run('write'),
    async close() {
      await db.close();
      dir.remove();
    },
  };
}

export const s = (v: string) => ({ value: { string: v } });
export const i = (v: number) => ({ value: { i64: v } });
export const all = { nodes: { reference: 'all' } };
export const ids = (...list: number[]) => ({ nodes: { reference: { ids: list } } });
export const label = (l: string) => ({
  nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: l } } } } },
});
export const q = (name: string | null, root: unknown, condition?: unknown) => ({
  query: { ...(name ? { name } : {}), root, ...(condition ? { condition } : {}) },
});
export const prop = (p: string) => ({ property: p });
export const cs = (v: string) => ({ constant: { string: v } });
export const ci = (v: number) => ({ constant: { i64: v } });

// Shared by the conformance tests (test/exec/*-conformance.test.ts).
export const ctx = 'context';
export const sub = (root: unknown) => ({ root });
export const f = (v: number) => ({ value: { f64: v } });
export const idRows = (...list: number[]) => list.map(($id) => ({ $id }));

/** The response text of one read or write request, for exact number and string formatting. */
export function requestText(type: 'read' | 'write', entries: unknown[], returns: string[], parameters?: Record<string, unknown>) {
  return JSON.stringify({ request_type: type, query: { [type]: { entries, returns } }, ...(parameters ? { parameters } : {}) }, (_k, v) =>
    typeof v === 'bigint' ? `@@big:${v}@@` : v,
  ).replace(/"@@big:(-?\d+)@@"/g, '$1');
}

/** A regex for a msg that starts with the JSON path `prefix + suffix` (then ":", "." or "["). */
export function atPath(suffix: string, prefix = 'query.read.entries[0].query.root'): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${esc(prefix + suffix)}[:.\\[]`);
}

/** Runs `fn` on a database of its own, closed afterwards. */
export async function withFreshDb(fn: (db: TestDb) => Promise<void>): Promise<void> {
  const db = await openTestDb();
  try {
    await fn(db);
  } finally {
    await db.close();
  }
}

export const WRITE_ROOT = 'query.write.entries[0].query.root';

/**
 * Asserters of a 400 for a batch of one entry whose root is `root`, on the database `db()`
 * gives: the code, and a msg starting at `suffix` below the entry's root.
 */
export function rootRejects(db: () => TestDb) {
  return {
    badRead: (root: unknown, code: string, suffix: string, parameters?: Record<string, unknown>) =>
      rejects400(db().read([q('r', root)], [], parameters), code, atPath(suffix)),
    badWrite: (root: unknown, code: string, suffix: string, parameters?: Record<string, unknown>) =>
      rejects400(db().write([q('r', root)], [], parameters), code, atPath(suffix, WRITE_ROOT)),
  };
}

/** Asserts a 400 GraphError with exactly this code and a msg matching `where`. */
export async function rejects400(promise: Promise<unknown>, code: string, where: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof GraphError, String(err));
    assert.equal(err.code, code, `code ${err.code} (msg: ${err.msg})`);
    assert.equal(err.status, 400, `status of ${err.code}`);
    assert.match(err.msg, where);
    return true;
  });
}

/**
 * A fresh database holding a path: nodes 0 a, 1 b, 2 c (label P, property name) and edges
 * e0 0->1, e1 1->2 (label K). Several conformance files start from it.
 */
export async function openPathGraph(): Promise<TestDb> {
  const t = await openTestDb();
  const made = await t.write(
    [
      q('a', { add_n: { label: 'P', properties: [['name', s('a')]] } }),
      q('b', { add_n: { label: 'P', properties: [['name', s('b')]] } }),
      q('c', { add_n: { label: 'P', properties: [['name', s('c')]] } }),
      q('e0', { add_e: { input: { nodes: { reference: { var: 'a' } } }, label: 'K', to: { var: 'b' }, properties: [] } }),
      q('e1', { add_e: { input: { nodes: { reference: { var: 'b' } } }, label: 'K', to: { var: 'c' }, properties: [] } }),
    ],
    ['a', 'c', 'e1'],
  );
  const expected = JSON.stringify({ a: idRows(0), c: idRows(2), e1: idRows(1) });
  if (JSON.stringify(made) !== expected) throw new Error(`the path graph was not made as expected: ${JSON.stringify(made)}`);
  return t;
}

/** How many nodes and edges the database holds: `{n: count, e: count}`. */
export function elementCounts(t: TestDb) {
  return t.read(
    [q('n', { count: { input: { nodes: { reference: 'all' } } } }), q('e', { count: { input: { edges: { reference: 'all' } } } })],
    ['n', 'e'],
  );
}
