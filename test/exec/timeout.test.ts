/**
 * A query that runs past its execution budget stops with 408 query_timeout, whatever it
 * was doing, and a write batch that times out keeps nothing; Cypher statements alike. The
 * budget is set very low here so that a query which would run for hours trips it at once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { open, type Database } from '../../src/index.js';
import { GraphError } from '../../src/core/errors.js';
import { post, readRequest, startTestServer, tempDir } from '../helpers/server.js';

const dir = tempDir();
let db: Database;

/** A complete graph of 40 nodes: five hops from every node is 40^6 ≈ 4e9 rows of work. */
const COMPLETE = 40;
const hops = (n: number) => {
  let t: unknown = { nodes: { reference: 'all' } };
  for (let k = 0; k < n; k++) t = { out: { input: t } };
  return t;
};
const explode = { count: { input: hops(5) } };

before(async () => {
  // The data is written under the default budget: on a loaded machine the setup alone can
  // outlast 200 ms. The database the tests use has the 200 ms budget.
  const setup = await open(dir.path);
  const rows = Array.from({ length: COMPLETE }, (_, i) => ({ i }));
  const pairs = rows.flatMap((a) => rows.filter((b) => b.i !== a.i).map((b) => ({ a: a.i, b: b.i })));
  await setup.query({
    request_type: 'write',
    query: {
      write: {
        entries: [
          {
            for_each: {
              param: 'rows',
              body: [{ query: { root: { add_n: { label: 'K', properties: [['i', { expr: { param: 'i' } }]] } } } }],
            },
          },
        ],
        returns: [],
      },
    },
    parameters: { rows },
  });
  await setup.query({
    request_type: 'write',
    query: {
      write: {
        entries: [
          {
            for_each: {
              param: 'pairs',
              body: [
                {
                  query: {
                    root: { add_e: { input: { nodes: { reference: { param: 'a' } } }, label: 'E', to: { param: 'b' }, properties: [] } },
                  },
                },
              ],
            },
          },
        ],
        returns: [],
      },
    },
    parameters: { pairs },
  });
  await setup.close();
  db = await open(dir.path, { queryTimeoutMs: 200 });
});
after(async () => {
  await db.close();
  dir.remove();
});

const isTimeout = (err: unknown) => {
  assert.ok(err instanceof GraphError, String(err));
  assert.equal(err.code, 'query_timeout');
  assert.equal(err.status, 408);
  assert.match(err.msg, /ran longer than its 200 ms budget/);
  return true;
};

test('a read that would run for hours stops with query_timeout', async () => {
  await assert.rejects(db.query(readRequest([{ query: { name: 'n', root: explode } }], ['n']) as object), isTimeout);
  // The handle keeps serving.
  assert.deepEqual(await db.query(readRequest([{ query: { name: 'n', root: { count: { input: hops(1) } } } }], ['n']) as object), {
    n: [COMPLETE * (COMPLETE - 1)],
  });
});

test('a read loop whose iterations call no store (a gathered label scan) still stops at the budget', async () => {
  // From its second iteration the body's scan reads the label's gathered nodes, in memory:
  // the loop and the scan count their own work. 400,000 sorts of 40 nodes outlast 200 ms.
  const scan = { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'K' } } } } } };
  const body = [{ query: { name: 'r', root: { id: { input: { order_by: { input: scan, property: 'i', order: 'desc' } } } } } }];
  const request = readRequest([{ for_each: { param: 'rows', body } }], ['r']) as object;
  const rows = Array.from({ length: 400_000 }, (_, k) => ({ k }));
  await assert.rejects(db.query({ ...request, parameters: { rows } }), isTimeout);
  // The same loop over a few rows answers.
  const few = await db.query({ ...request, parameters: { rows: rows.slice(0, 3) } });
  assert.deepEqual(
    few.r,
    Array.from({ length: COMPLETE }, (_, k) => COMPLETE - 1 - k),
  );
});

test('the work of a traversal expression counts against the budget', async () => {
  // Per node, a count of 40^4 four-hop walks from that node alone: 10^8 rows in all.
  let walk: unknown = 'context';
  for (let k = 0; k < 4; k++) walk = { out: { input: walk } };
  const predicate = { gt: { left: { traversal: { root: { count: { input: walk } } } }, right: { constant: { i64: 0 } } } };
  const root = { count: { input: { where: { input: { nodes: { reference: 'all' } }, predicate } } } };
  await assert.rejects(db.query(readRequest([{ query: { name: 'n', root } }], ['n']) as object), isTimeout);
});

test('a write batch that times out commits nothing', async () => {
  const write = {
    request_type: 'write',
    query: {
      write: {
        entries: [{ query: { root: { add_n: { label: 'Doomed', properties: [] } } } }, { query: { name: 'n', root: explode } }],
        returns: ['n'],
      },
    },
  };
  await assert.rejects(db.query(write), isTimeout);
  const count = readRequest([{ query: { name: 'n', root: { count: { input: { nodes: { reference: 'all' } } } } } }], ['n']) as object;
  assert.deepEqual(await db.query(count), { n: [COMPLETE] });
});

/** The Cypher form of `explode`: five hops from every node of the complete graph. */
const EXPLODE_CYPHER = 'MATCH (a)-->(b)-->(c)-->(d)-->(e)-->(f) RETURN count(*) AS n';

test('a Cypher read that would run for hours stops with query_timeout', async () => {
  await assert.rejects(db.cypherText({ query: EXPLODE_CYPHER }), isTimeout);
});

test('a Cypher write that times out commits nothing', async () => {
  await assert.rejects(db.cypherText({ query: `CREATE (:Doomed) WITH 1 AS one ${EXPLODE_CYPHER}` }), isTimeout);
  assert.equal(await db.cypherText({ query: 'MATCH (n:Doomed) RETURN count(n) AS n' }), '{"columns":["n"],"rows":[[0]]}');
});

test('over HTTP the timeout is a 408 with a QueryError body, and the server keeps serving', async () => {
  const server = await startTestServer(['--data', dir.path, '--mode', 'reader', '--query-timeout-ms', '200']);
  try {
    const res = await post(`${server.url}/v2/query`, readRequest([{ query: { name: 'n', root: explode } }], ['n']));
    assert.equal(res.status, 408, res.text);
    assert.deepEqual(Object.keys(res.body), ['error', 'msg']);
    assert.equal(res.body.error, 'query_timeout');
    const ok = await post(
      `${server.url}/v2/query`,
      readRequest([{ query: { name: 'n', root: { count: { input: { nodes: { reference: 'all' } } } } } }], ['n']),
    );
    assert.equal(ok.text, `{"n":[${COMPLETE}]}`);
    const cypher = await post(`${server.url}/v2/cypher`, { query: EXPLODE_CYPHER });
    assert.equal(cypher.status, 408, cypher.text);
    assert.deepEqual(Object.keys(cypher.body), ['error', 'msg']);
    assert.equal(cypher.body.error, 'query_timeout');
    const cypherOk = await post(`${server.url}/v2/cypher`, { query: 'MATCH (n) RETURN count(n) AS n' });
    assert.equal(cypherOk.text, `{"columns":["n"],"rows":[[${COMPLETE}]]}`);
  } finally {
    await server.stop();
  }
});
