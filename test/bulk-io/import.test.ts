/**
 * `trellis import` offline: neo4j-admin's header syntax, the mapping file, gzip, id spaces,
 * arrays and vectors, clear errors with file:line:column and nothing kept, --skip-bad-rows
 * with its rejects file, indexes built at the end, and targets that are not empty.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from '../../src/index.js';
import { DateTime } from '../../src/core/value.js';
import { tempDir } from '../helpers/server.js';
import { dump, runImportCli, writeLines } from '../helpers/bulk-io.js';

const users = (dir: string) =>
  writeLines(dir, 'users.csv', [
    'uid:ID(User),name,age:int,score:double,active:boolean,born:date,tags:string[],emb:float[],:IGNORE',
    '1,Ada,36,1.5,true,1815-12-10,math;poetry,0.5;0.25,junk',
    '2,"Babbage, Charles",79,-0.0,false,1791-12-26,engines,1;2,junk',
    '3,,,NaN,,,"",,',
  ]);
const follows = (dir: string) =>
  writeLines(dir, 'follows.csv', [':START_ID(User),:END_ID(User),since:long', '1,2,1833', '2,1,1834', '3,3,']);

test('nodes and edges from neo4j-admin headers: types, arrays, vectors, missing against empty, :IGNORE', async () => {
  const dir = tempDir();
  try {
    users(dir.path);
    follows(dir.path);
    const run = await runImportCli(
      ['--data', 'db', '--nodes', 'User=users.csv', '--edges', 'FOLLOWS=follows.csv', '--id-type', 'integer'],
      dir.path,
    );
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /3 nodes and 3 edges in .*no row rejected/);
    const { nodes, edges } = await dump(join(dir.path, 'db'));
    assert.deepEqual(
      nodes.map((n) => n.label),
      ['User', 'User', 'User'],
    );
    assert.deepEqual(nodes[0]!.props, {
      uid: 1n,
      name: 'Ada',
      age: 36n,
      score: 1.5,
      active: true,
      born: new DateTime(Date.UTC(1815, 11, 10)),
      tags: ['math', 'poetry'],
      emb: Float32Array.from([0.5, 0.25]),
    });
    assert.equal(nodes[1]!.props.name, 'Babbage, Charles');
    assert.ok(Object.is(nodes[1]!.props.score, -0));
    // An empty unquoted cell is missing; "" is an empty string (or array).
    assert.deepEqual(Object.keys(nodes[2]!.props).sort(), ['score', 'tags', 'uid']);
    assert.ok(Number.isNaN(nodes[2]!.props.score as number));
    assert.deepEqual(nodes[2]!.props.tags, []);
    assert.deepEqual(
      edges.map((e) => [e.from, e.to, e.label, e.props.since]),
      [
        [0, 1, 'FOLLOWS', 1833n],
        [1, 0, 'FOLLOWS', 1834n],
        [2, 2, 'FOLLOWS', undefined],
      ],
    );
    // The database answers queries: the key is an ordinary property.
    const db = await open(join(dir.path, 'db'), { readOnly: true });
    const answer = await db.query({
      request_type: 'read',
      query: {
        read: {
          entries: [
            {
              query: {
                name: 'r',
                root: {
                  values: {
                    input: { out: { input: { nodes: { reference: { ids: [0] } } }, label: 'FOLLOWS' } },
                    properties: ['name'],
                  },
                },
              },
            },
          ],
          returns: ['r'],
        },
      },
    });
    await db.close();
    assert.deepEqual(answer, { r: [{ name: 'Babbage, Charles' }] });
    assert.deepEqual(readdirSync(join(dir.path, 'db')).sort(), ['data.mdb', 'lock.mdb']);
  } finally {
    dir.remove();
  }
});

test('a header file and data files in one group, :LABEL and :TYPE columns, id spaces, gzip, a tab delimiter', async () => {
  const dir = tempDir();
  try {
    writeLines(dir.path, 'people-header.tsv', ['pid:ID(Person)\tname\t:LABEL']);
    writeLines(dir.path, 'people-1.tsv.gz', ['1\tAda\tPerson', '2\tAlan\tScientist']);
    writeLines(dir.path, 'people-2.tsv', ['3\tGrace\tPerson']);
    writeLines(dir.path, 'cities.tsv', ['cid:ID(City)\tname', '1\tLondon']);
    writeLines(dir.path, 'rels.tsv', [
      ':START_ID(Person)\t:END_ID(City)\t:TYPE\tyears:int[]',
      '1\t1\tLIVED_IN\t1815;1852',
      '3\t1\tVISITED\t',
    ]);
    const run = await runImportCli(
      [
        '--data',
        'db',
        '--delimiter',
        'TAB',
        '--nodes',
        'people-header.tsv,people-1.tsv.gz,people-2.tsv',
        '--nodes',
        'City=cities.tsv',
        '--edges',
        'rels.tsv',
      ],
      dir.path,
    );
    assert.equal(run.code, 0, run.err);
    const { nodes, edges } = await dump(join(dir.path, 'db'));
    assert.deepEqual(
      nodes.map((n) => [n.label, n.props.name, n.props.pid ?? n.props.cid]),
      [
        ['Person', 'Ada', '1'],
        ['Scientist', 'Alan', '2'],
        ['Person', 'Grace', '3'],
        ['City', 'London', '1'],
      ],
    );
    // Person 1 and City 1 are different keys: the edges reach the city.
    assert.deepEqual(
      edges.map((e) => [
        e.label,
        nodes.find((n) => n.id === e.from)!.props.name,
        nodes.find((n) => n.id === e.to)!.props.name,
        e.props.years,
      ]),
      [
        ['LIVED_IN', 'Ada', 'London', BigInt64Array.from([1815n, 1852n])],
        ['VISITED', 'Grace', 'London', undefined],
      ],
    );
  } finally {
    dir.remove();
  }
});

test('integer keys in every form: negative, quoted, over 15 digits; "-0" is the key 0', async () => {
  const dir = tempDir();
  try {
    writeLines(dir.path, 'n.csv', ['uid:ID,name', '-3,a', '0,b', '"7",c', '1234567890123456,d', '9007199254740993,e']);
    writeLines(dir.path, 'e.csv', [':START_ID,:END_ID', '-3,"7"', '0,1234567890123456', '7,-3', '9007199254740993,-0']);
    const run = await runImportCli(['--data', 'db', '--id-type', 'integer', '--nodes', 'N=n.csv', '--edges', 'E=e.csv'], dir.path);
    assert.equal(run.code, 0, run.err);
    const { nodes, edges } = await dump(join(dir.path, 'db'));
    const uid = new Map(nodes.map((n) => [n.id, n.props.uid]));
    assert.deepStrictEqual([...uid.values()], [-3n, 0n, 7n, 1234567890123456n, 9007199254740993n]);
    assert.deepStrictEqual(
      edges.map((e) => [uid.get(e.from), uid.get(e.to)]),
      [
        [-3n, 7n],
        [0n, 1234567890123456n],
        [7n, -3n],
        [9007199254740993n, 0n],
      ],
    );
    writeLines(dir.path, 'dup.csv', ['uid:ID', '0', '-0']);
    const dup = await runImportCli(['--data', 'db2', '--id-type', 'integer', '--nodes', 'N=dup.csv'], dir.path);
    assert.equal(dup.code, 1);
    assert.match(dup.err, /dup\.csv:3:1: duplicate key 0 in the global id space/);
  } finally {
    dir.remove();
  }
});

test('a mapping file gives headers to files that have their own, and the indexes to build', async () => {
  const dir = tempDir();
  try {
    writeLines(dir.path, 'u.csv', ['id,name,age', '10,a,1', '11,b,2']);
    writeLines(dir.path, 'f.csv', ['src,dst', '10,11']);
    writeFileSync(
      join(dir.path, 'map.json'),
      JSON.stringify({
        idType: 'integer',
        nodes: [{ label: 'U', files: ['u.csv'], header: 'id:ID,name,age:long' }],
        edges: [{ type: 'F', files: ['f.csv'], header: [':START_ID', ':END_ID'] }],
        indexes: [{ node_equality: { label: 'U', property: 'name', unique: true } }],
      }),
    );
    const run = await runImportCli(['--data', 'db', '--mapping', 'map.json'], dir.path);
    assert.equal(run.code, 0, run.err);
    const db = await open(join(dir.path, 'db'), { readOnly: true });
    try {
      const catalog = db.store.read((r) => r.indexCatalog().defs.map((d) => [d.spec.kind, d.spec.label, d.spec.property, d.state]));
      assert.deepEqual(catalog, [['node_equality', 'U', 'name', 'active']]);
      assert.deepEqual(
        db.store.read((r) => r.nodeCount() + r.edgeCount()),
        3,
      );
    } finally {
      await db.close();
    }
  } finally {
    dir.remove();
  }
});

test('an index that cannot be built fails the import, naming the element, and nothing is kept', async () => {
  const dir = tempDir();
  try {
    writeLines(dir.path, 'u.csv', ['uid:ID,email', '1,a@x', '2,a@x']);
    const unique = JSON.stringify({ node_equality: { label: 'U', property: 'email', unique: true } });
    const run = await runImportCli(['--data', 'db', '--nodes', 'U=u.csv', '--index', unique], dir.path);
    assert.equal(run.code, 1);
    assert.match(run.err, /the index node_equality on U\.email cannot be built: node 1: .*; nothing was imported/);
    assert.equal(existsSync(join(dir.path, 'db', 'data.mdb')), false);
  } finally {
    dir.remove();
  }
});

/** The folder's files and their sizes: what "left as it was" compares. */
function snapshot(path: string): string {
  if (!existsSync(path)) return '(none)';
  return readdirSync(path)
    .sort()
    .map((f) => (f === 'data.mdb' ? `${f}:${readFileSync(join(path, f)).toString('base64').length}` : f))
    .join(',');
}

const ERRORS: [string, string[], string[], RegExp][] = [
  ['a malformed row', ['uid:ID,name', '1,a', '2,"b'], [':START_ID,:END_ID'], /users\.csv:3:3: a quoted field is never closed/],
  [
    'a type that does not parse',
    ['uid:ID,age:int', '1,12', '2,twelve'],
    [':START_ID,:END_ID'],
    /users\.csv:3:3: age: "twelve" is not an integer \(type int\)/,
  ],
  ['a value out of range', ['uid:ID,age:byte', '1,300'], [':START_ID,:END_ID'], /users\.csv:2:3: age: 300 is outside the range of byte/],
  [
    'a row of the wrong width',
    ['uid:ID,name', '1,a,extra'],
    [':START_ID,:END_ID'],
    /users\.csv:2:1: the row has 3 fields, the header has 2/,
  ],
  [
    'an edge whose end does not exist',
    ['uid:ID', '1', '2'],
    [':START_ID,:END_ID', '1,2', '2,9'],
    /follows\.csv:3:1: the edge's end "9" is no node's key in the global id space/,
  ],
  ['a duplicate key', ['uid:ID', '1', '2', '1'], [':START_ID,:END_ID'], /users\.csv:4:1: duplicate key "1" in the global id space/],
  [
    'an unknown type',
    ['uid:ID,where:point'],
    [':START_ID,:END_ID'],
    /users\.csv:1:1: header field "where:point": Trellis has no point type/,
  ],
];

for (const [name, nodeLines, edgeLines, message] of ERRORS) {
  test(`${name} stops the import with file:line:column, and nothing is kept`, async () => {
    const dir = tempDir();
    try {
      writeLines(dir.path, 'users.csv', nodeLines);
      writeLines(dir.path, 'follows.csv', edgeLines);
      // The target: a database with an index declared and nothing else.
      const db = await open(join(dir.path, 'db'));
      await db.query({
        request_type: 'write',
        query: {
          write: {
            entries: [{ query: { root: { create_index: { spec: { node_equality: { label: 'U', property: 'uid', unique: false } } } } } }],
            returns: [],
          },
        },
      });
      await db.close();
      const before = snapshot(join(dir.path, 'db'));
      const run = await runImportCli(['--data', 'db', '--nodes', 'U=users.csv', '--edges', 'F=follows.csv'], dir.path);
      assert.equal(run.code, 1);
      assert.match(run.err, message);
      assert.match(run.err, /nothing was imported/);
      assert.equal(snapshot(join(dir.path, 'db')), before);
      const after = await open(join(dir.path, 'db'));
      assert.equal(
        after.store.read((r) => r.nodeCount()),
        0,
      );
      await after.close();
    } finally {
      dir.remove();
    }
  });
}

test('--skip-bad-rows writes the rejected rows with their reasons and goes on; one more stops it', async () => {
  const dir = tempDir();
  try {
    writeLines(dir.path, 'users.csv', ['uid:ID,age:int', '1,10', '2,ten', '3,30', '1,40']);
    writeLines(dir.path, 'follows.csv', [':START_ID,:END_ID', '1,3', '3,7']);
    const args = ['--nodes', 'U=users.csv', '--edges', 'F=follows.csv', '--rejects', 'bad.jsonl'];
    const run = await runImportCli(['--data', 'db', '--skip-bad-rows', '3', ...args], dir.path);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /2 nodes and 1 edges .* 3 rows rejected \(in .*bad\.jsonl\)/);
    const rejects = readFileSync(join(dir.path, 'bad.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { file: string; line: number; column: number; reason: string; row: string });
    assert.deepEqual(
      rejects.map((r) => [r.file.endsWith('users.csv') || r.file.endsWith('follows.csv'), r.line, r.column, r.row]),
      [
        [true, 3, 3, '2,ten'],
        [true, 5, 1, '1,40'],
        [true, 3, 1, '3,7'],
      ],
    );
    assert.match(rejects[1]!.reason, /duplicate key "1"/);
    const { nodes } = await dump(join(dir.path, 'db'));
    assert.deepEqual(
      nodes.map((n) => n.props.uid),
      ['1', '3'],
    );
    const stopped = await runImportCli(['--data', 'db2', '--skip-bad-rows', '2', ...args], dir.path);
    assert.equal(stopped.code, 1);
    assert.match(stopped.err, /follows\.csv:3:1: .*more than --skip-bad-rows 2 bad rows/);
    assert.equal(existsSync(join(dir.path, 'db2', 'data.mdb')), false);
  } finally {
    dir.remove();
  }
});

test('a database that holds data is refused; usage mistakes exit 2', async () => {
  const dir = tempDir();
  try {
    writeLines(dir.path, 'users.csv', ['uid:ID', '1']);
    assert.equal((await runImportCli(['--data', 'db', '--nodes', 'U=users.csv'], dir.path)).code, 0);
    const again = await runImportCli(['--data', 'db', '--nodes', 'U=users.csv'], dir.path);
    assert.equal(again.code, 1);
    assert.match(again.err, /is not empty \(1 nodes, 0 edges\); the offline import only loads an empty database/);
    const usage = await runImportCli(['--nodes', 'U=users.csv'], dir.path);
    assert.equal(usage.code, 2);
    assert.match(usage.err, /give exactly one of --data DIR/);
    assert.match((await runImportCli(['--data', 'x', '--nodes', 'A:B=users.csv'], dir.path)).err, /has one label/);
    assert.match((await runImportCli(['--data', 'x', '--nodes', 'U=users.csv', '--delimiter', 'ab'], dir.path)).err, /one ASCII character/);
    assert.match((await runImportCli(['--data', 'x', '--index', '{"nope":1}'], dir.path)).err, /--index #1/);
    assert.equal((await runImportCli(['--help'], dir.path)).code, 0);
  } finally {
    dir.remove();
  }
});
