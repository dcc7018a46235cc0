/**
 * CSV read in a thread of its own (src/bulk-io/threaded-csv.ts): the same batches, places,
 * rejects and progress as reading on the main thread, over many batches; the thread's
 * failures come back as the same errors; groups in order, and close ends the thread; and an import
 * whose file spans several batches names the right line of a bad row in a later one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ImportError, type ParsedBatch, type Reject } from '../../src/bulk-io/convert.js';
import { HeaderError } from '../../src/bulk-io/header.js';
import { DateTime } from '../../src/core/value.js';
import { readCsv, type FileGroup, type ReadOptions } from '../../src/bulk-io/sources.js';
import { CsvThread } from '../../src/bulk-io/threaded-csv.js';
import { tempDir } from '../helpers/server.js';
import { dump, runImportCli, writeLines } from '../helpers/bulk-io.js';

const group = (files: string[], element: 'node' | 'edge' = 'node'): FileGroup => ({
  element,
  label: element === 'node' ? 'U' : 'F',
  files,
  format: 'csv',
  header: undefined,
  headerLine: false,
  columns: new Map(),
});

/** Read options recording rejects and bytes; small batches so that a file makes many. */
function recording(skipping: boolean, chunkBytes = 2048) {
  const rejects: Reject[] = [];
  let bytes = 0;
  const options: ReadOptions = {
    delimiter: ',',
    quote: '"',
    arrayDelimiter: ';',
    idType: 'string',
    reject: skipping ? (r) => void rejects.push(r) : undefined,
    onBytes: (n) => void (bytes += n),
    chunkBytes,
  };
  return { options, rejects, bytes: () => bytes };
}

/** A group read in a thread of its own, ended after. */
async function* readCsvInThread(g: FileGroup, options: ReadOptions): AsyncGenerator<ParsedBatch> {
  const thread = new CsvThread([g], { ...options, skipping: options.reject !== undefined, chunkBytes: options.chunkBytes });
  try {
    yield* thread.read(g, options);
  } finally {
    await thread.close();
  }
}

/**
 * Everything the batches say, row by row (where batches end may differ: gzip's chunks come
 * as they come): each kept row's key, ends, label, cells and place (line, each cell's
 * column, raw text); and how many batches there were.
 */
async function collect(batches: AsyncGenerator<ParsedBatch>, width: number) {
  const rows = [];
  let count = 0;
  for await (const batch of batches) {
    count++;
    const at = <T>(a: ArrayLike<T> | null, i: number) => (a === null ? null : a[i]);
    for (let i = 0; i < batch.count; i++) {
      const r = batch.rowOf === null ? i : batch.rowOf[i]!;
      rows.push({
        key: at(batch.keys, i),
        start: at(batch.starts, i),
        end: at(batch.ends, i),
        label: at(batch.labels, i),
        spaces: batch.spaces,
        cells: batch.columns.map((c) => [c.name, c.kind, c.kind === 'value' || c.present?.[i] !== 0 ? c.values[i] : undefined]),
        file: batch.places.file,
        line: batch.places.position(r, -1).line,
        columns: Array.from({ length: width }, (_, c) => batch.places.position(r, c)),
        raw: batch.places.raw(r),
      });
    }
  }
  return { rows, batches: count };
}

/** Rows of every kind the converter treats apart, some spanning lines, some bad. */
function nodeLines(n: number): string[] {
  const lines = ['uid:ID(U),name,age:long,score:double,born:date,at:datetime,tags:string[],emb:float[],big:long,doc:json,:LABEL'];
  for (let i = 0; i < n; i++) {
    const name = i % 7 === 0 ? `"Ada ""the"" ${i}\nsecond line"` : i % 5 === 0 ? `Zoë ✓ ${i}` : `n${i}`;
    const age = i % 11 === 0 ? '' : i % 13 === 0 ? 'ten' : String(i);
    const big = i % 17 === 0 ? '9007199254740993' : String(-i);
    lines.push(
      `${i},${name},${age},${i / 4},2020-01-0${(i % 9) + 1},2020-01-01T00:00:0${i % 10}Z,a;b${i},0.5;-0.0,${big},"{""i64"":${i}}",L${i % 3}`,
    );
    if (i % 97 === 0) lines.push('');
  }
  return lines;
}

test('a CSV file of many batches reads the same in the thread as here: batches, places, rejects, progress', async () => {
  const dir = tempDir();
  try {
    const file = writeLines(dir.path, 'users.csv', nodeLines(3000));
    const kept = (await collect(readCsv(group([file]), recording(true).options), 11)).rows;
    // Most rows are good, and they hold every kind of value: DateTime, bigint, typed arrays.
    assert.ok(kept.length > 2000, `${kept.length} rows kept`);
    assert.ok(kept[1]!.cells.some(([, , v]) => v instanceof DateTime));
    for (const skipping of [true, false]) {
      const here = recording(skipping);
      const there = recording(skipping);
      if (skipping) {
        const expected = await collect(readCsv(group([file]), here.options), 11);
        const got = await collect(readCsvInThread(group([file]), there.options), 11);
        assert.ok(got.batches > 20, `${got.batches} batches`);
        assert.deepEqual(got.rows, expected.rows);
        assert.ok(here.rejects.length > 100);
        assert.deepEqual(there.rejects, here.rejects);
        assert.equal(there.bytes(), here.bytes());
      } else {
        // Without --skip-bad-rows the first bad cell (an age of "ten") stops both, at the same place.
        const expected = await collect(readCsv(group([file]), here.options), 11).catch((err: unknown) => err);
        const got = await collect(readCsvInThread(group([file]), there.options), 11).catch((err: unknown) => err);
        assert.ok(got instanceof ImportError);
        assert.deepEqual(got, expected);
      }
    }
  } finally {
    dir.remove();
  }
});

test('edge keys cross as numbers, a header file and gzip too', async () => {
  const dir = tempDir();
  try {
    const header = writeLines(dir.path, 'header.csv', [':START_ID(U),:END_ID(U),since:long,:TYPE']);
    const lines = Array.from({ length: 5000 }, (_, i) => `${i},${i % 7 === 0 ? 'k' + i : i + 1},${i},${i % 2 ? 'A' : 'B'}`);
    const data = writeLines(dir.path, 'follows.csv.gz', lines);
    const here = recording(false, 1024);
    const there = recording(false, 1024);
    const files = [header, data];
    const expected = await collect(readCsv(group(files, 'edge'), here.options), 4);
    const got = await collect(readCsvInThread(group(files, 'edge'), there.options), 4);
    assert.ok(got.batches > 3, `${got.batches} batches`);
    assert.deepEqual(got.rows, expected.rows);
  } finally {
    dir.remove();
  }
});

test("the thread's failures come back as the same errors: ImportError, HeaderError, anything else", async () => {
  const dir = tempDir();
  try {
    // A syntax error in a later batch: its line, counted over the batches before.
    const lines = ['uid:ID,name', ...Array.from({ length: 2000 }, (_, i) => `${i},n${i}`), '2000,bad"quote'];
    const file = writeLines(dir.path, 'users.csv', lines);
    await assert.rejects(collect(readCsvInThread(group([file]), recording(false).options), 2), (err: unknown) => {
      assert.ok(err instanceof ImportError);
      assert.equal(err.message, `${file}:2002:9: a quote inside an unquoted field (quote the whole field, and write the quote twice)`);
      return true;
    });
    const twoBytes = { ...recording(false).options, delimiter: ';;' };
    await assert.rejects(collect(readCsvInThread(group([file]), twoBytes), 2), (err: unknown) => {
      assert.ok(err instanceof HeaderError);
      assert.match(err.message, /the delimiter must be one ASCII character/);
      return true;
    });
    // A folder for a file: the error of reading it, as reading here would throw it.
    await assert.rejects(collect(readCsvInThread(group([dir.path]), recording(false).options), 2), /EISDIR/);
  } finally {
    dir.remove();
  }
});

// Threads are counted in /proc (Linux).
const noProc = !existsSync('/proc/self/task') && 'needs /proc/self/task (Linux)';

test(
  'groups are read in the order given; closing the thread mid-read ends it; a stopped thread fails the read',
  { skip: noProc },
  async () => {
    const dir = tempDir();
    try {
      const users = writeLines(dir.path, 'users.csv', ['uid:ID,name', ...Array.from({ length: 5000 }, (_, i) => `${i},n${i}`)]);
      const follows = writeLines(dir.path, 'follows.csv', [':START_ID,:END_ID', '1,2']);
      const [nodes, edges] = [group([users]), group([follows], 'edge')];
      const { options } = recording(false);
      // One more thread while the thread reads, as many again once it is ended.
      const threads = () => readdirSync('/proc/self/task').length;
      const before = threads();
      const thread = new CsvThread([nodes, edges], { ...options, skipping: false, chunkBytes: options.chunkBytes });
      await assert.rejects(thread.read(edges, options).next(), /CSV groups read out of the order given/);
      for await (const batch of thread.read(nodes, options)) {
        assert.ok(batch.count > 0);
        break;
      }
      // The nodes' other batches are still coming: the edges cannot be read after them.
      await assert.rejects(thread.read(edges, options).next(), /after a read left part-way/);
      assert.ok(threads() > before, `${threads()} threads while reading, ${before} before`);
      await thread.close();
      assert.equal(threads(), before);
      // A thread that stopped before the end fails the read that waits for it (no hang).
      const stopped = new CsvThread([nodes], { ...options, skipping: false, chunkBytes: options.chunkBytes });
      await stopped.close();
      await assert.rejects(stopped.read(nodes, options).next(), /the CSV reading thread stopped \(exit code \d+\) before the end/);
    } finally {
      dir.remove();
    }
  },
);

test('an import over several 4 MiB batches: right lines for bad rows of later batches, found in the thread and in the load', async () => {
  const dir = tempDir();
  try {
    const n = 150_000;
    const users = ['uid:ID(User),name', ...Array.from({ length: n }, (_, i) => `${i},"user number ${i}, with a long enough name"`)];
    users.push('77,duplicate'); // line n + 2: a duplicate key, found by the load
    writeLines(dir.path, 'users.csv', users);
    const follows = [':START_ID(User),:END_ID(User),since:long'];
    for (let i = 0; i < n * 2; i++) follows.push(`${i % n},${(i * 7) % n},${1_600_000_000 + i}`);
    follows.push('5,6,soon'); // line 2n + 2: a bad cell, found by the thread
    follows.push('5,999999999,7'); // line 2n + 3: an end no node has, found by the load
    writeLines(dir.path, 'follows.csv', follows);
    const args = ['--nodes', 'User=users.csv', '--edges', 'FOLLOWS=follows.csv', '--id-type', 'integer'];
    const stopped = await runImportCli(['--data', 'db1', ...args], dir.path);
    assert.equal(stopped.code, 1);
    assert.match(stopped.err, new RegExp(`users\\.csv:${n + 2}:1: duplicate key 77 in id space User`));
    const run = await runImportCli(['--data', 'db2', '--skip-bad-rows', '3', '--rejects', 'bad.jsonl', ...args], dir.path);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, new RegExp(`${n.toLocaleString('en')} nodes and ${(2 * n).toLocaleString('en')} edges .* 3 rows rejected`));
    const rejects = readFileSync(join(dir.path, 'bad.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Reject);
    assert.deepEqual(
      rejects.map((r) => [r.line, r.column, r.row]),
      [
        [n + 2, 1, '77,duplicate'],
        [2 * n + 2, 5, '5,6,soon'],
        [2 * n + 3, 1, '5,999999999,7'],
      ],
    );
    const { edges } = await dump(join(dir.path, 'db2'));
    assert.equal(edges.length, 2 * n);
  } finally {
    dir.remove();
  }
});
