/** What the commands say about mistakes in their input: labels, mapping files, empty files, flags. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/server.js';
import { runExportCli, runImportCli, writeLines } from '../helpers/bulk-io.js';

test('labels: none at all, an empty :LABEL cell, two labels in one cell; a row whose key is missing', async () => {
  const dir = tempDir();
  try {
    writeLines(dir.path, 'plain.csv', ['id:ID', '1']);
    writeLines(dir.path, 'labelled.csv', ['id:ID,:LABEL', '1,A', '2,', '3,B;C']);
    const none = await runImportCli(['--data', 'a', '--nodes', 'plain.csv'], dir.path);
    assert.match(none.err, /plain\.csv:1:1: the rows have no label: give one \(--nodes Label=FILE\) or a :LABEL column/);
    const empty = await runImportCli(['--data', 'b', '--nodes', 'labelled.csv', '--skip-bad-rows', '1'], dir.path);
    assert.match(empty.err, /labelled\.csv:3:1: the row has no label \(its :LABEL cell is empty\)/);
    writeLines(dir.path, 'two.csv', ['id:ID,:LABEL', '3,B;C']);
    assert.match(
      (await runImportCli(['--data', 'c', '--nodes', 'two.csv'], dir.path)).err,
      /two\.csv:2:3: 2 labels \(B, C\): a Trellis element has exactly one/,
    );
    writeLines(dir.path, 'edges.csv', [':START_ID,:END_ID,:TYPE', '1,1,']);
    const edgeType = await runImportCli(['--data', 'd', '--nodes', 'N=plain.csv', '--edges', 'edges.csv'], dir.path);
    assert.match(edgeType.err, /edges\.csv:2:1: the row has no type \(its :TYPE cell is empty\)/);
    writeLines(dir.path, 'nokey.jsonl', ['{"id:ID": 1}', '{"name": "x"}']);
    assert.match(
      (await runImportCli(['--data', 'e', '--nodes', 'N=nokey.jsonl'], dir.path)).err,
      /nokey\.jsonl:2:1: the row has no key \(:ID\)/,
    );
    writeLines(dir.path, 'nullkey.jsonl', ['{"id:ID": null}']);
    assert.match(
      (await runImportCli(['--data', 'f', '--nodes', 'N=nullkey.jsonl'], dir.path)).err,
      /nullkey\.jsonl:1:1: the key "id:ID" is null/,
    );
    writeLines(dir.path, 'badedge.csv', [':START_ID,:END_ID', ',1']);
    assert.match(
      (await runImportCli(['--data', 'g', '--nodes', 'N=plain.csv', '--edges', 'E=badedge.csv'], dir.path)).err,
      /badedge\.csv:2:1: the :START_ID is empty/,
    );
  } finally {
    dir.remove();
  }
});

test('empty and unreadable files, and JSON Lines that are not objects', async () => {
  const dir = tempDir();
  try {
    writeFileSync(join(dir.path, 'empty.csv'), '');
    assert.match(
      (await runImportCli(['--data', 'a', '--nodes', 'N=empty.csv'], dir.path)).err,
      /empty\.csv:1:1: the file is empty: the first file of a group starts with its header line/,
    );
    assert.match((await runImportCli(['--data', 'b', '--nodes', 'N=missing.csv'], dir.path)).err, /missing\.csv/);
    writeFileSync(join(dir.path, 'not.parquet'), 'not parquet at all');
    assert.match(
      (await runImportCli(['--data', 'c', '--nodes', 'N=not.parquet'], dir.path)).err,
      /not\.parquet:0:0: cannot read it as Parquet/,
    );
    writeLines(dir.path, 'lines.jsonl', ['{"a": 1}', 'not json', '[2]']);
    const skipped = await runImportCli(
      ['--data', 'd', '--nodes', 'N=lines.jsonl', '--skip-bad-rows', '5', '--rejects', 'r.jsonl'],
      dir.path,
    );
    assert.equal(skipped.code, 0, skipped.err);
    assert.match(skipped.out, /1 nodes and 0 edges .* 2 rows rejected/);
    assert.match((await runImportCli(['--data', 'e', '--nodes', 'N=lines.jsonl'], dir.path)).err, /lines\.jsonl:2:1: not a JSON object/);
  } finally {
    dir.remove();
  }
});

test('mapping files: every mistake is named with its place', async () => {
  const dir = tempDir();
  try {
    const cases: [unknown, RegExp][] = [
      [[1], /must hold a JSON object/],
      [{ nodez: [] }, /unknown key "nodez"; known keys: nodes, edges/],
      [{ nodes: {} }, /"nodes" must be an array of groups/],
      [{ nodes: [1] }, /nodes\[0\] must be an object/],
      [{ nodes: [{ label: 'A', files: ['a.csv'], extra: 1 }] }, /nodes\[0\]: unknown key "extra"/],
      [{ nodes: [{ label: '', files: ['a.csv'] }] }, /nodes\[0\]\.label must be a name/],
      [{ edges: [{ type: 'T', files: [] }] }, /edges\[0\]\.files must be a list of file names/],
      [{ nodes: [{ label: 'A', files: ['a.csv'], format: 'xml' }] }, /nodes\[0\]\.format must be "csv", "jsonl" or "parquet"/],
      [{ nodes: [{ label: 'A', files: ['a.csv'], header: 5 }] }, /nodes\[0\]\.header must be a header line/],
      [{ nodes: [{ label: 'A', files: ['a.csv'], headerLine: 'yes' }] }, /nodes\[0\]\.headerLine must be true or false/],
      [{ nodes: [{ label: 'A', files: ['a.csv'], columns: [] }] }, /nodes\[0\]\.columns must map member names to fields/],
      [{ nodes: [{ label: 'A', files: ['a.csv'], columns: { a: 1 } }] }, /nodes\[0\]\.columns\.a must be a header field/],
      [{ indexes: {} }, /"indexes" must be an array of create_index specs/],
      [{ indexes: [{ node_equality: {} }] }, /indexes\[0\]/],
      [{ delimiter: 1 }, /"delimiter" must be a string/],
    ];
    for (const [json, message] of cases) {
      writeFileSync(join(dir.path, 'm.json'), JSON.stringify(json));
      const run = await runImportCli(['--data', 'x', '--mapping', 'm.json'], dir.path);
      assert.equal(run.code, 2, JSON.stringify(json));
      assert.match(run.err, message, JSON.stringify(json));
    }
    writeFileSync(join(dir.path, 'broken.json'), '{');
    assert.match((await runImportCli(['--data', 'x', '--mapping', 'broken.json'], dir.path)).err, /--mapping .*broken\.json: /);
    writeFileSync(
      join(dir.path, 'tab.json'),
      JSON.stringify({ delimiter: 'TAB', idType: 'integer', nodes: [{ label: 'A', files: ['a.tsv'] }] }),
    );
    writeLines(dir.path, 'a.tsv', ['id:ID\tname', '7\tx']);
    assert.equal((await runImportCli(['--data', 'y', '--mapping', 'tab.json'], dir.path)).code, 0);
  } finally {
    dir.remove();
  }
});

test('flags: each mistake named, exit status 2', async () => {
  const dir = tempDir();
  try {
    const cases: [string[], RegExp][] = [
      [['--data'], /--data needs a value/],
      [['--bogus', 'x'], /unknown option --bogus/],
      [['stray'], /unexpected argument "stray"/],
      [['--data', 'x', '--url', 'http://h'], /give exactly one of --data DIR/],
      [['--data', 'x', '--key', 'k', '--nodes', 'a.csv'], /--key is for --url/],
      [['--data', 'x'], /nothing to import/],
      [['--data', 'x', '--nodes', 'A='], /no file/],
      [['--data', 'x', '--nodes', '=a.csv'], /the label before "=" is empty/],
      [['--data', 'x', '--nodes', 'a.csv', '--id-type', 'uuid'], /--id-type must be "string" or "integer"/],
      [['--data', 'x', '--nodes', 'a.csv', '--progress', 'loud'], /--progress must be auto, bars, lines or none/],
      [['--data', 'x', '--nodes', 'a.csv', '--skip-bad-rows', '-1'], /--skip-bad-rows must be an integer of at least 0/],
      [['--data', 'x', '--nodes', 'a.csv', '--delimiter', '"'], /the delimiter and the quote character must differ/],
      [['--data', 'x', '--nodes', 'a.csv', '--index', '{'], /--index \{: not JSON/],
    ];
    for (const [args, message] of cases) {
      const run = await runImportCli(args, dir.path);
      assert.equal(run.code, 2, args.join(' '));
      assert.match(run.err, message, args.join(' '));
    }
    const exportCases: [string[], RegExp][] = [
      [['--data', 'x', '--out'], /--out needs a value/],
      [['--data', 'x', '--out', 'o', '--progress', 'loud'], /--progress must be auto, bars, lines or none/],
      [['--data', 'x', '--out', 'o', '--array-delimiter', ';;'], /--array-delimiter must be one character/],
      [['--nope'], /unknown option --nope/],
      [['stray'], /unexpected argument "stray"/],
    ];
    for (const [args, message] of exportCases) {
      const run = await runExportCli(args, dir.path);
      assert.equal(run.code, 2, args.join(' '));
      assert.match(run.err, message, args.join(' '));
    }
    assert.equal((await runExportCli(['--help'], dir.path)).code, 0);
  } finally {
    dir.remove();
  }
});
