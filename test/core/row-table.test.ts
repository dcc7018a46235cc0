/**
 * Row tables: arrays of uniform rows held column by column (src/core/row-table.ts). They must
 * be invisible: the same rows back, the same array to any code that looks, and a bulk
 * for_each over a table (parsed, or carried to the writer) gives the same answer, graph and
 * errors as over the plain objects.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { open, type Database } from '../../src/index.js';
import { preparePlan, runWrite } from '../../src/database.js';
import { decodeMessage, encodeMessage, fromPlanMessage, toPlanMessage } from '../../src/protocol/codec.js';
import type { PlanMessage } from '../../src/protocol/messages.js';
import { stringifyJson } from '../../src/core/json.js';
import { MIN_TABLE_ROWS, rowObject, tableArray, tableOf, tabulate } from '../../src/core/row-table.js';
import type { Value } from '../../src/core/value.js';
import { tempDir } from '../helpers/server.js';

const dirs: { remove(): void }[] = [];
after(() => dirs.forEach((d) => d.remove()));

async function fresh(): Promise<Database> {
  const dir = tempDir('trellis-table-');
  dirs.push(dir);
  return open(dir.path);
}

const rows = (n: number, row: (i: number) => Record<string, Value>): Value[] => Array.from({ length: n }, (_, i) => row(i));

test('uniform rows become typed columns where every value allows it, and come back exactly', () => {
  const value = rows(100, (i) => ({
    id: BigInt(i),
    score: i + 0.5,
    name: `n${i}`,
    big: i === 7 ? 2n ** 60n : BigInt(i),
    mixed: i % 2 === 0 ? 1n : 1.5,
  }));
  const table = tabulate(value)!;
  assert.deepEqual(table.keys, ['id', 'score', 'name', 'big', 'mixed']);
  assert.deepEqual(
    table.columns.map((c) => c.kind),
    ['int', 'float', 'any', 'any', 'any'],
  );
  assert.deepEqual(
    Array.from({ length: 100 }, (_, i) => rowObject(table, i)),
    value,
  );
  // 2^53 - 1 is the last integer a double holds exactly; one more is not a typed column.
  assert.equal(tabulate(rows(MIN_TABLE_ROWS, (i) => ({ v: i === 0 ? 2n ** 53n - 1n : 0n })))!.columns[0]!.kind, 'int');
  assert.equal(tabulate(rows(MIN_TABLE_ROWS, (i) => ({ v: i === 0 ? -(2n ** 53n) : 0n })))!.columns[0]!.kind, 'any');
});

test('short arrays, rows with other keys or key order, and non-objects stay arrays', () => {
  assert.equal(tabulate(rows(MIN_TABLE_ROWS - 1, (i) => ({ a: BigInt(i) }))), null);
  assert.equal(tabulate(rows(100, (i) => (i === 50 ? { b: 1n, a: 1n } : { a: 1n, b: 1n }))), null);
  assert.equal(tabulate(rows(100, (i): Record<string, Value> => (i === 50 ? { a: 1n } : { a: 1n, b: 1n }))), null);
  assert.equal(tabulate(rows(100, (i): Record<string, Value> => (i === 99 ? { a: 1n, b: 1n, c: 1n } : { a: 1n, b: 1n }))), null);
  assert.equal(tabulate([...rows(99, () => ({ a: 1n })), [1n] as Value]), null);
  assert.equal(tabulate('text'), null);
});

test('a table array is an ordinary array to whoever looks, built on first look', () => {
  const value = rows(80, (i) => ({ a: BigInt(i), b: `x${i}` }));
  const array = tableArray(tabulate(value)!);
  assert.ok(tableOf(array));
  assert.equal(tableOf(value), undefined);
  assert.ok(Array.isArray(array));
  assert.equal(array.length, 80);
  assert.deepEqual(array[3], { a: 3n, b: 'x3' });
  assert.deepEqual([...array], value);
  assert.equal(stringifyJson(array), stringifyJson(value));
  assert.deepEqual(array.map((r) => (r as { a: bigint }).a).slice(0, 3), [0n, 1n, 2n]);
});

/** Every node and edge with its properties, as the store has them. */
async function dump(db: Database): Promise<string> {
  const read = (root: unknown) => ({ query: { name: 'x', root } });
  const nodes = await db.queryText({
    request_type: 'read',
    query: { read: { entries: [read({ nodes: { reference: 'all' } })], returns: ['x'] } },
  });
  const edges = await db.queryText({
    request_type: 'read',
    query: { read: { entries: [read({ edge_properties: { input: { edges: { reference: 'all' } } } })], returns: ['x'] } },
  });
  return nodes + edges;
}

/**
 * The answer (or error) and resulting graph of one write request three ways: embedded (the
 * parser makes row tables), through the writer's message path (tables as typed arrays),
 * and with every table replaced by its plain array of row objects (the baseline).
 */
async function threeWays(
  text: string,
): Promise<{ embedded: string; viaMessage: string; plain: string; parsedTable: boolean; messageTable: boolean }> {
  const outcome = (p: Promise<string>) =>
    p.then(
      (body) => `ok ${body}`,
      (err: { code?: string; msg?: string }) => `error ${err.code}: ${err.msg}`,
    );
  const setup = JSON.stringify({
    request_type: 'write',
    query: {
      write: {
        entries: [
          {
            for_each: {
              param: 'rows',
              body: [{ query: { root: { add_n: { label: 'P', properties: [['k', { expr: { param: 'k' } }]] } } } }],
            },
          },
        ],
        returns: [],
      },
    },
    parameters: { rows: Array.from({ length: 10 }, (_, k) => ({ k })) },
  });
  const run = async (write: (db: Database) => Promise<string>): Promise<string> => {
    const db = await fresh();
    await db.queryText(setup);
    const result = (await outcome(write(db))) + (await dump(db));
    await db.close();
    return result;
  };
  const parsed = preparePlan(text);
  const parsedTable = tableOf(parsed.params.get('rows')!) !== undefined;
  const carried = fromPlanMessage(decodeMessage<PlanMessage>(encodeMessage(toPlanMessage(preparePlan(text)))));
  const messageTable = tableOf(carried.params.get('rows')!) !== undefined;
  const viaMessage = await run((db) => runWrite(db.store, carried, { timeoutMs: 30_000 }));
  const plainParams = new Map(
    [...parsed.params].map(([k, v]): [string, Value] => [k, tableOf(v) === undefined ? v : Array.from(v as Value[])]),
  );
  assert.ok([...plainParams.values()].every((v) => tableOf(v) === undefined));
  const plain = await run((db) => runWrite(db.store, { ...parsed, params: plainParams }, { timeoutMs: 30_000 }));
  const embedded = await run((db) => db.queryText(text));
  return { embedded, viaMessage, plain, parsedTable, messageTable };
}

const edgeLoad = (rowsOf: (i: number) => unknown, returns: string[] = ['last'], extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    request_type: 'write',
    query: {
      write: {
        entries: [
          {
            for_each: {
              param: 'rows',
              body: [
                {
                  query: {
                    root: {
                      add_e: {
                        input: { nodes: { reference: { param: 'a' } } },
                        label: 'E',
                        to: { param: 'b' },
                        properties: [
                          ['w', { expr: { param: 'w' } }],
                          ['c', { value: { string: 'lit' } }],
                        ],
                      },
                    },
                  },
                },
              ],
            },
          },
          { query: { name: 'last', root: { count: { input: { edges: { reference: 'all' } } } } } },
        ],
        returns,
      },
    },
    parameters: { rows: Array.from({ length: 100 }, (_, i) => rowsOf(i)), ...extra },
  });

// The parser tabulates flat rows only; the message path also rows with nested values.
for (const [name, text, flat] of [
  ['ids and properties from columns', edgeLoad((i) => ({ a: i % 10, b: (i * 7) % 10, w: i * 0.25 })), true],
  ['an outer parameter where the row has no field', edgeLoad((i) => ({ a: i % 10, b: 3 }), ['last'], { w: 'outer' }), true],
  ['a missing source adds nothing', edgeLoad((i) => ({ a: i === 40 ? 500 : i % 10, b: 1, w: 1 })), true],
  ['a missing target fails the whole request', edgeLoad((i) => ({ a: 1, b: i === 60 ? 500 : 2, w: 1 })), true],
  ['id lists take the generic path', edgeLoad((i) => ({ a: i === 5 ? [1, 2] : 3, b: 4, w: 1 })), false],
  ['a float id is refused as on the generic path', edgeLoad((i) => ({ a: i === 70 ? 1.5 : 3, b: 4, w: 1 })), true],
  ['a negative id is refused as on the generic path', edgeLoad((i) => ({ a: i === 70 ? -1 : 3, b: 4, w: 1 })), true],
] as const) {
  test(`a bulk for_each over a table matches the objects: ${name}`, async () => {
    const { embedded, viaMessage, plain, parsedTable, messageTable } = await threeWays(text);
    assert.equal(parsedTable, flat, 'the parser made flat rows a table');
    assert.ok(messageTable, 'the rows travelled to the writer as a table');
    assert.equal(embedded, plain);
    assert.equal(viaMessage, plain);
  });
}

test('a table parameter used as a plain value elsewhere is the same array', async () => {
  const text = JSON.stringify({
    request_type: 'write',
    query: {
      write: {
        entries: [{ query: { name: 'x', root: { add_n: { label: 'Holder', properties: [['all', { expr: { param: 'rows' } }]] } } } }],
        returns: ['x'],
      },
    },
    parameters: { rows: Array.from({ length: 70 }, (_, i) => ({ i, s: `s${i}` })) },
  });
  const { embedded, viaMessage, plain, parsedTable, messageTable } = await threeWays(text);
  assert.ok(parsedTable && messageTable);
  assert.equal(embedded, plain);
  assert.equal(viaMessage, plain);
});

test('bad values in a table parameter are reported where the rows as objects would report them', () => {
  const error = (text: string) => {
    try {
      preparePlan(text);
    } catch (err) {
      return `${(err as { code?: string }).code}: ${(err as Error & { msg?: string }).msg}`;
    }
    return 'no error';
  };
  const request = (rows: string[]) =>
    `{"request_type":"write","query":{"write":{"entries":[{"for_each":{"param":"rows","body":[{"query":{"root":{"add_n":{"label":"P","properties":[]}}}}]}}],"returns":[]}},"parameters":{"rows":[${rows.join(',')}]}}`;
  // The same rows, as a table and (a key written with an escape in row 1) as objects.
  const cases: [string, string][] = [
    ['{"a":99999999999999999999,"__proto__":1}', '{"a":1,"__proto__":1}'],
    ['{"b":99999999999999999999,"1":99999999999999999999}', '{"b":1,"1":1}'],
    ['{"s":"x","v":1e999}', '{"s":"x","v":1.5}'],
  ];
  for (const [first, rest] of cases) {
    const escaped = rest.replace(/"([a-z])"/, (_m, c: string) => `"\\u00${c.charCodeAt(0).toString(16)}"`);
    const tabled = request([first, ...Array.from({ length: 69 }, () => rest)]);
    const plain = request([first, escaped, ...Array.from({ length: 68 }, () => rest)]);
    assert.equal(error(tabled), error(plain), first);
    assert.notEqual(error(plain), 'no error');
  }
});
