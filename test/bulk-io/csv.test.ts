import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CsvParser, CsvSyntaxError, type CsvBatch } from '../../src/bulk-io/csv.js';

const OPTIONS = { delimiter: 44, quote: 34 };

function rowsOf(batch: CsvBatch): string[][] {
  const out: string[][] = [];
  for (let r = 0; r < batch.rows; r++) {
    const row: string[] = [];
    for (let f = batch.rowField[r]!; f < batch.rowField[r + 1]!; f++) row.push(batch.isMissing(f) ? '<missing>' : batch.text(f));
    out.push(row);
  }
  return out;
}

/** Parses `text` fed in pieces of `step` bytes; every row, with its line. */
function parse(text: string, step = Infinity): { rows: string[][]; lines: number[] } {
  const parser = new CsvParser(OPTIONS);
  const bytes = Buffer.from(text);
  const rows: string[][] = [];
  const lines: number[] = [];
  const take = (b: CsvBatch) => {
    rows.push(...rowsOf(b));
    for (let r = 0; r < b.rows; r++) lines.push(b.rowLine[r]!);
  };
  for (let at = 0; at < bytes.length; at += Math.min(step, bytes.length))
    take(parser.feed(bytes.subarray(at, at + Math.min(step, bytes.length))));
  take(parser.finish());
  return { rows, lines };
}

const SAMPLE = 'id,name,note\r\n1,"Smith, Ann","said ""hi""\nand left"\r\n\n2,,""\n3,😀 non-BMP,plain\n4,"",\n"5",last,"no newline at end"';

test('RFC 4180: quoted delimiters, doubled quotes, line breaks in fields, CRLF, empty lines, missing against empty', () => {
  const { rows, lines } = parse(SAMPLE);
  assert.deepEqual(rows, [
    ['id', 'name', 'note'],
    ['1', 'Smith, Ann', 'said "hi"\nand left'],
    ['2', '<missing>', ''],
    ['3', '😀 non-BMP', 'plain'],
    ['4', '', '<missing>'],
    ['5', 'last', 'no newline at end'],
  ]);
  // Rows are numbered by the line they start on; the quoted line break counts.
  assert.deepEqual(lines, [1, 2, 5, 6, 7, 8]);
});

test('the same rows whatever the chunks the bytes arrive in', () => {
  const whole = parse(SAMPLE);
  for (const step of [1, 2, 3, 5, 7, 16]) assert.deepEqual(parse(SAMPLE, step), whole, `in pieces of ${step} bytes`);
});

test('a trailing delimiter makes an empty last field; another delimiter and quote work', () => {
  assert.deepEqual(parse('a,b,\n').rows, [['a', 'b', '<missing>']]);
  const parser = new CsvParser({ delimiter: 9, quote: 39 });
  const batch = parser.feed(Buffer.from("x\t'a\tb'\t'it''s'\n"));
  assert.deepEqual(
    rowsOf(batch).map((r) => r.map((_, f) => batch.text(batch.rowField[0]! + f, 39))),
    [['x', 'a\tb', "it's"]],
  );
});

test('syntax errors name the line and the column', () => {
  const fails = (text: string, line: number, column: number, reason: RegExp) => {
    assert.throws(
      () => parse(text),
      (err: unknown) => err instanceof CsvSyntaxError && err.line === line && err.column === column && reason.test(err.reason),
      text,
    );
  };
  fails('a,b\n1,x"y\n', 2, 4, /quote inside an unquoted field/);
  fails('a,b\n1,"x"y\n', 2, 6, /after the closing quote/);
  fails('a,b\n1,"never closed\nmore\n', 2, 3, /never closed/);
  fails('é,"ü"x\n', 1, 6, /after the closing quote/);
});
