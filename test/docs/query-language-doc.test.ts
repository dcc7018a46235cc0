/**
 * docs/query-language.md against the code: its diagnostic example is what the tokenizer
 * and formatter print for that line, its punctuation list is the tokenizer's, and every
 * query example runs on a real server and answers as the page shows.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { formatDiagnostic } from '../../src/hql/diagnostics.js';
import { lex, PUNCTUATION } from '../../src/hql/lexer.js';
import { startTestServer, tempDir } from '../helpers/server.js';
import { fencedBlocks } from '../helpers/markdown.js';

const doc = readFileSync(fileURLToPath(new URL('../../../docs/query-language.md', import.meta.url)), 'utf8');

test('the diagnostic example of docs/query-language.md is what the code prints', () => {
  const example = /## Diagnostics[\s\S]*?```\n([\s\S]*?)\n```/.exec(doc)?.[1];
  assert.ok(example, 'the Diagnostics section has a code block');
  const source = 'QUERY A() =>\n\tx <- "bad \\q"\nRETURN x\n';
  const { errors } = lex(source);
  assert.equal(errors.length, 1);
  assert.equal(formatDiagnostic({ file: 'queries/users.hx', ...errors[0]! }, source), example);
});

test("the punctuation docs/query-language.md lists is the tokenizer's, in its order", () => {
  const line = /\*\*Punctuation\*\*: ([\s\S]*?), the two-character forms/.exec(doc)?.[1];
  assert.ok(line, 'the Punctuation rule is there');
  const listed = [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  assert.deepEqual(listed, [...PUNCTUATION]);
});

/**
 * `expected` with its placeholders: "<now>" is any RFC 3339 time, "<any>" any string.
 * Returns `actual` where a placeholder matched, so deepEqual compares the rest.
 */
function fillPlaceholders(expected: unknown, actual: unknown): unknown {
  if (expected === '<now>' && typeof actual === 'string' && /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(actual)) return actual;
  if (expected === '<any>' && typeof actual === 'string') return actual;
  if (Array.isArray(expected) && Array.isArray(actual)) return expected.map((e, i) => fillPlaceholders(e, actual[i]));
  if (expected !== null && typeof expected === 'object' && actual !== null && typeof actual === 'object') {
    return Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, fillPlaceholders(v, (actual as Record<string, unknown>)[k])]));
  }
  return expected;
}

test('every example of docs/query-language.md: the hx blocks are one project, each call answers as shown', async () => {
  const blocks = fencedBlocks(doc);
  const dir = tempDir();
  const data = tempDir();
  writeFileSync(join(dir.path, 'trellis.json'), '{}');
  writeFileSync(
    join(dir.path, 'doc.hx'),
    blocks
      .filter((b) => b.info === 'hx')
      .map((b) => b.body)
      .join('\n\n'),
  );
  const server = await startTestServer(['--data', data.path, '--project', dir.path]);
  try {
    let calls = 0;
    for (let i = 0; i < blocks.length; i++) {
      const call = /^json call (\w+)$/.exec(blocks[i]!.info);
      if (call === null) continue;
      const response = blocks[i + 1];
      const status = /^json response(?: (\d{3}))?$/.exec(response?.info ?? '');
      assert.ok(status, `line ${blocks[i]!.line}: a "json call" block is followed by a "json response" block`);
      const res = await fetch(`${server.url}/${call[1]}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: blocks[i]!.body,
      });
      const body = (await res.json()) as unknown;
      const where = `docs/query-language.md line ${blocks[i]!.line} (${call[1]})`;
      assert.equal(res.status, Number(status[1] ?? 200), `${where}: ${JSON.stringify(body)}`);
      assert.deepEqual(body, fillPlaceholders(JSON.parse(response!.body), body), where);
      calls++;
    }
    assert.ok(calls >= 20, `the page has its examples (${calls} calls)`);
  } finally {
    await server.stop();
    dir.remove();
    data.remove();
  }
});

test('the migration example of docs/query-language.md: data written with the "hx v1" project reads as shown with the "hx v2" one', async () => {
  const blocks = fencedBlocks(doc);
  const block = (info: string) => {
    const found = blocks.find((b) => b.info === info);
    assert.ok(found, `the page has a "${info}" block`);
    return found.body;
  };
  const data = tempDir();
  const v1 = tempDir();
  const v2 = tempDir();
  try {
    for (const [dir, info] of [
      [v1, 'hx v1'],
      [v2, 'hx v2'],
    ] as const) {
      writeFileSync(join(dir.path, 'trellis.json'), '{}');
      writeFileSync(join(dir.path, 'schema.hx'), block(info));
    }
    const call = async (url: string, name: string, body: unknown) => {
      const res = await fetch(`${url}/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 200, name);
      return (await res.json()) as unknown;
    };
    const first = await startTestServer(['--data', data.path, '--project', v1.path]);
    try {
      await call(first.url, 'addUser', { name: 'Ann', age: 30 });
    } finally {
      await first.stop();
    }
    const second = await startTestServer(['--data', data.path, '--project', v2.path]);
    try {
      assert.deepEqual(await call(second.url, 'users', {}), JSON.parse(block('json migrated')));
      assert.match(second.output(), /the data is migrated from schema::1 to schema::2/);
    } finally {
      await second.stop();
    }
  } finally {
    data.remove();
    v1.remove();
    v2.remove();
  }
});
