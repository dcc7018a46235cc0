/** Property values round-trip exactly through LMDB, kinds included (bigint vs number etc.). */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openStore } from '../../src/store/index.js';
import { DateTime, type Value, type ValueObject } from '../../src/core/value.js';
import { tempDir } from '../helpers/server.js';

const dirs: { remove(): void }[] = [];
after(() => dirs.forEach((d) => d.remove()));

function newDir(): string {
  const dir = tempDir('trellis-store-codec-');
  dirs.push(dir);
  return dir.path;
}

const everyKind: ValueObject = {
  nil: null,
  yes: true,
  no: false,
  small: 5n,
  big: 9_007_199_254_740_993n,
  max: (1n << 63n) - 1n,
  min: -(1n << 63n),
  whole: 5,
  frac: 1.25,
  negZero: -0,
  f32: Math.fround(0.1),
  nan: Number.NaN,
  inf: Number.NEGATIVE_INFINITY,
  str: 'héllo 🌍',
  empty: '',
  when: new DateTime(1_700_000_000_123),
  bytes: new Uint8Array([0, 1, 254, 255]),
  i64s: new BigInt64Array([1n, -(1n << 63n), (1n << 62n) + 1n]),
  f64s: new Float64Array([1, 2.5, -0.5]),
  f32s: new Float32Array([0.1, 3]),
  list: ['a', 1n, 2.5, null, -0, [true, { deep: new DateTime(0), z: -0 }]],
  obj: { nested: { x: 1n, y: [] }, k: {} },
};

/** deepStrictEqual plus the kind checks it does not make (DateTime and typed-array classes). */
function assertSame(actual: unknown, expected: unknown, path = '$'): void {
  if (expected instanceof DateTime) {
    assert.ok(actual instanceof DateTime, `${path}: expected DateTime`);
    assert.equal(actual.ms, expected.ms, path);
    return;
  }
  if (ArrayBuffer.isView(expected)) {
    assert.equal(Object.getPrototypeOf(actual), Object.getPrototypeOf(expected), `${path}: class`);
  }
  assert.deepStrictEqual(actual, expected, path);
}

test('a node with every value kind round-trips, also after close and reopen', async () => {
  const path = newDir();
  let store = await openStore({ path });
  const id = await store.write((w) => w.createNode('Kinds', everyKind));
  assertSame(
    store.read((r) => r.getNode(id)?.props),
    everyKind,
  );
  const nodeId = await store.write((w) => w.createEdge('E', id, id, everyKind));
  await store.close();
  store = await openStore({ path });
  const node = store.read((r) => r.getNode(id));
  assert.ok(node);
  for (const [k, v] of Object.entries(everyKind)) assertSame(node.props[k], v, k);
  assert.equal(typeof node.props['small'], 'bigint');
  assert.equal(typeof node.props['whole'], 'number');
  assertSame(
    store.read((r) => r.getEdge(nodeId)?.props),
    everyKind,
  );
  await store.close();
});

const leaf: fc.Arbitrary<Value> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }),
  fc.double(),
  fc.constant(-0),
  fc.integer().map((i) => i),
  fc.string({ unit: 'grapheme' }),
  fc.integer({ min: -8.64e15, max: 8.64e15 }).map((ms) => new DateTime(ms)),
  fc.uint8Array().map((b) => new Uint8Array(b)),
  fc.array(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n })).map((a) => BigInt64Array.from(a)),
  fc.array(fc.double()).map((a) => Float64Array.from(a)),
  fc.array(fc.float()).map((a) => Float32Array.from(a)),
);
// "__proto__" is renamed by msgpackr on decode (a safety measure): a documented limit.
const key = fc.string().filter((k) => k !== '__proto__');
const value: fc.Arbitrary<Value> = fc.letrec<{ v: Value }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('v')),
    fc.dictionary(key, tie('v'), { noNullPrototype: true }) as fc.Arbitrary<Value>,
  ),
})).v;

test('property: random values round-trip through put and get', async () => {
  const store = await openStore({ path: newDir() });
  await fc.assert(
    fc.asyncProperty(fc.dictionary(key, value, { noNullPrototype: true }), async (props) => {
      const id = await store.write((w) => w.createNode('P', props));
      assertSame(
        store.read((r) => r.getNode(id)?.props),
        props,
      );
    }),
    { numRuns: 200 },
  );
  await store.close();
});
