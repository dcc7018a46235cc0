/**
 * The tokenizer of openCypher query text. Spans are UTF-8 byte offsets (the error body's
 * unit, reference/cypher.md), computed from one table built only when the text is not ASCII.
 *
 * Lexical errors do not stop the lexer: they become 'bad' tokens, and the parser raises them
 * when it reaches one. That is how the TCK wants them reported: `12ab` where a value belongs
 * is an InvalidNumberLiteral, but `{1B2c3e67: 1}` (the same run where a map key belongs) is
 * UnexpectedSyntax, and an error after an earlier syntax error is never the one reported.
 *
 * Choices within openCypher 9's lexical grammar:
 *  - strings take `\\ \' \" \b \f \n \r \t` (either case), `\uXXXX` and `\UXXXXXXXX`; any
 *    other escape is an error (openCypher lets `\u` take 8 digits too, which would read
 *    `'\u00e9abcd'` as one code point: `\u` takes exactly 4 here, as in Neo4j);
 *  - integers are decimal, `0x` hex, `0o` octal, or openCypher 9's legacy octal `017`; the
 *    magnitude is kept exact (bigint) and the parser checks the 64-bit range, because a minus
 *    sign before it changes the limit;
 *  - floats are `1.5`, `.5`, `1e9`, `1.5e-3`, `.5E+2`; `1.` is not one.
 */
import type { Span } from './ast.js';
import type { SyntaxDetail } from './errors.js';

/** Every token has its byte `span` and its UTF-16 range `from`..`to` in the text. */
export type Token =
  | {
      readonly kind: 'word';
      readonly text: string;
      /** The text in upper case, to compare with keywords; '' for a quoted name, which is never one. */
      readonly keyword: string;
      readonly span: Span;
      readonly from: number;
      readonly to: number;
    }
  | { readonly kind: 'int'; readonly value: bigint; readonly span: Span; readonly from: number; readonly to: number }
  | { readonly kind: 'float'; readonly value: number; readonly span: Span; readonly from: number; readonly to: number }
  | { readonly kind: 'string'; readonly value: string; readonly span: Span; readonly from: number; readonly to: number }
  | { readonly kind: 'param'; readonly name: string; readonly span: Span; readonly from: number; readonly to: number }
  | { readonly kind: 'punct'; readonly text: Punct; readonly span: Span; readonly from: number; readonly to: number }
  | {
      readonly kind: 'bad';
      /** 'number': a malformed number, reported as UnexpectedSyntax where no value belongs. */
      readonly what: 'number' | 'other';
      readonly detail: SyntaxDetail;
      readonly message: string;
      readonly span: Span;
      readonly from: number;
      readonly to: number;
    }
  | { readonly kind: 'eof'; readonly span: Span; readonly from: number; readonly to: number };

/** Punctuation, longest first: the lexer takes the first that matches. */
export const PUNCTUATION = [
  '<>',
  '<=',
  '>=',
  '=~',
  '+=',
  '..',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ':',
  ';',
  '.',
  '|',
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '^',
] as const;
export type Punct = (typeof PUNCTUATION)[number];

const isDigit = (c: number) => c >= 48 && c <= 57;
const isHex = (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const ID_START = /[\p{ID_Start}\p{Pc}]/u;
const ID_PART = /[\p{ID_Continue}\p{Sc}]/u;
const SPACE = /\p{White_Space}/u;

function isIdStart(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 128) return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
  return ID_START.test(ch);
}

function isIdPart(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 128) return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || isDigit(c);
  return ID_PART.test(ch);
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/**
 * UTF-16 index to UTF-8 byte offset, for every index 0..length (inclusive); null when the text
 * is ASCII and the two are equal.
 */
function byteOffsets(text: string): Uint32Array | null {
  if (Buffer.byteLength(text) === text.length) return null;
  const table = new Uint32Array(text.length + 1);
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    table[i] = bytes;
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        // A pair: 4 bytes, the low half points inside the character.
        table[++i] = bytes + 2;
        bytes += 4;
        continue;
      }
      bytes += 3;
    } else bytes += 3;
  }
  table[text.length] = bytes;
  return table;
}

/** Tokenizes `text`; never throws. The last token is 'eof'. */
export function lex(text: string): Token[] {
  return new Lexer(text).run();
}

class Lexer {
  private i = 0;
  private readonly tokens: Token[] = [];
  private readonly bytes: Uint32Array | null;

  constructor(private readonly src: string) {
    this.bytes = byteOffsets(src);
  }

  run(): Token[] {
    for (;;) {
      const bad = this.skipSpaceAndComments();
      if (bad !== null) {
        this.tokens.push(bad);
        break;
      }
      if (this.i >= this.src.length) break;
      this.token();
    }
    this.tokens.push({ kind: 'eof', span: this.span(this.src.length, this.src.length), from: this.src.length, to: this.src.length });
    return this.tokens;
  }

  private span(from: number, to: number): Span {
    return this.bytes === null ? { start: from, end: to } : { start: this.bytes[from]!, end: this.bytes[to]! };
  }

  private bad(from: number, to: number, what: 'number' | 'other', detail: SyntaxDetail, message: string): Token {
    return { kind: 'bad', what, detail, message, span: this.span(from, to), from, to };
  }

  /** Skips white space and comments; an unclosed comment is returned as a bad token. */
  private skipSpaceAndComments(): Token | null {
    const s = this.src;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || (c >= 9 && c <= 13) || (c >= 28 && c <= 31)) this.i++;
      else if (c === 47 && s.charCodeAt(this.i + 1) === 47) {
        while (this.i < s.length && s[this.i] !== '\n' && s[this.i] !== '\r') this.i++;
      } else if (c === 47 && s.charCodeAt(this.i + 1) === 42) {
        const close = s.indexOf('*/', this.i + 2);
        if (close < 0) return this.bad(this.i, s.length, 'other', 'UnexpectedSyntax', 'this comment is never closed (no "*/")');
        this.i = close + 2;
      } else if (c >= 128 && SPACE.test(s[this.i]!)) this.i++;
      else return null;
    }
    return null;
  }

  private token(): void {
    const s = this.src;
    const start = this.i;
    const c = s.charCodeAt(start);
    const ch = String.fromCodePoint(s.codePointAt(start)!);
    if (isIdStart(ch)) {
      this.i += ch.length;
      this.identifierPart();
      const text = s.slice(start, this.i);
      this.tokens.push({ kind: 'word', text, keyword: text.toUpperCase(), span: this.span(start, this.i), from: start, to: this.i });
    } else if (c === 96) {
      const name = this.quoted(start);
      if (name !== null)
        this.tokens.push({ kind: 'word', text: name, keyword: '', span: this.span(start, this.i), from: start, to: this.i });
    } else if (isDigit(c) || (c === 46 && isDigit(s.charCodeAt(start + 1)))) {
      this.number(start);
    } else if (c === 39 || c === 34) {
      this.string(start, s[start]!);
    } else if (c === 36) {
      this.parameter(start);
    } else {
      const punct = PUNCTUATION.find((p) => s.startsWith(p, start));
      if (punct !== undefined) {
        this.i += punct.length;
        this.tokens.push({ kind: 'punct', text: punct, span: this.span(start, this.i), from: start, to: this.i });
        return;
      }
      this.i += ch.length;
      // Outside ASCII the likely cause is an editor's typography (an en or em dash for a minus).
      const unicode = c >= 128;
      this.tokens.push(
        this.bad(
          start,
          this.i,
          'other',
          unicode ? 'InvalidUnicodeCharacter' : 'UnexpectedSyntax',
          `unexpected character "${ch}"${unicode ? ` (U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})` : ''}`,
        ),
      );
    }
  }

  private identifierPart(): void {
    const s = this.src;
    while (this.i < s.length) {
      const ch = String.fromCodePoint(s.codePointAt(this.i)!);
      if (!isIdPart(ch)) return;
      this.i += ch.length;
    }
  }

  /** `` `name` `` with ``` `` ``` for a backtick (the TCK has the empty name as a map key); null (after pushing a bad token) when unclosed. */
  private quoted(start: number): string | null {
    const s = this.src;
    let name = '';
    let from = start + 1;
    for (;;) {
      const close = s.indexOf('`', from);
      if (close < 0) {
        this.i = s.length;
        this.tokens.push(this.bad(start, s.length, 'other', 'UnexpectedSyntax', 'this quoted name is never closed (no closing "`")'));
        return null;
      }
      name += s.slice(from, close);
      if (s.charCodeAt(close + 1) === 96) {
        name += '`';
        from = close + 2;
        continue;
      }
      this.i = close + 1;
      return name;
    }
  }

  private number(start: number): void {
    const s = this.src;
    const run = () => {
      while (this.i < s.length && isIdPart(s[this.i]!)) this.i++;
    };
    const invalid = (why: string) => {
      run();
      const text = s.slice(start, this.i);
      this.tokens.push(this.bad(start, this.i, 'number', 'InvalidNumberLiteral', `"${text}" is not a number: ${why}`));
    };
    const c1 = s[start + 1];
    if (s[start] === '0' && (c1 === 'x' || c1 === 'X' || c1 === 'o' || c1 === 'O')) {
      const hex = c1 === 'x' || c1 === 'X';
      this.i = start + 2;
      const digitsFrom = this.i;
      while (this.i < s.length && (hex ? isHex(s.charCodeAt(this.i)) : s[this.i]! >= '0' && s[this.i]! <= '7')) this.i++;
      if (this.i === digitsFrom) return invalid(`expected ${hex ? 'hexadecimal' : 'octal'} digits after "${s.slice(start, digitsFrom)}"`);
      if (this.i < s.length && isIdPart(s[this.i]!)) return invalid(`"${s[this.i]}" is not ${hex ? 'a hexadecimal' : 'an octal'} digit`);
      const value = BigInt((hex ? '0x' : '0o') + s.slice(digitsFrom, this.i));
      this.tokens.push({ kind: 'int', value, span: this.span(start, this.i), from: start, to: this.i });
      return;
    }
    this.i = start;
    this.digits();
    let float = false;
    if (s[this.i] === '.' && isDigit(s.charCodeAt(this.i + 1))) {
      float = true;
      this.i++;
      this.digits();
    }
    const e = s[this.i];
    if (e === 'e' || e === 'E') {
      const signed = s[this.i + 1] === '-' || s[this.i + 1] === '+';
      if (!isDigit(s.charCodeAt(this.i + 1 + (signed ? 1 : 0)))) return invalid('an exponent needs digits');
      float = true;
      this.i += signed ? 2 : 1;
      this.digits();
    }
    if (this.i < s.length && isIdPart(s[this.i]!))
      return invalid(`"${s[this.i]}" cannot follow a number (a name cannot start with a digit)`);
    const text = s.slice(start, this.i);
    if (float) {
      const value = Number(text);
      if (!Number.isFinite(value)) {
        this.tokens.push(this.bad(start, this.i, 'number', 'FloatingPointOverflow', `${text} is too large for a 64-bit float`));
        return;
      }
      this.tokens.push({ kind: 'float', value, span: this.span(start, this.i), from: start, to: this.i });
      return;
    }
    if (text.length > 1 && text[0] === '0') {
      // openCypher 9's octal form without `o`.
      if (/[89]/.test(text)) return invalid('a number with a leading 0 is octal (digits 0 to 7)');
      this.tokens.push({ kind: 'int', value: BigInt('0o' + text.slice(1)), span: this.span(start, this.i), from: start, to: this.i });
      return;
    }
    this.tokens.push({ kind: 'int', value: BigInt(text), span: this.span(start, this.i), from: start, to: this.i });
  }

  private digits(): void {
    while (isDigit(this.src.charCodeAt(this.i))) this.i++;
  }

  private string(start: number, quote: string): void {
    const s = this.src;
    this.i = start + 1;
    let value = '';
    let error: Token | null = null;
    for (;;) {
      if (this.i >= s.length) {
        this.tokens.push(this.bad(start, s.length, 'other', 'UnexpectedSyntax', `this string is never closed (no closing ${quote})`));
        return;
      }
      const c = s[this.i]!;
      if (c === quote) {
        this.i++;
        break;
      }
      if (c !== '\\') {
        const next = s.indexOf('\\', this.i);
        const close = s.indexOf(quote, this.i);
        const to = Math.min(next < 0 ? s.length : next, close < 0 ? s.length : close);
        value += s.slice(this.i, to);
        this.i = to;
        continue;
      }
      const at = this.i;
      const e = s[at + 1];
      const simple = e === undefined ? undefined : (SIMPLE_ESCAPES[e] ?? (/[BFNRT]/.test(e) ? SIMPLE_ESCAPES[e.toLowerCase()] : undefined));
      if (simple !== undefined) {
        value += simple;
        this.i = at + 2;
        continue;
      }
      if (e === 'u' || e === 'U') {
        const n = e === 'u' ? 4 : 8;
        const hex = s.slice(at + 2, at + 2 + n);
        const code = /^[0-9A-Fa-f]+$/.test(hex) && hex.length === n ? parseInt(hex, 16) : -1;
        if (code >= 0 && code <= 0x10ffff) {
          value += String.fromCodePoint(code);
          this.i = at + 2 + n;
          continue;
        }
        let end = at + 2;
        while (end < at + 2 + n && isHex(s.charCodeAt(end))) end++;
        error ??= this.bad(
          at,
          end,
          'other',
          'InvalidUnicodeLiteral',
          code > 0x10ffff ? `\\${e}${hex} is past the last code point U+10FFFF` : `\\${e} must be followed by ${n} hexadecimal digits`,
        );
        this.i = end;
        continue;
      }
      error ??= this.bad(at, Math.min(at + 2, s.length), 'other', 'UnexpectedSyntax', `"\\${e ?? ''}" is not an escape sequence`);
      this.i = Math.min(at + 2, s.length);
    }
    this.tokens.push(error ?? { kind: 'string', value, span: this.span(start, this.i), from: start, to: this.i });
  }

  private parameter(start: number): void {
    const s = this.src;
    this.i = start + 1;
    let name: string | null = null;
    if (s[this.i] === '`') {
      const before = this.tokens.length;
      name = this.quoted(this.i);
      if (name === null) {
        this.tokens.splice(before);
        name = null;
      }
    } else if (isDigit(s.charCodeAt(this.i))) {
      this.digits();
      name = s.slice(start + 1, this.i);
    } else if (this.i < s.length && isIdStart(String.fromCodePoint(s.codePointAt(this.i)!))) {
      this.i += String.fromCodePoint(s.codePointAt(this.i)!).length;
      this.identifierPart();
      name = s.slice(start + 1, this.i);
    }
    if (name === null) {
      this.tokens.push(this.bad(start, Math.max(this.i, start + 1), 'other', 'UnexpectedSyntax', 'expected a parameter name after "$"'));
      return;
    }
    this.tokens.push({ kind: 'param', name, span: this.span(start, this.i), from: start, to: this.i });
  }
}
