/**
 * The parser's table mode (ParseJsonOptions.tables): arrays of uniform flat rows come out
 * column by column, and everything else, errors included, exactly as without it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JsonSyntaxError, parseJson } from '../../src/core/json.js';
import type { RowTable } from '../../src/core/row-table.js';

/** Tables back as the rows they stand for, tagged so a test can tell they were tables. */
const asRows = (table: RowTable): unknown => ({
  table: table.columns.map((c) => c.kind),
  rows: Array.from({ length: table.length }, (_, i) =>
    Object.fromEntries(
      table.keys.map((k, c) => {
        const col = table.columns[c]!;
        return [k, col.kind === 'int' ? BigInt(col.values[i]!) : col.values[i]];
      }),
    ),
  ),
});
const withTables = (text: string, minRows = 3) => parseJson(text, { tables: { minRows, make: asRows } });
/** What table mode must come back to: the plain parse, with each table's rows in place. */
function untag(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(untag);
  if (v !== null && typeof v === 'object') {
    if ('table' in v && 'rows' in v) return (v as { rows: unknown[] }).rows.map(untag);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, untag(x)]));
  }
  return v;
}

describe('parseJson table mode', () => {
  it('parses uniform rows as int, float and value columns', () => {
    const text = '{"rows":[{"a":1,"b":1.5,"c":"x"},{"a":-0,"b":-0.0,"c":null},{"a":3,"b":-4.25,"c":true}]}';
    const parsed = withTables(text) as { rows: { rows: { b: number }[] } };
    assert.deepEqual(parsed, {
      rows: {
        table: ['int', 'float', 'any'],
        rows: [
          { a: 1n, b: 1.5, c: 'x' },
          { a: 0n, b: -0, c: null },
          { a: 3n, b: -4.25, c: true },
        ],
      },
    });
    // The float -0.0 keeps its sign (the integer token -0 is 0, as in the ordinary parse).
    assert.ok(Object.is(parsed.rows.rows[1]!.b, -0));
  });

  it('turns a column of mixed kinds or of long integers into values, exactly', () => {
    const text = '[{"a":1,"b":12345678901234567890},{"a":2.5,"b":1},{"a":3,"b":2}]';
    assert.deepEqual(withTables(text), {
      table: ['any', 'any'],
      rows: [
        { a: 1n, b: 12345678901234567890n },
        { a: 2.5, b: 1n },
        { a: 3n, b: 2n },
      ],
    });
  });

  it('leaves short arrays, differing rows, nested values and escaped keys to the ordinary parse', () => {
    for (const text of [
      '[{"a":1},{"a":2}]',
      '[{"a":1},{"a":2},{"b":3}]',
      '[{"a":1,"b":2},{"b":1,"a":2},{"a":1,"b":2}]',
      '[{"a":1},{"a":2},{"a":3,"b":4}]',
      '[{"a":1},{"a":[2]},{"a":3}]',
      '[{"a":1},{"\\u0061":2},{"a":3}]',
      '[{"\\u0061":1},{"\\u0061":2},{"\\u0061":3}]',
      '[{"a\\"b":1},{"a\\"b":2},{"a\\"b":3}]',
      '[{},{},{}]',
    ]) {
      assert.deepEqual(withTables(text), parseJson(text), text);
    }
  });

  it('reports every error as the ordinary parse does', () => {
    for (const text of [
      '[{"a":1},{"a":2},{"a":01}]',
      '[{"a":1,"a":2},{"a":2},{"a":3}]',
      '[{"a":1},{"a":2},{"a":1e999}]',
      '[{"a":1},{"a":2},{"a":3}',
      '[{"a":1},{"a":2},{"a":3},]',
      '[{"a":1},{"a":"\\ud800"},{"a":3}]',
      `[{"a":1},{"a":2},{"a":${'9'.repeat(401)}}]`,
      // A first-row key written with an escape whose text may not stand raw in JSON.
      '[{"a\\"b":1},{"a"b":1},{"a"b":1}]',
      '[{"k\\t":1},{"k\t":1},{"k\t":1}]',
      '[{"x\\\\":1},{"x\\":1},{"x\\":1}]',
    ]) {
      const plain = (() => {
        try {
          parseJson(text);
        } catch (err) {
          return err;
        }
        return null;
      })();
      assert.ok(plain instanceof JsonSyntaxError, text);
      assert.throws(
        () => withTables(text),
        (err: unknown) => err instanceof JsonSyntaxError && err.message === plain.message,
        text,
      );
    }
    // Rows one level too deep fail on depth as before.
    assert.throws(
      () => parseJson('[[{"a":1},{"a":2},{"a":3}]]', { maxDepth: 2, tables: { minRows: 1, make: asRows } }),
      /nesting deeper than 2 levels/,
    );
  });

  it('gives the same values as the ordinary parse for any rows (property)', () => {
    const scalar = fc.oneof(
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string(),
      fc.boolean(),
      fc.constant(null),
    );
    // Each key's column is all small integers, all doubles, or any scalars, so typed columns occur.
    const columnKinds = [fc.bigInt({ min: -(2n ** 53n), max: 2n ** 53n }), fc.double({ noNaN: true, noDefaultInfinity: true }), scalar];
    const rows = fc.uniqueArray(fc.string({ maxLength: 3 }), { minLength: 1, maxLength: 4 }).chain((keys) =>
      fc.tuple(...keys.map(() => fc.integer({ min: 0, max: 2 }))).chain((kinds) =>
        fc.array(
          fc.tuple(...kinds.map((k) => columnKinds[k]!)).map((values) => Object.fromEntries(keys.map((k, i) => [k, values[i]]))),
          { minLength: 0, maxLength: 12 },
        ),
      ),
    );
    const json = (v: unknown): string =>
      JSON.stringify(v, (_k, x) =>
        typeof x === 'bigint'
          ? `@@${x}@@`
          : typeof x === 'number'
            ? `@@${Object.is(x, -0) ? '-0.0' : Number.isInteger(x) && Math.abs(x) < 1e15 ? `${x}.0` : String(x)}@@`
            : x,
      ).replace(/"@@(-?[0-9.e+]+)@@"/g, '$1');
    fc.assert(
      fc.property(rows, (value) => {
        const text = json({ rows: value, other: [value] });
        assert.deepEqual(untag(withTables(text)), parseJson(text));
      }),
      { numRuns: 300 },
    );
  });
});
