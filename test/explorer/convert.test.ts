/**
 * The explorer's pure parts under Node: answers to graphs for every answer shape (Cypher
 * nodes, relationships and paths at any depth; /v2/query elements, identity rows, row
 * envelopes; named query elements), answers to tables and CSV, JSON indented as received,
 * and the server panel's figures from /metrics text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { captionOf, graphOfAnswer, isCypherAnswer } from '../../explorer/convert.js';
import { indentJson } from '../../explorer/json-text.js';
import { figures, parseMetrics, quantile } from '../../explorer/metrics-text.js';
import { cellText, tableCsv, tableOf } from '../../explorer/table-model.js';

const ada = { $type: 'node', id: '0', labels: ['Person'], properties: { name: 'Ada', born: 1815 } };
const charles = { $type: 'node', id: '1', labels: ['Person'], properties: { name: 'Charles' } };
const london = { $type: 'node', id: '2', labels: ['City'], properties: { name: 'London' } };
const knows = { $type: 'relationship', id: '0', start: '0', end: '1', type: 'KNOWS', properties: { since: 1833 } };
const lives = { $type: 'relationship', id: '1', start: '1', end: '2', type: 'LIVES_IN', properties: {} };

function summary(g: ReturnType<typeof graphOfAnswer>) {
  return {
    nodes: [...g.nodes.values()].map((n) => `${n.id}:${n.labels.join(',')}${n.partial ? '?' : ''}`).sort(),
    edges: [...g.edges.values()].map((e) => `${e.id}:${e.source}-${e.type}->${e.target}${e.partial ? '?' : ''}`).sort(),
    unplaced: [...g.unplaced].sort(),
  };
}

test('Cypher: nodes, relationships and paths become nodes and edges, in lists and maps too', () => {
  const answer = {
    columns: ['a', 'r', 'p', 'nested'],
    rows: [[ada, knows, { $type: 'path', nodes: [ada, charles, london], relationships: [knows, lives] }, { list: [london], n: 1 }]],
  };
  assert.ok(isCypherAnswer(answer));
  const g = graphOfAnswer(answer, 'cypher');
  assert.deepEqual(summary(g), { nodes: ['0:Person', '1:Person', '2:City'], edges: ['0:0-KNOWS->1', '1:1-LIVES_IN->2'], unplaced: [] });
  assert.deepEqual(g.nodes.get('0')!.properties, { name: 'Ada', born: 1815 });
  assert.deepEqual(g.edges.get('0')!.properties, { since: 1833 });
});

test('Cypher: a relationship alone brings placeholder endpoints, completed when the nodes come later', () => {
  const g = graphOfAnswer(
    {
      columns: ['r', 'b'],
      rows: [
        [knows, null],
        [lives, charles],
      ],
    },
    'cypher',
  );
  assert.deepEqual(summary(g).nodes, ['0:?', '1:Person', '2:?']);
  const later = graphOfAnswer({ columns: ['r'], rows: [[knows], [ada]] }, 'cypher');
  assert.equal(later.nodes.get('0')!.partial, false, 'a full node replaces the placeholder');
  assert.deepEqual(later.nodes.get('0')!.labels, ['Person']);
});

test('Cypher: scalars, number envelopes, map envelopes and an empty answer draw nothing, a node in a map envelope is found', () => {
  const g = graphOfAnswer(
    {
      columns: ['n', 'big', 'm'],
      rows: [
        [1, { $type: 'integer', value: '9007199254740993' }, { $type: 'float', value: 'NaN' }],
        [null, 'x', { $type: 'map', value: { a: ada } }],
      ],
    },
    'cypher',
  );
  assert.deepEqual(summary(g), { nodes: ['0:Person'], edges: [], unplaced: [] });
  assert.equal(graphOfAnswer({ columns: [], rows: [] }, 'cypher').nodes.size, 0);
});

test('/v2/query: value_map nodes, edge_properties edges, identity rows and search hits', () => {
  const answer = {
    users: [
      { $id: 0, $label: 'User', name: 'Alice' },
      { $id: 1, $label: 'User', name: 'Bob', $distance: 0.5 },
    ],
    follows: [{ $id: 7, $label: 'FOLLOWS', $from: 0, $to: 1, since: 2025 }],
    ids: [{ $id: 4 }],
    count: [2],
    shortest: [0, 2, 3],
  };
  const g = graphOfAnswer(answer, 'query');
  assert.deepEqual(summary(g), { nodes: ['0:User', '1:User', '4:?'], edges: ['7:0-FOLLOWS->1'], unplaced: [] });
  assert.deepEqual(g.nodes.get('1')!.properties, { name: 'Bob', $distance: 0.5 }, 'the rank is shown with the properties');
  assert.deepEqual(g.edges.get('7')!.properties, { since: 2025 });
});

test('/v2/query: row envelopes name nodes and edges; a path gives an edge its endpoints, a lone edge stays unplaced', () => {
  const answer = {
    rows: [
      { current: { node: 2 }, bindings: { u: { node: 0 } }, path: [{ node: 0 }, { edge: 5 }, { node: 2 }] },
      { current: { edge: 9 }, bindings: {} },
      { current: null, bindings: { e: { edge: 5 } }, sack: 3 },
    ],
  };
  const g = graphOfAnswer(answer, 'query');
  assert.deepEqual(summary(g), { nodes: ['0:?', '2:?'], edges: ['5:0-->2?'], unplaced: ['9'] });
});

test('named queries: elements as {id, label, ...fields}, edges with from_node and to_node, in groups too', () => {
  const answer = {
    user: { id: 3, label: 'User', name: 'Ann', age: 30 },
    edge: { id: 1, label: 'Follows', from_node: 3, to_node: 4, since: 2024 },
    groups: [{ count: 1, data: [{ id: 4, label: 'User', name: 'Ben' }] }],
    names: ['Ann'],
    missing: null,
  };
  const g = graphOfAnswer(answer, 'named');
  assert.deepEqual(summary(g), { nodes: ['3:User', '4:User'], edges: ['1:3-Follows->4'], unplaced: [] });
  assert.deepEqual(g.nodes.get('3')!.properties, { name: 'Ann', age: 30 });
});

test('captions: the chosen property, else name/title, else label and id', () => {
  const g = graphOfAnswer({ columns: ['n'], rows: [[ada], [{ $type: 'node', id: '9', labels: ['Robot'], properties: {} }]] }, 'cypher');
  assert.equal(captionOf(g.nodes.get('0')!, undefined), 'Ada');
  assert.equal(captionOf(g.nodes.get('0')!, 'born'), '1815');
  assert.equal(captionOf(g.nodes.get('9')!, 'name'), 'Robot 9');
});

test('tables: a Cypher answer is itself; a /v2/query answer spreads objects into columns, with a return column for several names', () => {
  assert.deepEqual(tableOf({ columns: ['a'], rows: [[1], [2]] }), { columns: ['a'], rows: [[1], [2]] });
  assert.deepEqual(
    tableOf({
      users: [
        { $id: 0, name: 'A' },
        { $id: 1, age: 3 },
      ],
    }),
    {
      columns: ['$id', 'name', 'age'],
      rows: [
        [0, 'A', undefined],
        [1, undefined, 3],
      ],
    },
  );
  assert.deepEqual(tableOf({ n: [2], users: [{ $id: 0 }] }), {
    columns: ['return', '$id', 'value'],
    rows: [
      ['n', undefined, 2],
      ['users', 0, undefined],
    ],
  });
  assert.deepEqual(tableOf(null), { columns: ['value'], rows: [[null]] });
});

test('cells print elements briefly and CSV quotes what needs it', () => {
  assert.equal(cellText(ada), '(:Person #0 {name: "Ada", born: 1815})');
  assert.equal(cellText(knows), '[:KNOWS #0 {since: 1833}]');
  assert.equal(
    cellText({ $type: 'path', nodes: [ada, charles, london], relationships: [knows, { ...lives, start: '2', end: '1' }] }),
    '<(#0)-[:KNOWS]->(#1)<-[:LIVES_IN]-(#2)>',
  );
  assert.equal(cellText({ $type: 'integer', value: '9007199254740993' }), '9007199254740993');
  assert.equal(cellText('plain'), 'plain');
  assert.equal(cellText([1, 'a', null]), '[1, "a", null]');
  assert.equal(
    tableCsv({
      columns: ['a', 'b,c'],
      rows: [
        ['x "y"', 1],
        ['line\nbreak', null],
      ],
    }),
    'a,"b,c"\r\n"x ""y""",1\r\n"line\nbreak",null\r\n',
  );
});

test('JSON is indented token by token: 3.0 and 20-digit integers stay as received', () => {
  const text = '{"a":[3.0,12345678901234567890,{"s":"x\\"]}","e":[],"o":{}}],"b":null}';
  assert.equal(
    indentJson(text),
    '{\n  "a": [\n    3.0,\n    12345678901234567890,\n    {\n      "s": "x\\"]}",\n      "e": [],\n      "o": {}\n    }\n  ],\n  "b": null\n}',
  );
  assert.deepEqual(JSON.parse(indentJson(text).replace('3.0', '3')), JSON.parse(text.replace('3.0', '3')));
});

test('metrics: requests per second, quantiles from buckets, writer queue and lanes between two scrapes', () => {
  const scrape = (n: number, fast: number) => `# HELP trellis_http_requests_total x
trellis_http_requests_total{route="/v2/query",status="200",code=""} ${n}
trellis_http_requests_total{route="/healthz",status="200",code=""} 1
trellis_http_request_duration_seconds_bucket{route="/v2/query",le="0.001"} ${fast}
trellis_http_request_duration_seconds_bucket{route="/v2/query",le="0.01"} ${n}
trellis_http_request_duration_seconds_bucket{route="/v2/query",le="+Inf"} ${n}
trellis_writer_queue_depth 2
trellis_read_queue_depth{lane="short"} 3
trellis_read_queue_depth{lane="long"} 0
trellis_read_tasks_in_flight{lane="short"} 1
trellis_read_tasks_in_flight{lane="long"} 1
`;
  const before = parseMetrics(scrape(100, 90));
  const after = parseMetrics(scrape(300, 280));
  const f = figures(before, after, 2, 'trellis');
  assert.equal(f.requestsPerSecond, 100);
  assert.equal(f.p50, 0.001);
  assert.equal(f.p99, 0.01);
  assert.equal(f.writerQueue, 2);
  assert.deepEqual(f.lanes, [
    { lane: 'short', queued: 3, inFlight: 1 },
    { lane: 'long', queued: 0, inFlight: 1 },
  ]);
  assert.equal(quantile(new Map(), new Map(), 0.5), null, 'no requests: no quantile');
  const gateway = figures([], parseMetrics('trellis_gateway_http_requests_total{route="x"} 4\n'), 1, 'trellis_gateway');
  assert.deepEqual([gateway.requestsPerSecond, gateway.writerQueue, gateway.lanes], [4, null, []]);
  assert.deepEqual(parseMetrics('x{a="q\\"uote"} +Inf\n'), [{ name: 'x', labels: { a: 'q"uote' }, value: Infinity }]);
});
