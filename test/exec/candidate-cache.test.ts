/**
 * The candidates of a `_within` search over a node scan, kept per columns generation
 * (src/exec/scan/candidate-cache.ts): a reader answers the same set while nothing changed
 * the columns, makes it again after a commit that did, tells parameter values apart, and
 * never keeps what depends on more than the nodes and parameters (the clock, a residual
 * conjunct). A write batch makes it on every call and sees its own
 * writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Value } from '../../src/core/value.js';
import type { Expr, Predicate } from '../../src/plan/expr.js';
import { candidateIds } from '../../src/exec/scan/candidate-cache.js';
import type { IdSet } from '../../src/exec/scan/id-set.js';
import type { ScanSpec } from '../../src/exec/scan/recognise.js';
import { Exec } from '../../src/exec/context.js';
import { EXECUTORS } from '../../src/exec/registry.js';
import type { GraphReader } from '../../src/store/index.js';
import { openTestDb, q } from '../helpers/embedded.js';

const at = { path: '$' };
const constant = (value: Value): Expr => ({ e: 'constant', value, ...at });
const compare = (op: 'eq' | 'lt', left: Expr, right: Expr): Predicate => ({ p: 'compare', op, left, right, ...at });
const property = (name: string): Expr => ({ e: 'property', name, ...at });
const docs = (...rest: Predicate[]): ScanSpec => ({ predicates: [compare('eq', property('$label'), constant('Doc')), ...rest] });
const below = (right: Expr) => docs(compare('lt', property('bucket'), right));
const exec = (reader: GraphReader, params: Record<string, Value> = {}) =>
  new Exec(reader, null, new Map(Object.entries(params)), EXECUTORS, false, () => {});
const idsOf = (set: IdSet) => [...set.keys()];

test('a reader keeps the candidates of a scan until a commit changes the columns, tells parameter values apart, and keeps nothing that reads the clock or records', async () => {
  const t = await openTestDb();
  try {
    // Docs 0..9 with bucket = id, and one Other node of bucket 0.
    const body = [q('n', { add_n: { label: 'Doc', properties: [['bucket', { expr: { param: 'b' } }]] } })];
    await t.write([{ for_each: { param: 'rows', body } }], [], { rows: Array.from({ length: 10 }, (_, b) => ({ b })) });
    await t.write([q(null, { add_n: { label: 'Other', properties: [['bucket', { value: { i64: 0 } }]] } })], []);
    const store = t.db.store;
    const read = (spec: ScanSpec, params: Record<string, Value> = {}) => store.read((r) => candidateIds(exec(r, params), spec));

    const first = read(below(constant(3n)));
    assert.deepEqual(idsOf(first), [0, 1, 2], 'the Docs below 3, not the Other node');
    assert.equal(read(below(constant(3n))), first, 'kept: the same set while the columns stand');
    assert.notEqual(read(below(constant(4n))), first, 'another constant is another set');
    // The same filter written elsewhere in a request (another JSON path) keeps what it kept.
    const elsewhere = (v: unknown): unknown =>
      typeof v !== 'object' || v === null
        ? v
        : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'path' ? '$.elsewhere[3]' : elsewhere(x)]));
    const moved: ScanSpec = { predicates: below(constant(3n)).predicates.map((p) => elsewhere(p) as Predicate) };
    assert.equal(moved.predicates[1]!.path, '$.elsewhere[3]');
    assert.equal(read(moved), first, 'the JSON path is not part of the key');
    // ...but a value's own "path" entry is: maps that differ only there are other sets.
    const tagged = (path: string) => docs(compare('eq', property('tag'), constant({ path })));
    assert.equal(read(tagged('a')), read(tagged('a')), 'a map constant is kept');
    assert.notEqual(read(tagged('b')), read(tagged('a')), 'another map is another set');
    const byParam = docs(compare('eq', property('tag'), { e: 'param', name: 'tag', ...at }));
    assert.notEqual(read(byParam, { tag: { path: 'b' } }), read(byParam, { tag: { path: 'a' } }), 'so is another map parameter');
    assert.deepEqual(idsOf(read(below(constant(4n)))), [0, 1, 2, 3]);

    // Parameters: their values are in the key.
    const param: Expr = { e: 'param', name: 'max', ...at };
    const withTwo = read(below(param), { max: 2n });
    assert.deepEqual(idsOf(withTwo), [0, 1]);
    assert.equal(read(below(param), { max: 2n }), withTwo, 'the same value: the same set');
    assert.deepEqual(idsOf(read(below(param), { max: 5n })), [0, 1, 2, 3, 4], 'another value: its own set');
    assert.deepEqual(idsOf(read(below(param), { max: '5' })), [], 'a string is not the integer 5 (no number is below a string)');
    assert.deepEqual(idsOf(read(below(param), { max: 2n })), [0, 1]);

    // An edge changes no column: the set stands. A commit that writes a bucket: made again.
    await store.write((w) => w.createEdge('E', 0, 1, {}));
    assert.equal(read(below(constant(3n))), first, 'an edge changes no column: the set stands');
    await t.write(
      [q(null, { set_property: { input: { nodes: { reference: { ids: [9] } } }, name: 'bucket', value: { value: { i64: 1 } } } })],
      [],
    );
    const after = read(below(constant(3n)));
    assert.notEqual(after, first, 'a commit changed the columns');
    assert.deepEqual(idsOf(after), [0, 1, 2, 9], 'node 9 moved below 3');
    assert.equal(read(below(constant(3n))), after);
    // A rolled-back batch changes nothing.
    await assert.rejects(
      t.write(
        [
          q(null, { set_property: { input: { nodes: { reference: { ids: [8] } } }, name: 'bucket', value: { value: { i64: 0 } } } }),
          q(null, { drop: { input: { nodes: { reference: { ids: [12345] } } } } }),
          q(null, { add_n: { label: 'Doc', properties: [['bucket', { expr: { param: 'unbound' } }]] } }),
        ],
        [],
      ),
    );
    assert.equal(read(below(constant(3n))), after, 'a rolled-back batch changed no column: the set stands');
    assert.deepEqual(idsOf(after), [0, 1, 2, 9], 'a rolled-back batch left no trace');

    // Not kept: the clock, a residual conjunct (made again every time, and right).
    const clock = docs(compare('lt', property('bucket'), { e: 'date_time_now', ...at }));
    assert.notEqual(read(clock), read(clock), 'a conjunct that reads the clock is made at every search');
    const residual = docs(compare('lt', { e: 'add', left: property('bucket'), right: constant(0n), ...at }, constant(3n)));
    const r1 = read(residual);
    assert.deepEqual(idsOf(r1), [0, 1, 2, 9]);
    assert.notEqual(read(residual), r1, 'a conjunct evaluated on records is made at every search');

    // A write batch makes it on every call, and sees its own writes.
    const inBatch = await store.write((w) => {
      const x = new Exec(w, w, new Map(), EXECUTORS, false, () => {});
      const before = candidateIds(x, below(constant(3n)));
      w.putNode({ id: 5, label: 'Doc', props: { bucket: 0n } });
      const again = candidateIds(x, below(constant(3n)));
      return [before !== again, idsOf(before), idsOf(again)];
    });
    assert.deepEqual(inBatch, [true, [0, 1, 2, 9], [0, 1, 2, 5, 9]]);
    assert.deepEqual(idsOf(read(below(constant(3n)))), [0, 1, 2, 5, 9], 'the batch committed');
  } finally {
    await t.close();
  }
});
