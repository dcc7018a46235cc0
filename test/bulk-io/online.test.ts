/**
 * `trellis import --url`: into a running server in /v2/import batches, directly and
 * through the gateway with an API key; a bad row stops it with acknowledged batches kept
 * whole; values JSON cannot carry arrive as they are.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startTestGateway, testKey } from '../helpers/gateway.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { runExportCli, runImportCli, writeLines } from '../helpers/bulk-io.js';

const count = async (url: string, root: unknown): Promise<number> => {
  const res = await fetch(`${url}/v2/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ request_type: 'read', query: { read: { entries: [{ query: { name: 'r', root } }], returns: ['r'] } } }),
  });
  return ((await res.json()) as { r: number[] }).r[0]!;
};
const nodes = (label: string) => ({
  count: { input: { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: label } } } } } } },
});
const edges = (label: string) => ({ count: { input: { out_e: { input: { nodes: { reference: 'all' } }, label } } } });

describe('online import', () => {
  const dir = tempDir();
  const key = testKey('loader', { main: ['read', 'write'] });
  const readOnly = testKey('viewer', { main: ['read'] });
  let server: TestServer;
  let gateway: TestServer;

  before(async () => {
    server = await startTestServer(['--data', join(dir.path, 'db')]);
    gateway = await startTestGateway({
      mode: 'cluster',
      redis: { url: 'redis://127.0.0.1:1' },
      rate_limit: false,
      metrics: false,
      databases: { main: { writer: server.url } },
      keys: [key, readOnly],
    });
    const people = ['uid:ID(P),name,score:double,tags:string[],vec:float[]'];
    for (let i = 0; i < 300; i++) people.push(`${i},person ${i},${i % 7 === 0 ? '' : i / 4},a;b,${i};0.5`);
    writeLines(dir.path, 'people.csv', people);
    const knows = [':START_ID(P),:END_ID(P),w:long'];
    for (let i = 0; i < 1000; i++) knows.push(`${i % 300},${(i * 7) % 300},${i}`);
    writeLines(dir.path, 'knows.csv', knows);
  });
  after(async () => {
    await gateway?.stop();
    await server?.stop();
    dir.remove();
  });

  test('into a running server in batches: every row, missing properties kept missing', async () => {
    const run = await runImportCli(
      ['--url', server.url, '--batch-rows', '64', '--nodes', 'Person=people.csv', '--edges', 'KNOWS=knows.csv'],
      dir.path,
    );
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /300 nodes and 1,000 edges/);
    assert.equal(await count(server.url, nodes('Person')), 300);
    assert.equal(await count(server.url, edges('KNOWS')), 1000);
    const scored = await count(server.url, {
      count: { input: { nodes_where: { predicate: { is_not_null: { property: 'score' } } } } },
    });
    assert.equal(scored, 300 - Math.ceil(300 / 7));
  });

  test('indexes of the import are built after its data, and waited for', async () => {
    writeLines(dir.path, 'tagged.csv', ['uid:ID,tag', '1,a', '2,b', '3,a']);
    const spec = (unique: boolean) => JSON.stringify({ node_equality: { label: 'Tagged', property: 'tag', unique } });
    const run = await runImportCli(['--url', server.url, '--nodes', 'Tagged=tagged.csv', '--index', spec(false)], dir.path);
    assert.equal(run.code, 0, run.err);
    const found = await count(server.url, {
      count: {
        input: {
          nodes_where: {
            predicate: {
              and: {
                predicates: [
                  { eq: { left: { property: '$label' }, right: { constant: { string: 'Tagged' } } } },
                  { eq: { left: { property: 'tag' }, right: { constant: { string: 'a' } } } },
                ],
              },
            },
          },
        },
      },
    });
    assert.equal(found, 2);
    writeLines(dir.path, 'tagged2.csv', ['uid:ID,tag', '1,z', '2,z']);
    const blocked = await runImportCli(
      [
        '--url',
        server.url,
        '--nodes',
        'Tagged2=tagged2.csv',
        '--index',
        JSON.stringify({ node_equality: { label: 'Tagged2', property: 'tag', unique: true } }),
      ],
      dir.path,
    );
    assert.equal(blocked.code, 1);
    assert.match(blocked.err, /the index node_equality on Tagged2\.tag cannot be built: /);
  });

  test('through the gateway with an API key', async () => {
    const run = await runImportCli(
      ['--url', gateway.url, '--key', key.key, '--nodes', 'Member=people.csv', '--edges', 'LIKES=knows.csv'],
      dir.path,
    );
    assert.equal(run.code, 0, run.err);
    assert.equal(await count(server.url, nodes('Member')), 300);
    assert.equal(await count(server.url, edges('LIKES')), 1000);
    // An import is a write: a key that may only read is refused at the gateway.
    const reader = await runImportCli(['--url', gateway.url, '--key', readOnly.key, '--nodes', 'X=people.csv'], dir.path);
    assert.equal(reader.code, 1);
    assert.match(reader.err, /the server refused a batch of .* \(HTTP 403, forbidden/);
    const refused = await runImportCli(['--url', gateway.url, '--key', 'not-a-key', '--nodes', 'X=people.csv'], dir.path);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /the server refused a batch of .* \(HTTP 401, unauthorized/);
  });

  test('a bad row stops the import; the batches acknowledged before it stay whole', async () => {
    const lines = ['uid:ID,n:int'];
    for (let i = 0; i < 200; i++) lines.push(`${i},${i === 150 ? 'x' : i}`);
    writeLines(dir.path, 'bad.csv', lines);
    // Rows are converted a file chunk at a time: the bad row stops the import before any of it is sent.
    const run = await runImportCli(['--url', server.url, '--batch-rows', '50', '--nodes', 'Bad=bad.csv'], dir.path);
    assert.equal(run.code, 1);
    assert.match(run.err, /bad\.csv:152:5: n: "x" is not an integer \(type int\); batches acknowledged before this one are kept/);
    assert.equal((await count(server.url, nodes('Bad'))) % 50, 0);
  });

  test('nodes whose only column is their key (no property) and edges between them', async () => {
    writeLines(dir.path, 'bare.csv', [':ID(Bare)', 'a', 'b', 'c']);
    writeLines(dir.path, 'bare-links.csv', [':START_ID(Bare),:END_ID(Bare)', 'a,b', 'b,c']);
    const run = await runImportCli(['--url', server.url, '--nodes', 'Bare=bare.csv', '--edges', 'LINKS=bare-links.csv'], dir.path);
    assert.equal(run.code, 0, run.err);
    assert.equal(await count(server.url, nodes('Bare')), 3);
    assert.equal(await count(server.url, edges('LINKS')), 2);
  });

  test('files of many chunks: node batches sent while earlier ones are stored, edge batches joined into requests', async () => {
    // About 1 MB of nodes and 2.5 MB of edges: several batches each (the reader takes 1 MB at most).
    const n = 50_000;
    const many = ['uid:ID(M),name'];
    for (let i = 0; i < n; i++) many.push(`${i},member number ${i}`);
    writeLines(dir.path, 'many.csv', many);
    const links = [':START_ID(M),:END_ID(M),w:long,note'];
    let weights = 0;
    let weighted = 0;
    let notes = 0;
    for (let i = 0; i < 120_000; i++) {
      const w = i % 5 === 0 ? '' : String(i);
      if (w !== '') {
        weights += i;
        weighted++;
      }
      const note = i % 3 === 0 ? '' : `note ${i}`;
      if (note !== '') notes++;
      links.push(`${i % n},${(i * 7919) % n},${w},${note}`);
    }
    writeLines(dir.path, 'links.csv', links);
    const run = await runImportCli(
      ['--url', server.url, '--batch-rows', '70000', '--nodes', 'Many=many.csv', '--edges', 'LINK=links.csv'],
      dir.path,
    );
    assert.equal(run.code, 0, run.err);
    const res = await fetch(`${server.url}/v2/cypher`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          'MATCH (a:Many)-[e:LINK]->(b:Many) RETURN count(e) AS edges, sum(e.w) AS weights, count(e.w) AS weighted, ' +
          'count(e.note) AS notes, ' +
          'sum(toInteger(a.uid) * 7919 % 50000 - toInteger(b.uid)) AS wrongEnds',
      }),
    });
    assert.equal(res.status, 200);
    // Every edge between the nodes its row names (by key), with its own properties.
    assert.deepEqual(((await res.json()) as { rows: unknown[] }).rows, [[120_000, weights, weighted, notes, 0]]);
    assert.equal(await count(server.url, nodes('Many')), n);
  });

  test('values JSON cannot carry (date-times, NaN, infinities, -0.0) are imported as they are', async () => {
    writeLines(dir.path, 'dated.csv', [
      'uid:ID,born:datetime,x:double',
      '1,2020-01-01T00:00:00Z,NaN',
      '2,1999-12-31T23:59:59.5Z,-Infinity',
      '3,2001-02-03T04:05:06Z,-0.0',
    ]);
    const run = await runImportCli(['--url', server.url, '--nodes', 'Dated=dated.csv'], dir.path);
    assert.equal(run.code, 0, run.err);
    const res = await fetch(`${server.url}/v2/cypher`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'MATCH (n:Dated) RETURN n.uid AS uid, toString(n.born) AS born, n.x AS x ORDER BY uid' }),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(((await res.json()) as { rows: unknown[] }).rows, [
      ['1', '2020-01-01T00:00:00.000Z', { $type: 'float', value: 'NaN' }],
      ['2', '1999-12-31T23:59:59.500Z', { $type: 'float', value: '-Infinity' }],
      ['3', '2001-02-03T04:05:06.000Z', -0],
    ]);
    const down = await runImportCli(['--url', 'http://127.0.0.1:1', '--nodes', 'X=people.csv'], dir.path);
    assert.equal(down.code, 1);
    assert.match(down.err, /cannot reach http:\/\/127\.0\.0\.1:1/);
  });
});

test('an export of a folder a server is writing to is one snapshot: whole batches only', async () => {
  const dir = tempDir();
  const server = await startTestServer(['--data', join(dir.path, 'db')]);
  try {
    // Batches of ten nodes, each with a chain of nine edges between them, stream in while the export reads.
    let stop = false;
    let batches = 0;
    const writer = (async () => {
      while (!stop) {
        const entries = [];
        for (let k = 0; k < 10; k++)
          entries.push({ query: { name: `n${k}`, root: { add_n: { label: 'B', properties: [['k', { value: { i64: k } }]] } } } });
        for (let k = 1; k < 10; k++) {
          entries.push({
            query: {
              root: {
                add_e: { input: { nodes: { reference: { var: `n${k - 1}` } } }, to: { var: `n${k}` }, label: 'NEXT', properties: [] },
              },
            },
          });
        }
        const res = await fetch(`${server.url}/v2/query`, {
          method: 'POST',
          body: JSON.stringify({ request_type: 'write', query: { write: { entries, returns: [] } } }),
        });
        assert.equal(res.status, 200, await res.text());
        batches++;
      }
    })();
    while (batches < 5) await new Promise((r) => setTimeout(r, 10));
    const run = await runExportCli(['--data', 'db', '--out', 'out', '--format', 'jsonl'], dir.path);
    stop = true;
    await writer;
    assert.equal(run.code, 0, run.err);
    const m = /(\d+) nodes and (\d+) edges/.exec(run.out.replace(/,/g, ''))!;
    const [nodes, edges] = [Number(m[1]), Number(m[2])];
    assert.ok(nodes >= 50 && nodes % 10 === 0, `whole batches of nodes: ${nodes}`);
    assert.equal(edges, (nodes / 10) * 9, 'the edges of exactly those batches');
  } finally {
    await server.stop();
    dir.remove();
  }
});
