/**
 * Files of the other formats: Parquet written by another implementation (parquet-wasm,
 * the Rust `parquet` crate, from Apache Arrow tables; the importer reads with hyparquet),
 * and JSON Lines with and without a mapping; progress bars and lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as arrow from 'apache-arrow';
import * as parquetWasm from 'parquet-wasm';
import { DateTime } from '../../src/core/value.js';
import { tempDir } from '../helpers/server.js';
import { dump, runImportCli, writeLines } from '../helpers/bulk-io.js';

/** An Arrow table as a Parquet file, written by parquet-wasm. */
function writeParquet(path: string, table: arrow.Table): void {
  const wasmTable = parquetWasm.Table.fromIPCStream(arrow.tableToIPC(table, 'stream'));
  writeFileSync(path, parquetWasm.writeParquet(wasmTable, new parquetWasm.WriterPropertiesBuilder().build()));
}

test('Parquet written by another tool: keys by column name, types from the schema, nulls missing, lists as vectors', async () => {
  const dir = tempDir();
  try {
    const float = new arrow.Field('item', new arrow.Float32(), true);
    writeParquet(
      join(dir.path, 'people.parquet'),
      new arrow.Table({
        'uid:ID(P)': arrow.vectorFromArray([10n, 11n, 12n], new arrow.Int64()),
        name: arrow.vectorFromArray(['Ada', null, 'Grace 😀'], new arrow.Utf8()),
        age: arrow.vectorFromArray([36, 41, null], new arrow.Int32()),
        ratio: arrow.vectorFromArray([0.5, 1.25, -0], new arrow.Float64()),
        weight: arrow.vectorFromArray([0.1, null, 2], new arrow.Float32()),
        active: arrow.vectorFromArray([true, false, null], new arrow.Bool()),
        born: arrow.vectorFromArray([new Date(Date.UTC(1815, 11, 10)), null, new Date(0)], new arrow.TimestampMillisecond()),
        emb: arrow.vectorFromArray([[0.5, 1], [2], null], new arrow.List(float)),
      }),
    );
    writeParquet(
      join(dir.path, 'knows.parquet'),
      new arrow.Table({
        ':START_ID(P)': arrow.vectorFromArray([10n, 12n], new arrow.Int64()),
        ':END_ID(P)': arrow.vectorFromArray([11n, 10n], new arrow.Int64()),
        since: arrow.vectorFromArray([1833, 1950], new arrow.Int32()),
      }),
    );
    const run = await runImportCli(
      ['--data', 'db', '--id-type', 'integer', '--nodes', 'Person=people.parquet', '--edges', 'KNOWS=knows.parquet'],
      dir.path,
    );
    assert.equal(run.code, 0, run.err);
    const { nodes, edges } = await dump(join(dir.path, 'db'));
    assert.deepStrictEqual(
      nodes.map((n) => n.props),
      [
        {
          uid: 10n,
          name: 'Ada',
          age: 36n,
          ratio: 0.5,
          weight: Math.fround(0.1),
          active: true,
          born: new DateTime(Date.UTC(1815, 11, 10)),
          emb: Float32Array.from([0.5, 1]),
        },
        { uid: 11n, age: 41n, ratio: 1.25, active: false, emb: Float32Array.from([2]) },
        { uid: 12n, name: 'Grace 😀', ratio: -0, weight: 2, born: new DateTime(0) },
      ],
    );
    assert.deepEqual(
      edges.map((e) => [e.from, e.to, e.label, e.props.since]),
      [
        [0, 1, 'KNOWS', 1833n],
        [2, 0, 'KNOWS', 1950n],
      ],
    );
  } finally {
    dir.remove();
  }
});

test('JSON Lines: undeclared members as untyped values, declared ones by the mapping; progress lines and bars', async () => {
  const dir = tempDir();
  try {
    writeLines(dir.path, 'docs.jsonl', [
      '{"id:ID": "a", "title": "First", "n": 1, "x": 1.5, "tags": ["p", "q"], "meta": {"k": true}, "when": "2024-05-01T12:30:00Z"}',
      '',
      '{"id:ID": "b", "title": null, "n": 9007199254740993}',
    ]);
    writeLines(dir.path, 'links.jsonl', ['{":START_ID": "a", ":END_ID": "b", "w": 2}']);
    writeFileSync(
      join(dir.path, 'map.json'),
      JSON.stringify({
        nodes: [{ label: 'Doc', files: ['docs.jsonl'], columns: { when: ':datetime', x: ':float' } }],
        edges: [{ type: 'LINKS', files: ['links.jsonl'] }],
      }),
    );
    const run = await runImportCli(['--data', 'db', '--mapping', 'map.json', '--progress', 'lines'], dir.path);
    assert.equal(run.code, 0, run.err);
    const { nodes, edges } = await dump(join(dir.path, 'db'));
    assert.deepStrictEqual(nodes[0]!.props, {
      id: 'a',
      title: 'First',
      n: 1n,
      x: Math.fround(1.5),
      tags: ['p', 'q'],
      meta: { k: true },
      when: new DateTime(Date.UTC(2024, 4, 1, 12, 30)),
    });
    assert.deepStrictEqual(nodes[1]!.props, { id: 'b', n: 9007199254740993n });
    assert.deepEqual(edges[0]!.props, { w: 2n });
    const bad = await runImportCli(
      ['--data', 'db2', '--nodes', 'D=bad.jsonl'],
      (writeLines(dir.path, 'bad.jsonl', ['{"id:ID": 1}', '[1]']), dir.path),
    );
    assert.equal(bad.code, 1);
    assert.match(bad.err, /bad\.jsonl:2:1: each line must hold one JSON object/);
  } finally {
    dir.remove();
  }
});

test('JSON Lines: characters of several bytes cut by a chunk boundary of the (gzip) stream read back whole', async () => {
  const dir = tempDir();
  try {
    // Every name is two-byte characters only, over many 16 KiB chunks of gunzip's output:
    // chunk boundaries fall inside characters.
    const names = Array.from({ length: 3000 }, (_, i) => 'é'.repeat(20 + (i % 7)) + '😀');
    writeLines(
      dir.path,
      'people.jsonl.gz',
      names.map((name, i) => JSON.stringify({ 'uid:ID': i, name })),
    );
    const run = await runImportCli(['--data', 'db', '--nodes', 'P=people.jsonl.gz'], dir.path);
    assert.equal(run.code, 0, run.err);
    const { nodes } = await dump(join(dir.path, 'db'));
    assert.deepStrictEqual(
      nodes.map((n) => n.props.name),
      names,
    );
  } finally {
    dir.remove();
  }
});

test('progress: a bar per phase when asked (a terminal gets them by default), plain lines otherwise, then the summary', async () => {
  const dir = tempDir();
  try {
    const lines = ['uid:ID,name'];
    for (let i = 0; i < 2000; i++) lines.push(`${i},n${i}`);
    writeLines(dir.path, 'n.csv', lines);
    const cli = new URL('../../src/cli.js', import.meta.url).pathname;
    const run = (args: string[]) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [cli, 'import', ...args, '--nodes', 'N=n.csv'], { cwd: dir.path });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(out))));
      });
    const plain = await run(['--data', 'a']);
    assert.match(plain, /^nodes N: 2,000 rows in [\d.]+ s$/m, 'not a terminal: plain lines');
    assert.match(plain, /^adjacency: 0 rows in [\d.]+ s$/m);
    assert.match(plain, /^trellis import: 2,000 nodes and 0 edges in [\d.]+ s \([\d,]+ rows\/s, peak RSS \d+ MiB\), no row rejected$/m);
    const bars = await run(['--data', 'b', '--progress', 'bars']);
    assert.match(bars, /nodes N\s+[█░]+ 100% \| [\d.]+ MiB \| 2,000 rows \| [\d,]+ rows\/s \| ETA/);
    const none = await run(['--data', 'c', '--progress', 'none']);
    assert.doesNotMatch(none, /rows in/);
    assert.match(none, /^trellis import: 2,000 nodes/m);
  } finally {
    dir.remove();
  }
});
