/** The `.hx` tokenizer (src/hql/lexer.ts) and the diagnostic format (src/hql/diagnostics.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDiagnostic, formatDiagnostics } from '../../src/hql/diagnostics.js';
import { lex, type Token } from '../../src/hql/lexer.js';

/** The tokens before the final eof, after checking there was no error. */
function clean(source: string): Token[] {
  const { tokens, errors } = lex(source);
  assert.deepEqual(errors, [], `no lexical errors in ${JSON.stringify(source)}`);
  assert.equal(tokens.at(-1)?.kind, 'eof');
  return tokens.slice(0, -1);
}

/** The tokens as `kind:text` strings. */
const shapes = (source: string): string[] => clean(source).map((t) => `${t.kind}:${t.text}`);

/** The one token of `source` as [kind, value]: the number, or the string unescaped. */
function single(source: string): [Token['kind'], unknown] {
  const tokens = clean(source);
  assert.equal(tokens.length, 1, `one token in ${JSON.stringify(source)}`);
  const token = tokens[0]!;
  return [token.kind, 'value' in token ? token.value : token.text];
}

test('a query reads as words and punctuation, the two-character forms whole', () => {
  assert.deepEqual(shapes('QUERY GetUser(id: ID) =>\n  u <- N<User>(id)::Out<Follows>\n  RETURN u'), [
    'word:QUERY',
    'word:GetUser',
    'punct:(',
    'word:id',
    'punct::',
    'word:ID',
    'punct:)',
    'punct:=>',
    'word:u',
    'punct:<-',
    'word:N',
    'punct:<',
    'word:User',
    'punct:>',
    'punct:(',
    'word:id',
    'punct:)',
    'punct:::',
    'word:Out',
    'punct:<',
    'word:Follows',
    'punct:>',
    'word:RETURN',
    'word:u',
  ]);
  assert.deepEqual(shapes('#[mcp] {name, ..} !{age} |u| _::{id}'), [
    'punct:#',
    'punct:[',
    'word:mcp',
    'punct:]',
    'punct:{',
    'word:name',
    'punct:,',
    'punct:..',
    'punct:}',
    'punct:!',
    'punct:{',
    'word:age',
    'punct:}',
    'punct:|',
    'word:u',
    'punct:|',
    'word:_',
    'punct:::',
    'punct:{',
    'word:id',
    'punct:}',
  ]);
});

test('keywords are whole words: Name, trueX and ATAN2 are one word each (HelixQL v1 split them)', () => {
  assert.deepEqual(shapes('Name trueX ATAN2 N E V Nodes Edge_1'), [
    'word:Name',
    'word:trueX',
    'word:ATAN2',
    'word:N',
    'word:E',
    'word:V',
    'word:Nodes',
    'word:Edge_1',
  ]);
  assert.deepEqual(shapes('N::User'), ['word:N', 'punct:::', 'word:User']);
});

test('numbers: exact integers of any size, floats with an optional exponent, and negative literals', () => {
  assert.deepEqual(single('340282366920938463463374607431768211455'), ['int', 2n ** 128n - 1n]); // the largest U128
  assert.deepEqual(single('-9223372036854775808'), ['int', -(2n ** 63n)]);
  assert.deepEqual(single('-2.5e-3'), ['float', -0.0025]);
  assert.deepEqual(single('0.1'), ['float', 0.1]);
  // `1..` is the integer 1 and the spread: a float needs a digit after the point.
  assert.deepEqual(shapes('RANGE(-1, 10) 1..'), ['word:RANGE', 'punct:(', 'int:-1', 'punct:,', 'int:10', 'punct:)', 'int:1', 'punct:..']);
  // An exponent belongs to floats only: `1e5` is an error, `1.0e5` a float.
  assert.deepEqual(single('1.0e5'), ['float', 100000]);
  assert.match(lex('1e5').errors[0]!.message, /"1e5" is not a number/);
});

test('strings take escapes and may span lines; the value is the unescaped text', () => {
  assert.deepEqual(single('"say \\"hi\\"\\n\\ttab \\\\ \\u{1F600} \\u{e9} \\0end"'), ['string', 'say "hi"\n\ttab \\ 😀 é \0end']);
  assert.deepEqual(single('"two\nlines"'), ['string', 'two\nlines']);
  assert.deepEqual(single('""'), ['string', '']);
});

test('comments run to the end of the line and keep positions right', () => {
  const { tokens, errors } = lex('// heading\nN::User { // trailing\n  name: String\n}');
  assert.deepEqual(errors, []);
  const name = tokens.find((t) => t.text === 'name')!;
  assert.deepEqual(name.pos, { offset: 35, line: 3, column: 3 });
  assert.deepEqual(
    tokens.map((t) => t.text),
    ['N', '::', 'User', '{', 'name', ':', 'String', '}', ''],
  );
});

test('columns count characters, not UTF-16 units, after astral characters', () => {
  const { tokens } = lex('"😀😀" x');
  const x = tokens[1]!;
  assert.equal(x.text, 'x');
  assert.deepEqual(x.pos, { offset: 7, line: 1, column: 6 });
});

test('every lexical error is reported at once, each with its place, and the tokens around them survive', () => {
  const source = 'QUERY A() =>\n  x <- "bad \\q escape"\n  y <- - 5 ; 12abc\n  z <- "open';
  const { tokens, errors } = lex(source);
  assert.deepEqual(
    errors.map((e) => [e.pos.line, e.pos.column, e.message]),
    [
      [2, 13, '"\\q" is not an escape; strings know \\" \\\\ \\n \\r \\t \\0 and \\u{hex}'],
      [3, 8, 'a "-" must come right before the digits of a negative number; subtract with SUB(a, b)'],
      [3, 12, 'unexpected character ";"'],
      [3, 14, '"12abc" is not a number (a name cannot start with a digit)'],
      [4, 8, 'this string has no closing "'],
    ],
  );
  // The rest still lexes: the string with the bad escape, the 5, the names.
  assert.ok(tokens.some((t) => t.kind === 'string' && t.value === 'bad  escape'));
  assert.ok(tokens.some((t) => t.kind === 'int' && t.value === 5n));
  assert.deepEqual(
    tokens.filter((t) => t.kind === 'word').map((t) => t.text),
    ['QUERY', 'A', 'x', 'y', 'z'],
  );
  assert.equal(tokens.at(-1)!.kind, 'eof');
});

test('bad \\u escapes and stray characters are named', () => {
  const messages = (source: string) => lex(source).errors.map((e) => e.message);
  assert.deepEqual(messages('"\\u{}"'), ['a \\u{...} escape holds 1 to 6 hex digits and ends with }']);
  assert.deepEqual(messages('"\\u{D800}"'), ['\\u{D800} is not a Unicode character']);
  assert.deepEqual(messages('"\\u{110000}"'), ['\\u{110000} is not a Unicode character']);
  assert.deepEqual(messages('a / b'), ['a comment starts with "//" (there are no block comments)']);
  assert.deepEqual(messages('a \u0007 @'), ['unexpected character U+0007', 'unexpected character "@"']);
  assert.deepEqual(messages('"ends in a backslash\\'), [
    'the end of the file is not an escape; strings know \\" \\\\ \\n \\r \\t \\0 and \\u{hex}',
    'this string has no closing "',
  ]);
});

test('a diagnostic is file:line:column: message, then the line and a caret under the column', () => {
  const source = 'QUERY A() =>\n\tx <- "bad \\q"\nRETURN x\n';
  const { errors } = lex(source);
  assert.equal(errors.length, 1);
  assert.equal(
    formatDiagnostic({ file: 'queries/a.hx', ...errors[0]! }, source),
    [
      'queries/a.hx:2:12: "\\q" is not an escape; strings know \\" \\\\ \\n \\r \\t \\0 and \\u{hex}',
      ' 2 | \tx <- "bad \\q"',
      '   | \t          ^',
    ].join('\n'),
  );
  const other = 'N::User {\n  name: String @\n}';
  const sources = new Map([
    ['b.hx', other],
    ['a.hx', source],
  ]);
  const all = formatDiagnostics(
    [
      { file: 'b.hx', ...lex(other).errors[0]! },
      { file: 'a.hx', ...errors[0]! },
    ],
    sources,
  );
  // Sorted by file, then place; one blank line between them.
  const [first, second] = all.split('\n\n');
  assert.match(first!, /^a\.hx:2:12: /);
  assert.equal(second, ['b.hx:2:16: unexpected character "@"', ' 2 |   name: String @', `   | ${' '.repeat(15)}^`].join('\n'));
});

test('the rest of the escapes and exponents, and their mistakes', () => {
  assert.deepEqual(single('"a\\rb"'), ['string', 'a\rb']);
  assert.deepEqual(single('1.5e+3'), ['float', 1500]);
  assert.deepEqual(single('1.5E3'), ['float', 1500]);
  const messages = (source: string) => lex(source).errors.map((e) => [e.pos.column, e.message]);
  assert.deepEqual(messages('"\\u0041"'), [[2, '"\\u" is not an escape; strings know \\" \\\\ \\n \\r \\t \\0 and \\u{hex}']]);
  assert.deepEqual(messages('"\\u{1234567}"'), [[2, 'a \\u{...} escape holds 1 to 6 hex digits and ends with }']]);
  assert.deepEqual(messages('"\\u{12'), [
    [2, 'a \\u{...} escape holds 1 to 6 hex digits and ends with }'],
    [1, 'this string has no closing "'],
  ]);
  assert.deepEqual(messages('1.5e'), [[1, '"1.5e" is not a number (a name cannot start with a digit)']]);
  // A float needs digits before its point: `-.5` is a stray minus, then `.` and `5`.
  assert.deepEqual(messages('-.5'), [[1, 'a "-" must come right before the digits of a negative number; subtract with SUB(a, b)']]);
  assert.deepEqual(shapes('.5'), ['punct:.', 'int:5']);
});

test('CRLF line ends, characters outside strings, and token ends', () => {
  const { tokens, errors } = lex('N::A {\r\n  x: I32 😀 y\r\n}');
  const x = tokens.find((t) => t.text === 'x')!;
  assert.deepEqual(x.pos, { offset: 10, line: 2, column: 3 });
  assert.equal(x.end, 11);
  const arrow = lex('a <- b').tokens[1]!;
  assert.deepEqual([arrow.text, arrow.pos.offset, arrow.end], ['<-', 2, 4]);
  assert.deepEqual(
    errors.map((e) => [e.pos.line, e.pos.column, e.message]),
    [[2, 10, 'unexpected character "😀"']],
  );
  // The character after the emoji is one column further, though the emoji is two UTF-16 units.
  assert.deepEqual(tokens.find((t) => t.text === 'y')!.pos, { offset: 20, line: 2, column: 12 });
  const source = 'N::A {\r\n  x: I32 😀 y\r\n}';
  assert.equal(
    formatDiagnostic({ file: 'a.hx', ...errors[0]! }, source),
    ['a.hx:2:10: unexpected character "😀"', ' 2 |   x: I32 😀 y', `   | ${' '.repeat(9)}^`].join('\n'),
  );
});

test('a lone surrogate is one character and never swallows the character after it', () => {
  // Before: a high surrogate took the next UTF-16 unit along, whatever it was, so the
  // closing quote of a string, a line feed or an escape's backslash disappeared with it.
  assert.deepEqual(single('"a\uD800"'), ['string', 'a\uD800']);
  assert.deepEqual(single('"\uD800\\n\uDC00"'), ['string', '\uD800\n\uDC00']);
  const { tokens, errors } = lex('\uD800\nx \uDBFF');
  assert.deepEqual(
    errors.map((e) => [e.pos.line, e.pos.column, e.pos.offset]),
    [
      [1, 1, 0],
      [2, 3, 4],
    ],
  );
  assert.deepEqual(tokens[0]!.pos, { offset: 2, line: 2, column: 1 });
  // A real pair is still one character.
  assert.deepEqual(lex('"\uD83D\uDE00" x').tokens[1]!.pos, { offset: 5, line: 1, column: 5 });
});
