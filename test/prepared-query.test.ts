/**
 * Database.prepare (src/prepared-query.ts): a request prepared once answers, run by run,
 * exactly what queryText answers for the same request with those parameters: reads,
 * writes (for_each over row tables too), typed parameters, and every error, including a
 * check that depends on a parameter's value, which is made again at every run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, type Database } from '../src/index.js';
import { GraphError } from '../src/core/errors.js';
import { tempDir } from './helpers/server.js';

const entry = (name: string, root: unknown) => ({ query: { name, root } });
const read = (root: unknown, extra: object = {}) => ({
  request_type: 'read',
  query: { read: { entries: [entry('x', root)], returns: ['x'] } },
  ...extra,
});
const older = {
  nodes_where: {
    predicate: {
      and: {
        predicates: [
          { eq: { left: { property: '$label' }, right: { constant: { string: 'P' } } } },
          { gt: { left: { property: 'age' }, right: { param: 'min' } } },
        ],
      },
    },
  },
};
const namesOlderThan = read({ values: { input: older, properties: ['name'] } });

/** Adds a node per row of `people`. */
const addRequest = {
  request_type: 'write',
  query: {
    write: {
      entries: [
        {
          for_each: {
            param: 'people',
            body: [
              entry('p', {
                add_n: {
                  label: 'P',
                  properties: [
                    ['name', { expr: { param: 'name' } }],
                    ['age', { expr: { param: 'age' } }],
                  ],
                },
              }),
            ],
          },
        },
      ],
      returns: ['p'],
    },
  },
};

/** The error a call rejects with, as code and message (null: it resolved). */
async function errorOf(call: () => Promise<unknown>): Promise<string | null> {
  try {
    await call();
    return null;
  } catch (err) {
    assert.ok(err instanceof GraphError, `a GraphError, got ${String(err)}`);
    return err.message;
  }
}

async function withDb(fn: (db: Database) => Promise<void>): Promise<void> {
  const dir = tempDir('trellis-prepared-');
  const db = await open(dir.path);
  try {
    await fn(db);
  } finally {
    await db.close();
    dir.remove();
  }
}

test('a prepared read and write answer as queryText does with the same parameters, run after run', async () => {
  await withDb(async (db) => {
    const add = db.prepare(addRequest);
    assert.equal(add.type, 'write');
    // A twin database given the same writes through queryText answers the same (ids included).
    await withDb(async (twin) => {
      // Enough rows to travel as a row table (src/core/row-table.ts).
      const people = Array.from({ length: 40 }, (_, i) => ({ name: `p${i}`, age: 20 + i }));
      for (const rows of [people, [{ name: 'big', age: 2n ** 60n }]]) {
        const want = await twin.queryText({ ...addRequest, parameters: { people: rows } });
        assert.equal(await add.queryText({ people: rows }), want);
      }
    });

    const names = db.prepare(namesOlderThan);
    assert.equal(names.type, 'read');
    for (const min of [0, 30, 58, 59, 2 ** 40, -1.5, 2n ** 59n]) {
      const want = await db.queryText({ ...namesOlderThan, parameters: { min } });
      assert.equal(await names.queryText({ min }), want, `min ${min}`);
    }
    assert.deepEqual((await names.query({ min: 57 }))['x'], [{ name: 'p38' }, { name: 'p39' }, { name: 'big' }]);

    // Typed parameters: parameter_types in the prepared request decode each run's values.
    const when = '2026-11-28T00:00:00Z';
    await db.queryText({
      request_type: 'write',
      query: {
        write: {
          entries: [
            entry('d', {
              add_n: {
                label: 'D',
                properties: [
                  ['name', { value: { string: 'dated' } }],
                  ['born', { expr: { param: 'when' } }],
                ],
              },
            }),
          ],
          returns: [],
        },
      },
      parameters: { when },
      parameter_types: { when: 'date_time' },
    });
    const bornAt = read(
      {
        values: {
          input: { nodes_where: { predicate: { eq: { left: { property: 'born' }, right: { param: 'when' } } } } },
          properties: ['name'],
        },
      },
      { parameter_types: { when: 'date_time' } },
    );
    const at = db.prepare(bornAt);
    const typed = await at.queryText({ when });
    assert.equal(typed, await db.queryText({ ...bornAt, parameters: { when } }));
    assert.deepEqual(JSON.parse(typed).x, [{ name: 'dated' }]);
    assert.deepEqual((await at.query({ when: '2026-11-29T00:00:00Z' }))['x'], []);
    assert.match((await errorOf(() => at.queryText({ when: 'not a date' })))!, /when/);
  });
});

test('a prepared request fails as queryText fails: an unbound parameter, value-dependent checks at every run, parameters in the request', async () => {
  await withDb(async (db) => {
    const names = db.prepare(namesOlderThan);
    const same = async (parameters: Record<string, unknown>) => {
      const want = await errorOf(() => db.queryText({ ...namesOlderThan, parameters }));
      assert.equal(
        await errorOf(() => names.queryText(parameters)),
        want,
        JSON.stringify(parameters, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)),
      );
      return want;
    };
    assert.match((await same({}))!, /invalid_query: .*parameter "min" is not bound/);
    assert.equal(await same({ min: 1 }), null);
    // A comparison with an operand of a kind that has no order is refused before it runs:
    // a check that reads the parameter's value, so made again at every run.
    assert.notEqual(await same({ min: { a: 1 } }), null);
    assert.equal(await same({ min: 2 }), null);
    assert.notEqual(await same({ min: [1, 2] }), null);
    assert.equal(await same({ min: 3 }), null);
    assert.match((await errorOf(() => names.queryText([] as unknown as object)))!, /parameters: expected an object/);
    assert.match(
      (await errorOf(() => names.queryText({ min: 1 }, { awaitDurable: true })))!,
      /awaitDurable is only valid for write requests/,
    );
    // The request itself is read once, when prepared.
    assert.throws(
      () => db.prepare({ ...namesOlderThan, parameters: { min: 1 } }),
      /invalid_query_json: parameters: a prepared request is given its parameters at each run/,
    );
    assert.throws(() => db.prepare('{"request_type": "read"'), /invalid_query_json/);
    assert.throws(() => db.prepare(read({ no_such_op: {} })), /invalid_query_json/);
  });
});

test('a prepared write on a read-only database is refused as queryText refuses it', async () => {
  const dir = tempDir('trellis-prepared-ro-');
  try {
    const db = await open(dir.path);
    await db.close();
    const ro = await open(dir.path, { readOnly: true });
    try {
      const write = {
        request_type: 'write',
        query: { write: { entries: [entry('n', { add_n: { label: 'P', properties: [] } })], returns: ['n'] } },
      };
      const want = await errorOf(() => ro.queryText(write));
      assert.match(want!, /writer_mode_required/);
      assert.equal(await errorOf(() => ro.prepare(write).queryText()), want);
    } finally {
      await ro.close();
    }
  } finally {
    dir.remove();
  }
});
