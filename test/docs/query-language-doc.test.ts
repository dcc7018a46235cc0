/**
 * docs/query-language.md against the code: its diagnostic example is what the tokenizer
 * and formatter print for that line, and its punctuation list is the tokenizer's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { formatDiagnostic } from '../../src/hql/diagnostics.js';
import { lex, PUNCTUATION } from '../../src/hql/lexer.js';

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
