/**
 * POST /v2/cypher and /v2/cypher/explain end to end against real server processes: a
 * writer, a `--mode reader` server on the same folder, and a server with `--cypher false`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { countLabel, get, post, postLarge, readRequest, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { INLINE_BODY_BYTES } from '../../src/server/inline-queries.js';

const dir = tempDir();
const offDir = tempDir();
let writer: TestServer | undefined;
let reader: TestServer | undefined;
let off: TestServer | undefined;

before(async () => {
  writer = await startTestServer(['--data', dir.path]);
  [reader, off] = await Promise.all([
    startTestServer(['--data', dir.path, '--mode', 'reader']),
    startTestServer(['--data', offDir.path, '--cypher', 'false']),
  ]);
});

after(async () => {
  await Promise.all([writer?.stop(), reader?.stop(), off?.stop()]);
  dir.remove();
  offDir.remove();
});

const cypher = (server: TestServer | undefined, body: unknown, headers: Record<string, string> = {}) =>
  post(`${server!.url}/v2/cypher`, body, headers);
const explain = (server: TestServer | undefined, body: unknown, headers: Record<string, string> = {}) =>
  post(`${server!.url}/v2/cypher/explain`, body, headers);

/** A request error: the status and code, and only `error` and `msg` in the body. */
function requestError(res: { status: number; body: any; text: string }, status: number, error: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error, error, res.text);
  assert.deepEqual(Object.keys(res.body), ['error', 'msg'], res.text);
}

/** A Cypher error: `{error, msg, details: {detail, phase, span}}`. */
function cypherError(res: { status: number; body: any; text: string }, status: number, error: string, detail: string, phase: string): any {
  assert.equal(res.status, status, res.text);
  assert.deepEqual(Object.keys(res.body), ['error', 'msg', 'details'], res.text);
  assert.equal(res.body.error, error, res.text);
  assert.equal(res.body.details.detail, detail, res.text);
  assert.equal(res.body.details.phase, phase, res.text);
  return res.body.details;
}

// ---- what needs no lowering ----

test('request shape errors are 400 invalid_query_json with {error, msg}: bad JSON, unknown key, no query, bad envelopes', async () => {
  for (const server of [writer, reader]) {
    requestError(await cypher(server, '{"query": "RETURN 1",'), 400, 'invalid_query_json');
    requestError(await cypher(server, { query: 'RETURN 1', params: {} }), 400, 'invalid_query_json');
    requestError(await cypher(server, { parameters: {} }), 400, 'invalid_query_json');
    requestError(await cypher(server, { query: ['RETURN 1'] }), 400, 'invalid_query_json');
    requestError(await cypher(server, '[]'), 400, 'invalid_query_json');
    const tag = await cypher(server, { query: 'RETURN $x', parameters: { x: { $type: 'date', value: '2020-01-01' } } });
    requestError(tag, 400, 'invalid_query_json');
    assert.match(tag.body.msg, /parameters\.x: unknown "\$type" "date"/);
    const big = await cypher(server, '{"query": "RETURN $x", "parameters": {"x": [9223372036854775808]}}');
    requestError(big, 400, 'invalid_query_json');
    assert.match(big.body.msg, /parameters\.x\[0\]: the integer 9223372036854775808 is outside the 64-bit range/);
    const envelope = await cypher(server, { query: 'RETURN $x', parameters: { x: { $type: 'integer', value: '18446744073709551615' } } });
    requestError(envelope, 400, 'invalid_query_json');
    requestError(await explain(server, { query: 'RETURN 1', extra: true }), 400, 'invalid_query_json');
  }
});

test('a syntax error is 400 syntax_error with details {detail, phase: compile, span} in UTF-8 bytes of the query', async () => {
  const query = "RETURN 'ünïcødé €' AS x, )";
  const at = Buffer.byteLength(query.slice(0, query.indexOf(')')));
  assert.notEqual(at, query.indexOf(')'), 'the span counts bytes, not characters');
  for (const res of [await cypher(writer, { query }), await cypher(reader, { query }), await explain(writer, { query })]) {
    const details = cypherError(res, 400, 'syntax_error', 'UnexpectedSyntax', 'compile');
    assert.deepEqual(details.span, { start: at, end: at + 1 });
  }
});

test('headers come first: a bad option header is 400 invalid_request_option whatever the body', async () => {
  requestError(await cypher(writer, '{not json', { 'X-Svc-Warm': 'maybe' }), 400, 'invalid_request_option');
  requestError(await explain(writer, { query: 'RETURN )' }, { 'X-Svc-Await-Durable': 'yes' }), 400, 'invalid_request_option');
  requestError(
    await cypher(reader, { query: 'CREATE (:X)' }, { 'X-Svc-Require-Writer': 'true', 'x-svc-warm': '2' }),
    400,
    'invalid_request_option',
  );
});

test('a body over 16 MiB is 413 payload_too_large before it is parsed', async () => {
  const body = Buffer.alloc(16 * 1024 * 1024 + 1, 0x20);
  requestError(await postLarge(`${writer!.url}/v2/cypher`, body), 413, 'payload_too_large');
});

test('other methods are 405 with Allow: POST; --cypher false makes both routes 404 not_found', async () => {
  const res = await fetch(`${writer!.url}/v2/cypher/explain`);
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'POST');
  await res.text();
  requestError(await cypher(off, { query: 'RETURN 1' }), 404, 'not_found');
  requestError(await explain(off, { query: 'RETURN 1' }), 404, 'not_found');
  const q = await post(`${off!.url}/v2/query`, readRequest([countLabel('c', 'Any')], ['c']));
  assert.deepEqual([q.status, q.body], [200, { c: [0] }]);
});

test('metrics count the Cypher routes under their own paths', async () => {
  await cypher(writer, { query: 'RETURN )' });
  await explain(writer, { query: 'RETURN )' });
  const metrics = await fetch(`${writer!.url}/metrics`).then((r) => r.text());
  assert.match(metrics, /route="\/v2\/cypher"/);
  assert.match(metrics, /route="\/v2\/cypher\/explain"/);
});

// ---- what needs the lowering ----

test('reads and writes: columns and rows, a write without RETURN, nodes as $type objects', async () => {
  const created = await cypher(writer, { query: "CREATE (p:Person {name: 'Ann', age: 30}) RETURN p.name AS name" });
  assert.deepEqual([created.status, created.body], [200, { columns: ['name'], rows: [['Ann']] }], created.text);
  const bare = await cypher(writer, { query: "CREATE (:Person {name: 'Bob', age: 41})" });
  assert.deepEqual([bare.status, bare.body], [200, { columns: [], rows: [] }], bare.text);
  const read = await cypher(writer, {
    query: 'MATCH (p:Person) WHERE p.age > $min RETURN p.name AS name, p.age AS age ORDER BY name',
    parameters: { min: 20 },
  });
  assert.deepEqual(read.body, {
    columns: ['name', 'age'],
    rows: [
      ['Ann', 30],
      ['Bob', 41],
    ],
  });
  const node = await cypher(reader, { query: "MATCH (p:Person {name: 'Ann'}) RETURN p" });
  assert.equal(node.status, 200, node.text);
  const [[cell]] = node.body.rows;
  assert.deepEqual(
    { ...cell, id: typeof cell.id },
    { $type: 'node', id: 'string', labels: ['Person'], properties: { name: 'Ann', age: 30 } },
  );
  const q = await post(`${writer!.url}/v2/query`, readRequest([countLabel('c', 'Person')], ['c']));
  assert.deepEqual(q.body, { c: [2] }, 'Cypher writes are the same graph /v2/query reads');
});

test('headers against the effect: warm on a write, await-durable on a read: 400; warm reads and durable writes run', async () => {
  requestError(await cypher(writer, { query: 'CREATE (:Warm)' }, { 'X-Svc-Warm': 'true' }), 400, 'invalid_request_option');
  requestError(await cypher(writer, { query: 'RETURN 1 AS one' }, { 'X-Svc-Await-Durable': 'true' }), 400, 'invalid_request_option');
  const warm = await cypher(writer, { query: 'RETURN 1 AS one' }, { 'X-Svc-Warm': 'true' });
  assert.deepEqual([warm.status, warm.body], [200, { columns: ['one'], rows: [[1]] }]);
  const durable = await cypher(writer, { query: 'CREATE (:Durable) RETURN 1 AS one' }, { 'X-Svc-Await-Durable': 'true' });
  assert.deepEqual([durable.status, durable.body], [200, { columns: ['one'], rows: [[1]] }]);
  const relaxed = await cypher(writer, { query: 'RETURN 2 AS two' }, { 'X-Svc-Await-Durable': 'false' });
  assert.equal(relaxed.status, 200, 'await-durable false is accepted on a read');
  const required = await cypher(writer, { query: 'RETURN 3 AS three' }, { 'X-Svc-Require-Writer': 'true' });
  assert.equal(required.status, 200, 'a writer takes reads that require one');
});

test('reader mode: a writing statement or X-Svc-Require-Writer is 503 access_mode_error; reads and explains run', async () => {
  requestError(await cypher(reader, { query: 'CREATE (:Refused)' }), 503, 'access_mode_error');
  requestError(await cypher(reader, { query: 'RETURN 1 AS one' }, { 'X-Svc-Require-Writer': 'true' }), 503, 'access_mode_error');
  const read = await cypher(reader, { query: 'MATCH (n:Refused) RETURN count(n) AS c' });
  assert.deepEqual(read.body, { columns: ['c'], rows: [[0]] });
  const explained = await explain(reader, { query: 'CREATE (:Refused)' });
  assert.deepEqual([explained.status, explained.body.effect], [200, 'Write']);
  // Reader mode comes after compiling: a syntax error is still a syntax error there.
  cypherError(await cypher(reader, { query: 'CREATE (' }), 400, 'syntax_error', 'UnexpectedSyntax', 'compile');
});

test('a statement failing late at runtime keeps nothing of its writes (arithmetic_error, phase runtime)', async () => {
  const res = await cypher(writer, { query: 'CREATE (:Doomed) WITH 1 AS x RETURN x / 0 AS boom' });
  const details = cypherError(res, 400, 'arithmetic_error', 'DivisionByZero', 'runtime');
  assert.ok(details.span === null || details.span.end > details.span.start);
  const q = await post(`${writer!.url}/v2/query`, readRequest([countLabel('c', 'Doomed')], ['c']));
  assert.deepEqual(q.body, { c: [0] });
  const c = await cypher(writer, { query: 'MATCH (d:Doomed) RETURN count(d) AS c' });
  assert.deepEqual(c.body, { columns: ['c'], rows: [[0]] });
});

test('integers are lossless both ways: 2^60 in as an envelope or plain JSON, out as an envelope, through the writer too', async () => {
  const big = { $type: 'integer', value: '1152921504606846976' };
  const expected = { columns: ['x'], rows: [[big]] };
  assert.deepEqual((await cypher(writer, { query: 'RETURN $x AS x', parameters: { x: big } })).body, expected);
  assert.deepEqual((await cypher(writer, '{"query": "RETURN $x AS x", "parameters": {"x": 1152921504606846976}}')).body, expected);
  assert.deepEqual((await cypher(writer, { query: 'RETURN 1152921504606846976 AS x' })).body, expected);
  const small = await cypher(writer, { query: 'RETURN $x AS x, $y AS y', parameters: { x: 9007199254740991, y: 1.5 } });
  assert.deepEqual(small.body, { columns: ['x', 'y'], rows: [[9007199254740991, 1.5]] });
  const written = await cypher(writer, { query: 'CREATE (n:Big {v: $x}) RETURN n.v AS x', parameters: { x: big } });
  assert.deepEqual(written.body, expected);
  assert.deepEqual((await cypher(reader, { query: 'MATCH (n:Big) RETURN n.v AS x' })).body, expected);
  const special = await cypher(writer, {
    query: 'RETURN $n AS n, $i AS i, $m AS m',
    parameters: {
      n: { $type: 'float', value: 'NaN' },
      i: { $type: 'float', value: '-Infinity' },
      m: { $type: 'map', value: { $type: 'x' } },
    },
  });
  assert.deepEqual(special.body, {
    columns: ['n', 'i', 'm'],
    rows: [[{ $type: 'float', value: 'NaN' }, { $type: 'float', value: '-Infinity' }, { $type: 'x' }]],
  });
});

test('the float -0.0 keeps its sign: written through the writer thread, stored, and read back on a reader', async () => {
  const written = await cypher(writer, { query: 'CREATE (n:NegZero {y: -0.0, l: [-0.0, 1.5]}) RETURN n.y AS y, n.l AS l' });
  assert.equal(written.status, 200, written.text);
  assert.equal(written.text, '{"columns":["y","l"],"rows":[[-0.0,[-0.0,1.5]]]}');
  // From the record and the columns, on a server that only reads the folder.
  const read = await cypher(reader, { query: 'MATCH (n:NegZero) WHERE n.y = 0.0 RETURN n.y AS y, n.l AS l, n {.y, .l} AS p' });
  assert.equal(read.text, '{"columns":["y","l","p"],"rows":[[-0.0,[-0.0,1.5],{"y":-0.0,"l":[-0.0,1.5]}]]}');
  // A parameter crosses to the writer thread as a plan message.
  const param = await cypher(writer, '{"query": "CREATE (n:NegZeroParam {y: $y}) RETURN n.y AS y", "parameters": {"y": -0.0}}');
  assert.equal(param.text, '{"columns":["y"],"rows":[[-0.0]]}');
  assert.equal((await cypher(reader, { query: 'MATCH (n:NegZeroParam) RETURN n.y AS y' })).text, '{"columns":["y"],"rows":[[-0.0]]}');
});

test('a missing parameter is 400 parameter_missing, for explain too; RETURN 1/0 explains without error', async () => {
  cypherError(await cypher(writer, { query: 'RETURN $missing AS m' }), 400, 'parameter_missing', 'MissingParameter', 'compile');
  cypherError(await explain(writer, { query: 'RETURN $missing AS m' }), 400, 'parameter_missing', 'MissingParameter', 'compile');
  const div = await explain(writer, { query: 'RETURN 1/0 AS x' });
  assert.equal(div.status, 200, div.text);
});

test('explain: {effect, bindings, returns, operators, planner, notices}, never running the statement', async () => {
  const res = await explain(writer, { query: 'MATCH (n:Person) WHERE n.age > $min RETURN n.name AS name', parameters: { min: 1 } });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(Object.keys(res.body), ['effect', 'bindings', 'returns', 'operators', 'planner', 'notices']);
  assert.equal(res.body.effect, 'Read');
  assert.equal(res.body.planner, 'trellis-table-v1');
  assert.deepEqual(res.body.notices, []);
  assert.equal(res.body.returns.length, 1);
  assert.equal(res.body.returns[0][0], 'name');
  for (const b of res.body.bindings) assert.deepEqual(Object.keys(b), ['slot', 'name']);
  assert.ok(res.body.operators.length > 0);
  for (const o of res.body.operators) assert.equal(typeof o.op, 'string');
  const write = await explain(writer, { query: 'CREATE (:NeverMade)' }, { 'X-Svc-Warm': 'true' });
  assert.deepEqual([write.status, write.body.effect], [200, 'Write']);
  requestError(await explain(writer, { query: 'CREATE (:NeverMade)' }, { 'X-Svc-Await-Durable': 'true' }), 400, 'invalid_request_option');
  const q = await post(`${writer!.url}/v2/query`, readRequest([countLabel('c', 'NeverMade')], ['c']));
  assert.deepEqual(q.body, { c: [0] });
});

test('health is unaffected by the Cypher routes', async () => {
  const res = await get(`${writer!.url}/readyz`);
  assert.deepEqual(res.body, { ready: true, mode: 'writer', index_runtime: 'ready' });
});

test('every error of a statement has its status and body: the 400s by code, resource_limit 429', async () => {
  const cases: [string, number, string, string, string][] = [
    ['RETURN m', 400, 'syntax_error', 'UndefinedVariable', 'compile'],
    ['RETURN date()', 400, 'unsupported_feature', 'TemporalFunction', 'compile'],
    ['CREATE (:A:B)', 400, 'unsupported_feature', 'MultipleLabels', 'compile'],
    ['RETURN toUpper(5) AS x', 400, 'type_error', 'InvalidArgumentValue', 'runtime'],
    ['RETURN percentileDisc(1, 2.5) AS x', 400, 'argument_error', 'NumberOutOfRange', 'runtime'],
    ['RETURN 9223372036854775807 + 1 AS x', 400, 'arithmetic_error', 'IntegerOverflow', 'runtime'],
    ['CREATE (n:Gone) DELETE n RETURN n.x AS x', 400, 'entity_not_found', 'DeletedEntityAccess', 'runtime'],
    ['CREATE (n:Held)-[:R]->(:Held) DELETE n', 400, 'constraint_verification_failed', 'DeleteConnectedNode', 'runtime'],
    ['MERGE (n:M {k: null})', 400, 'semantic_error', 'MergeReadOwnWrites', 'runtime'],
    ['RETURN size(range(1, 6000000)) AS n', 429, 'resource_limit', 'ListTooLarge', 'runtime'],
  ];
  for (const [query, status, error, detail, phase] of cases) cypherError(await cypher(writer, { query }), status, error, detail, phase);
  const missing = await cypher(writer, { query: 'RETURN $p AS p' });
  cypherError(missing, 400, 'parameter_missing', 'MissingParameter', 'compile');
  const left = await cypher(writer, { query: 'MATCH (n) WHERE n:Gone OR n:Held OR n:M RETURN count(n) AS c' });
  assert.deepEqual(left.body, { columns: ['c'], rows: [[0]] }, 'nothing of a failed statement was kept');
});

test('bodies past the inline limit are answered by a read worker: statements, explain, and a write sent on to the writer', async () => {
  // Over INLINE_BODY_BYTES the main thread never answers: the request takes the worker's route switch.
  const pad = 'x'.repeat(INLINE_BODY_BYTES);
  const read = await cypher(writer, { query: 'RETURN size($pad) AS n, $pad = $pad AS same', parameters: { pad } });
  assert.equal(read.status, 200, read.text);
  assert.deepEqual(read.body, { columns: ['n', 'same'], rows: [[INLINE_BODY_BYTES, true]] });
  const plan = await explain(writer, { query: 'CREATE (:Large {pad: $pad})', parameters: { pad } });
  assert.equal(plan.status, 200, plan.text);
  assert.equal(plan.body.effect, 'Write');
  const made = await cypher(writer, { query: 'CREATE (n:LargeBody {pad: $pad}) RETURN size(n.pad) AS n', parameters: { pad } });
  assert.deepEqual(made.body, { columns: ['n'], rows: [[INLINE_BODY_BYTES]] }, made.text);
  assert.deepEqual((await cypher(writer, { query: 'MATCH (n:LargeBody) RETURN count(*) AS c' })).body.rows, [[1]]);
});
