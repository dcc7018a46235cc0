/**
 * Export, import back, equal: every value kind Trellis keeps, in CSV, JSON Lines and
 * Parquet, through the import.json mapping the export writes. Strings with the delimiter,
 * quotes, line breaks and non-BMP characters; empty strings against missing properties;
 * date-times; -0.0, NaN, ±Infinity and 1e308; 64-bit integers beyond 2^53; vectors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from '../../src/index.js';
import { DateTime, type ValueObject } from '../../src/core/value.js';
import { tempDir } from '../helpers/server.js';
import { canonical, dump, runExportCli, runImportCli } from '../helpers/bulk-io.js';

const PEOPLE: ValueObject[] = [
  {
    name: 'Ada, "the first" programmer\nline two',
    emoji: '😀 𝄞 non-BMP',
    empty: '',
    big: 9007199254740993n,
    small: -(2n ** 63n),
    f: 1e308,
    negZero: -0,
    nan: NaN,
    inf: Infinity,
    minusInf: -Infinity,
    tiny: 5e-324,
    whole: 3,
    when: new DateTime(Date.UTC(1815, 11, 10, 1, 2, 3, 4)),
    before1970: new DateTime(-1234567890123),
    vec: Float32Array.from([0.1, -0.5, 3.4028234663852886e38]),
    f64s: Float64Array.from([0.1, -0, 1e-300]),
    i64s: BigInt64Array.from([1n, -(2n ** 62n)]),
    tags: ['a', 'b c', 'd,e'],
    flags: [true, false],
    yes: true,
    dates: [new DateTime(0), new DateTime(86_400_000)],
  },
  {
    // Missing where the first has values; kinds that need the json type.
    name: 'Bob',
    nothing: null,
    bytes: Uint8Array.from([0, 255, 7]),
    obj: { k: 1n, nested: { s: 'x', arr: [1.5, 'y', null] } },
    mixed: [1n, 'two', 3.5, false],
    tagsWithDelimiter: ['x;y'],
    emptyTag: [''],
    emptyList: [],
    f: 'now a string',
  },
  { name: 'Carol', vec: Float32Array.from([]), when: new DateTime(0) },
];

async function source(path: string): Promise<void> {
  const db = await open(path);
  await db.store.write((w) => {
    const ids = PEOPLE.map((p, i) => w.createNode(i === 2 ? 'Robot' : 'Person', p));
    w.createEdge('KNOWS', ids[0]!, ids[1]!, { since: 1833n, weight: 0.5, note: 'a "quote", a comma\r\nand CRLF' });
    w.createEdge('KNOWS', ids[1]!, ids[0]!, {});
    w.createEdge('BUILT', ids[0]!, ids[2]!, { when: new DateTime(5), w: -0 });
    w.createEdge('KNOWS', ids[2]!, ids[2]!, { v: Float32Array.from([1, 2]) });
  });
  await db.close();
}

for (const format of ['csv', 'jsonl', 'parquet'] as const) {
  test(`export to ${format}, import back: equal, value for value`, async () => {
    const dir = tempDir();
    try {
      await source(join(dir.path, 'a'));
      const exported = await runExportCli(['--data', 'a', '--out', 'out', '--format', format], dir.path);
      assert.equal(exported.code, 0, exported.err);
      assert.match(exported.out, /3 nodes and 4 edges/);
      const imported = await runImportCli(['--data', 'b', '--mapping', join('out', 'import.json')], dir.path);
      assert.equal(imported.code, 0, imported.err);
      const original = canonical(await dump(join(dir.path, 'a')));
      const copy = canonical(await dump(join(dir.path, 'b')));
      assert.deepStrictEqual(copy, original);
      if (format === 'csv') {
        const header = readFileSync(join(dir.path, 'out', 'nodes-1-Person.csv'), 'utf8').split('\n')[0]!;
        assert.match(header, /^:ID,name:string,emoji:string,empty:string,big:long,small:long,f:json,negZero:double,/);
        assert.match(
          header,
          /vec:float\[\],f64s:double\[\],i64s:long\[\],tags:string\[\],flags:boolean\[\],yes:boolean,dates:datetime\[\],nothing:json/,
        );
      }
    } finally {
      dir.remove();
    }
  });
}

test('--labels and --types export a part: edges only between exported nodes', async () => {
  const dir = tempDir();
  try {
    await source(join(dir.path, 'a'));
    const run = await runExportCli(['--data', 'a', '--out', 'out', '--labels', 'Person', '--types', 'KNOWS'], dir.path);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /2 nodes and 2 edges/);
    assert.equal((await runImportCli(['--data', 'b', '--mapping', 'out/import.json'], dir.path)).code, 0);
    const copy = await dump(join(dir.path, 'b'));
    assert.deepEqual(
      copy.edges.map((e) => e.label),
      ['KNOWS', 'KNOWS'],
    );
    assert.equal((await runExportCli(['--data', 'a'], dir.path)).code, 2);
    assert.equal((await runExportCli(['--data', 'a', '--out', 'x', '--format', 'xml'], dir.path)).code, 2);
    assert.match((await runExportCli(['--data', 'missing', '--out', 'x'], dir.path)).err, /does not exist/);
  } finally {
    dir.remove();
  }
});

test('the Cypher script recreates the graph in a Cypher database (here Trellis itself)', async () => {
  const dir = tempDir();
  try {
    const db = await open(join(dir.path, 'a'));
    await db.store.write((w) => {
      const a = w.createNode('Person', { name: 'O\'Hara \\ "q"\nx', n: 5n, f: 2.5, ok: true, tags: ['x', 'y'] });
      const b = w.createNode('Robot model', { name: 'R2' });
      w.createEdge('KNOWS', a, b, { since: 1977n });
      w.createEdge('KNOWS', b, b, {});
    });
    await db.close();
    const run = await runExportCli(['--data', 'a', '--out', 'out', '--format', 'cypher'], dir.path);
    assert.equal(run.code, 0, run.err);
    const script = readFileSync(join(dir.path, 'out', 'graph.cypher'), 'utf8');
    const target = await open(join(dir.path, 'b'));
    for (const line of script.split('\n')) {
      if (line.trim() === '' || line.startsWith('//')) continue;
      await target.cypherText({ query: line.replace(/;$/, '') });
    }
    const rows = (await target.query({
      request_type: 'read',
      query: { read: { entries: [{ query: { name: 'r', root: { nodes: { reference: 'all' } } } }], returns: ['r'] } },
    })) as { r: { $label: string; name: string; __trellis_id?: unknown }[] };
    await target.close();
    assert.deepEqual(canonical(await dump(join(dir.path, 'b'))), canonical(await dump(join(dir.path, 'a'))));
    assert.equal(rows.r.length, 2);
    // Another database in the same process, its ids on other labels: edges match their ends' labels.
    const other = await open(join(dir.path, 'c'));
    const ids = await other.store.write((w) => {
      const a = w.createNode('City', {});
      const b = w.createNode('Town', {});
      w.createEdge('ROAD', a, b, {});
      return [a, b];
    });
    await other.close();
    const again = await runExportCli(['--data', 'c', '--out', 'out2', '--format', 'cypher'], dir.path);
    assert.equal(again.code, 0, again.err);
    const script2 = readFileSync(join(dir.path, 'out2', 'graph.cypher'), 'utf8');
    const road = `MATCH (a:City {\`__trellis_id\`: ${ids[0]}}), (b:Town {\`__trellis_id\`: ${ids[1]}}) CREATE (a)-[:ROAD]->(b);`;
    assert.ok(script2.includes(road), script2);
  } finally {
    dir.remove();
  }
});
