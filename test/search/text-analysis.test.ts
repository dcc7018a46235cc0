/** Text analysis and the per-document and per-write text limits (src/search/text-analysis.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  analyzeDocument,
  ANALYSIS_BYTES_LIMIT,
  checkDocumentLimits,
  describeStagingBreach,
  describeTextLimitBreach,
  documentUsage,
  INPUT_BYTES_LIMIT,
  OUTPUT_BYTES_LIMIT,
  OUTPUT_OPERATIONS_LIMIT,
  PUBLICATION_ROW_BUDGET,
  queryTerms,
  STAGED_TEXT_LIMIT,
  TextStaging,
  tokenize,
} from '../../src/search/text-analysis.js';

const usageOf = (text: string, tenant: string | null = null, readBytes = 0) =>
  documentUsage(text, analyzeDocument(text), tenant, readBytes);
const breachOf = (text: string, tenant: string | null = null) => checkDocumentLimits(usageOf(text, tenant));

/** `n` distinct terms: "t0", "t1", ... in base 36 (letters and digits make one token). */
const uniqueTerms = (n: number, prefix = 't') => Array.from({ length: n }, (_, i) => prefix + i.toString(36)).join(' ');

test('tokens are runs of letters and digits, split on punctuation, spaces and symbols', () => {
  assert.deepEqual(tokenize("Hello, world! It's 3.14-pm; x_y a+b (c) [d] {e} f/g"), [
    'hello',
    'world',
    'it',
    's',
    '3',
    '14',
    'pm',
    'x',
    'y',
    'a',
    'b',
    'c',
    'd',
    'e',
    'f',
    'g',
  ]);
  assert.deepEqual(tokenize('abc123def 42 v2.0 ²³ ½'), ['abc123def', '42', 'v2', '0', '²³', '½']);
  assert.deepEqual(tokenize('  \t\n'), []);
  assert.deepEqual(tokenize(''), []);
  assert.deepEqual(tokenize('...!?'), []);
});

test('tokens are lowercased, without stemming or stop words', () => {
  assert.deepEqual(tokenize('The QUICK Brown foxes RUNNING'), ['the', 'quick', 'brown', 'foxes', 'running']);
  assert.deepEqual(tokenize('ÀÉÎ Straße ΑΘΗΝΑ'), ['àéî', 'straße', 'αθηνα']);
  // Greek final sigma is lowercased as such.
  assert.deepEqual(tokenize('ΟΔΟΣ'), ['οδος']);
});

test('Unicode letters: accents, CJK, other scripts; marks continue a token', () => {
  assert.deepEqual(tokenize('café naïve Ærøskøbing'), ['café', 'naïve', 'ærøskøbing']);
  // A decomposed é (e + U+0301) is one token, but not the same term as the precomposed one.
  assert.deepEqual(tokenize('cafe\u0301!'), ['cafe\u0301']);
  assert.notEqual(tokenize('cafe\u0301')[0], tokenize('café')[0]);
  // A mark never starts a token.
  assert.deepEqual(tokenize('\u0301abc'), ['abc']);
  // CJK has no spaces: a run of ideographs and kana is one token.
  assert.deepEqual(tokenize('東京タワー、大阪。'), ['東京タワー', '大阪']);
  assert.deepEqual(tokenize('中文 검색 العربية नमस्ते'), ['中文', '검색', 'العربية', 'नमस्ते']);
});

test('emoji separate tokens, variation selectors and keycaps included', () => {
  assert.deepEqual(tokenize('I❤️NY hello👋world 🎉🎉 1️⃣2️⃣ 👍🏽ok'), ['i', 'ny', 'hello', 'world', '1', '2', 'ok']);
});

test('analyzeDocument counts tokens and term frequencies', () => {
  const doc = analyzeDocument('To be, or not to be: that is the question. TO BE!');
  assert.equal(doc.length, 12);
  assert.deepEqual(
    doc.terms,
    new Map([
      ['to', 3],
      ['be', 3],
      ['or', 1],
      ['not', 1],
      ['that', 1],
      ['is', 1],
      ['the', 1],
      ['question', 1],
    ]),
  );
  assert.deepEqual(analyzeDocument('— !'), { length: 0, terms: new Map() });
});

/** Length and term frequencies from tokenize (the Unicode tokenizer), for comparison. */
function counted(text: string): { length: number; terms: Map<string, number> } {
  const terms = new Map<string, number>();
  const tokens = tokenize(text);
  for (const t of tokens) terms.set(t, (terms.get(t) ?? 0) + 1);
  return { length: tokens.length, terms };
}

test("analyzeDocument's ASCII path counts as the Unicode tokenizer, and hands over at the first other character", () => {
  const ascii = fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: 80 });
  const other = fc.constantFrom('é', 'É', '\u0301', '日本', 'Ωmega', '\u00a0', '1\ufe0f\u20e3', '👍');
  fc.assert(
    fc.property(ascii, fc.option(fc.tuple(other, ascii), { nil: undefined }), (prefix, rest) => {
      const text = rest === undefined ? prefix : prefix + rest[0] + rest[1];
      const doc = analyzeDocument(text);
      assert.deepEqual({ length: doc.length, terms: doc.terms }, counted(text));
      assert.equal(doc.ascii === true, rest === undefined);
      // The usage of an ASCII document (character counts) is that of its UTF-8 bytes.
      assert.deepEqual(documentUsage(text, doc, 'tenant', 5), documentUsage(text, { length: doc.length, terms: doc.terms }, 'tenant', 5));
    }),
    { numRuns: 500 },
  );
  assert.deepEqual(analyzeDocument('Ab1 c-D_e9 Z'), {
    length: 5,
    terms: new Map([
      ['ab1', 1],
      ['c', 1],
      ['d', 1],
      ['e9', 1],
      ['z', 1],
    ]),
    ascii: true,
  });
});

test('query terms are deduplicated in order of first appearance', () => {
  assert.deepEqual(queryTerms('b a B c a, A'), ['b', 'a', 'c']);
  assert.deepEqual(queryTerms('!!!'), []);
});

test('usage: analysis bytes, input bytes, output operations and bytes', () => {
  // 'aa b aa': 7 bytes of text, 3 tokens of 5 bytes in all, 2 unique terms of 3 bytes.
  assert.deepEqual(usageOf('aa b aa', null, 100), {
    analysis_bytes: 7 + 280 * 3 + 3 * 5,
    input_bytes: 7 + 100,
    output_operations: 2 + 6,
    output_bytes: 2 * 3 + 2 * 32 + 64,
  });
  // The tenant is in every posting key; token bytes are UTF-8 (é is 2 bytes).
  const u = usageOf('é é', 'abcd');
  assert.equal(u.analysis_bytes, 5 + 280 * 2 + 3 * 4);
  assert.equal(u.output_bytes, 2 * 2 + 1 * (4 + 32) + 64 + 4);
  assert.equal(checkDocumentLimits(usageOf('')), null);
});

test('the allowances', () => {
  assert.equal(ANALYSIS_BYTES_LIMIT, 64 * 1024 * 1024);
  assert.equal(OUTPUT_OPERATIONS_LIMIT, 16_384);
  assert.equal(OUTPUT_OPERATIONS_LIMIT, PUBLICATION_ROW_BUDGET / 2);
  assert.equal(OUTPUT_BYTES_LIMIT, 2 * 1024 * 1024);
  assert.equal(INPUT_BYTES_LIMIT, 28 * 1024 * 1024);
  assert.equal(STAGED_TEXT_LIMIT, 8 * 1024 * 1024);
});

test('200,000 one-letter tokens of a few terms pass', () => {
  const text = Array.from({ length: 200_000 }, (_, i) => 'abcde'[i % 5]).join(' ');
  assert.equal(analyzeDocument(text).length, 200_000);
  assert.equal(breachOf(text), null);
});

test('analysis_bytes at its edge: 285 bytes per spaced one-letter token', () => {
  // n tokens "a a a ...": 2n - 1 bytes of text + 280 n + 3 n = 285 n - 1.
  const max = Math.floor((ANALYSIS_BYTES_LIMIT + 1) / 285);
  assert.equal(max, 235_469);
  assert.equal(breachOf('a '.repeat(max).trimEnd()), null);
  assert.deepEqual(breachOf('a '.repeat(max + 1).trimEnd()), {
    resource: 'analysis_bytes',
    usage: 285 * (max + 1) - 1,
    allowance: ANALYSIS_BYTES_LIMIT,
  });
});

test('output_operations at its edge: 16,378 unique terms pass, 16,379 and 16,400 fail', () => {
  assert.equal(breachOf(uniqueTerms(16_378)), null);
  assert.deepEqual(breachOf(uniqueTerms(16_379)), { resource: 'output_operations', usage: 16_385, allowance: 16_384 });
  assert.deepEqual(breachOf(uniqueTerms(16_400)), { resource: 'output_operations', usage: 16_406, allowance: 16_384 });
  // Repeating the terms changes nothing: it is unique terms that count.
  const twice = uniqueTerms(16_378) + ' ' + uniqueTerms(16_378);
  assert.equal(breachOf(twice), null);
});

test('output_bytes at its edge: long terms or a long tenant allow fewer unique terms', () => {
  // 100-byte terms: 2 · 100 + 32 bytes each, 64 for the document.
  const term = (i: number) => 'x'.repeat(94) + i.toString(36).padStart(6, '0');
  const terms = (n: number) => Array.from({ length: n }, (_, i) => term(i)).join(' ');
  const max = Math.floor((OUTPUT_BYTES_LIMIT - 64) / 232);
  assert.equal(max, 9039);
  assert.equal(breachOf(terms(max)), null);
  assert.deepEqual(breachOf(terms(max + 1)), { resource: 'output_bytes', usage: 232 * (max + 1) + 64, allowance: OUTPUT_BYTES_LIMIT });
  // A 32-byte tenant value adds 32 bytes per term.
  assert.equal(breachOf(terms(max), 'T'.repeat(32))?.resource, 'output_bytes');
});

test('input_bytes at its edge: the text and the rows the write reads', () => {
  assert.equal(checkDocumentLimits(usageOf('abc', null, INPUT_BYTES_LIMIT - 3)), null);
  assert.deepEqual(checkDocumentLimits(usageOf('abc', null, INPUT_BYTES_LIMIT - 2)), {
    resource: 'input_bytes',
    usage: INPUT_BYTES_LIMIT + 1,
    allowance: INPUT_BYTES_LIMIT,
  });
});

test('several resources over: the first in the documented order is reported', () => {
  const usage = { analysis_bytes: 1, input_bytes: INPUT_BYTES_LIMIT + 1, output_operations: 99_999, output_bytes: OUTPUT_BYTES_LIMIT + 1 };
  assert.equal(checkDocumentLimits(usage)?.resource, 'input_bytes');
  assert.equal(checkDocumentLimits({ ...usage, input_bytes: 0 })?.resource, 'output_operations');
});

test('the breach messages name the resource, usage, allowance and subject', () => {
  assert.equal(
    describeTextLimitBreach({ resource: 'output_operations', usage: 20006, allowance: 16384 }, 'Doc.body of node 12'),
    'active text mutation exceeds output_operations: observed 20006, limit 16384 (Doc.body of node 12); this is a hard per-document limit, shorten the indexed text',
  );
  assert.equal(
    describeStagingBreach({ index: 'Doc.body', staged: 8388609, allowance: 8388608 }),
    'a write stages 8388609 bytes of text for index Doc.body, limit 8388608; split the write',
  );
});

test('staging: 8 MiB of text per index and write, counted in UTF-8 bytes', () => {
  const staging = new TextStaging();
  assert.equal(staging.add('Doc.body', 'a'.repeat(STAGED_TEXT_LIMIT - 4)), null);
  assert.equal(staging.add('Doc.body', 'é'), null); // 2 bytes
  assert.equal(staging.add('Doc.title', 'a'.repeat(STAGED_TEXT_LIMIT)), null); // another index
  assert.equal(staging.add('Doc.body', 'é'), null); // exactly 8 MiB
  assert.equal(staging.bytes('Doc.body'), STAGED_TEXT_LIMIT);
  assert.deepEqual(staging.add('Doc.body', 'b'), { index: 'Doc.body', staged: STAGED_TEXT_LIMIT + 1, allowance: STAGED_TEXT_LIMIT });
  assert.deepEqual(new TextStaging(10).add('i', '01234567890'), { index: 'i', staged: 11, allowance: 10 });
});
