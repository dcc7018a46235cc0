/**
 * jsonValueOf reads a JS value as the JSON reader reads its text: the oracle is the round
 * trip it replaces, parseJson(stringifyJson(value)).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { GraphError } from '../../src/core/errors.js';
import { parseJson, stringifyJson } from '../../src/core/json.js';
import { jsonValueOf } from '../../src/core/json-value.js';
import { label, openTestDb, q } from '../helpers/embedded.js';

/** The round trip, or the fact that it failed. */
function viaText(value: unknown): unknown {
  try {
    return parseJson(stringifyJson(value));
  } catch {
    return 'failed';
  }
}

function direct(value: unknown): unknown {
  try {
    return jsonValueOf(value);
  } catch (err) {
    assert.ok(err instanceof GraphError, `a GraphError, not ${String(err)}`);
    return 'failed';
  }
}

const number = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 1e21, -1e21, 1e21 - 65536, 2 ** 53, 2 ** 64, 5e-7, 1e-6, NaN, Infinity, -Infinity, 123.0, 0.1),
);
const leaf = fc.oneof(
  number,
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom('a', '\ud800', '\udc00', '\ud83d\ude00', '"', '\\') }),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.date({ noInvalidDate: true }),
  fc.float32Array({ maxLength: 4 }),
  fc.int32Array({ maxLength: 4 }),
);
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ unit: fc.constantFrom('a', 'b', '__proto__', '\ud800', 'é') }), tie('value'), { maxKeys: 4 }),
  ),
}));

test('jsonValueOf equals the JSON round trip for any value, failing where it fails', () => {
  fc.assert(
    fc.property(value, (v) => {
      assert.deepStrictEqual(direct(v), viaText(v));
    }),
    { numRuns: 2000 },
  );
});

test('integer-valued numbers are integers as their text is: 5 and -0 as bigint, 5.5, 1e21 and 5e-7 as floats', () => {
  // 2^60 prints as 1152921504606847000, its shortest decimal, and that is the integer its text holds.
  assert.deepStrictEqual(jsonValueOf([5, -0, 5.5, 1e21, 5e-7, 2 ** 60]), [5n, 0n, 5.5, 1e21, 5e-7, 1152921504606847000n]);
});

test('a member named __proto__ stays a member', () => {
  const input = JSON.parse('{"__proto__": {"x": 1}}') as object;
  const out = jsonValueOf(input) as Record<string, unknown>;
  assert.deepStrictEqual(Object.keys(out), ['__proto__']);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
});

test('cycles, lone surrogates and deep nesting are GraphErrors with their codes', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic['self'] = cyclic;
  assert.throws(() => jsonValueOf(cyclic), { code: 'invalid_query_json', message: /contains itself/ });
  assert.throws(() => jsonValueOf({ ['k\udc00']: 1 }), { code: 'invalid_query_json', message: /lone surrogate U\+DC00/ });
  let deep: unknown = 1;
  for (let i = 0; i < 300; i++) deep = [deep];
  assert.throws(() => jsonValueOf(deep), { code: 'limit_exceeded', message: /deeper than 255 levels/ });
  assert.doesNotThrow(() => jsonValueOf(deep, { maxDepth: 300 }));
});

test('arrays of uniform rows become row tables when asked, with the same rows', () => {
  const rows = Array.from({ length: 100 }, (_, i) => ({ id: i, name: `n${i}`, score: i / 2 }));
  const made: unknown[][] = [];
  const out = jsonValueOf(
    { rows },
    {
      tables: {
        minRows: 64,
        make: (items) => {
          made.push(items);
          return items;
        },
      },
    },
  ) as { rows: unknown[] };
  assert.equal(made.length, 1);
  assert.deepStrictEqual(out.rows, parseJson(stringifyJson(rows)));
});

test('the embedded Database stores what a request object means as its text would', async () => {
  const t = await openTestDb();
  try {
    // Enough rows to be a row table; integers, floats and an integer beyond 2^53.
    const rows = Array.from({ length: 80 }, (_, i) => ({ n: i, half: i / 2, big: 2 ** 60 + i * 1024 }));
    const insert = [
      {
        for_each: {
          param: 'rows',
          body: [q('x', { add_n: { label: 'R', properties: ['n', 'half', 'big'].map((k) => [k, { expr: { param: k } }]) } })],
        },
      },
    ];
    await t.write(insert, [], { rows });
    const text = JSON.stringify({ request_type: 'write', query: { write: { entries: insert, returns: [] } }, parameters: { rows } });
    await t.db.query(text);
    const read = await t.read([q('r', { values: { input: label('R'), properties: ['n', 'half', 'big'] } })], ['r']);
    const values = read['r'] as unknown[];
    assert.equal(values.length, 160);
    assert.deepStrictEqual(values.slice(0, 80), values.slice(80), 'the object and the text stored the same values');
    assert.deepStrictEqual(values[3], { n: 3, half: 1.5, big: BigInt(String(2 ** 60 + 3 * 1024)) });
  } finally {
    await t.close();
  }
});
