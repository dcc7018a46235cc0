/**
 * The tokenizer of the query language's `.hx` files (docs/query-language.md, "Lexical
 * rules"). It turns source text into words, numbers, strings and punctuation, each with
 * its position, and reports every lexical error of the text at once instead of stopping at
 * the first.
 *
 * Where it goes past HelixQL v1 (reference helixql-v1.md §1, §10.7), on purpose:
 *  - words are maximal runs, so a keyword is a keyword only as a whole word (`Name` is one
 *    identifier, not `N` followed by `ame`; `ATAN2` is not `ATAN` followed by `2`);
 *  - strings take escapes (`\"`, `\\`, `\n`, `\r`, `\t`, `\0`, `\u{hex}`), and `\` before
 *    anything else is an error;
 *  - a `-` directly before a digit makes a negative number (the language has no minus
 *    operator: subtraction is `SUB(a, b)`);
 *  - floats may carry an exponent (`1.5e-3`); integers are kept exact (bigint) whatever
 *    their size, for the parser to check against the declared type.
 * Keywords are not told apart here: which words are keywords depends on where they stand,
 * and the parser knows that.
 */

/** A place in the source: 0-based UTF-16 offset, 1-based line, 1-based column in characters (code points). */
export interface SourcePos {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

export type Token =
  | { readonly kind: 'word'; readonly text: string; readonly pos: SourcePos; readonly end: number }
  | { readonly kind: 'int'; readonly text: string; readonly value: bigint; readonly pos: SourcePos; readonly end: number }
  | { readonly kind: 'float'; readonly text: string; readonly value: number; readonly pos: SourcePos; readonly end: number }
  | { readonly kind: 'string'; readonly text: string; readonly value: string; readonly pos: SourcePos; readonly end: number }
  | { readonly kind: 'punct'; readonly text: Punct; readonly pos: SourcePos; readonly end: number }
  | { readonly kind: 'eof'; readonly text: ''; readonly pos: SourcePos; readonly end: number };

/** Punctuation, the two-character forms first: the lexer takes the longest that matches. */
export const PUNCTUATION = ['::', '<-', '=>', '..', '!', '|', '#', '[', ']', '{', '}', '(', ')', '<', '>', ',', ':', '?', '.'] as const;
export type Punct = (typeof PUNCTUATION)[number];

/** A lexical error: what is wrong, and where. */
export interface LexError {
  readonly pos: SourcePos;
  readonly message: string;
}

export interface Lexed {
  /** Every token, ending with one 'eof'. Text with errors still yields the tokens around them. */
  readonly tokens: Token[];
  readonly errors: LexError[];
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isWordStart = (c: string | undefined) => c !== undefined && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c === '_');
const isWordPart = (c: string | undefined) => isWordStart(c) || isDigit(c);
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isHex = (c: string | undefined) => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', n: '\n', r: '\r', t: '\t', '0': '\0' };

/** Tokenizes `source`; never throws. */
export function lex(source: string): Lexed {
  return new Lexer(source).run();
}

class Lexer {
  private i = 0;
  private line = 1;
  private column = 1;
  private readonly tokens: Token[] = [];
  private readonly errors: LexError[] = [];

  constructor(private readonly src: string) {}

  run(): Lexed {
    for (;;) {
      this.skipSpaceAndComments();
      if (this.i >= this.src.length) break;
      this.token();
    }
    this.tokens.push({ kind: 'eof', text: '', pos: this.pos(), end: this.i });
    return { tokens: this.tokens, errors: this.errors };
  }

  private pos(): SourcePos {
    return { offset: this.i, line: this.line, column: this.column };
  }

  /**
   * Moves past one character (a surrogate pair is one character; a lone surrogate is one
   * too, and never takes the character after it along), keeping line and column.
   */
  private advance(): void {
    const code = this.src.charCodeAt(this.i);
    if (code === 10) {
      this.line++;
      this.column = 1;
    } else {
      this.column++;
    }
    const low = this.src.charCodeAt(this.i + 1);
    this.i += code >= 0xd800 && code <= 0xdbff && low >= 0xdc00 && low <= 0xdfff ? 2 : 1;
  }

  private advanceBy(n: number): void {
    for (let k = 0; k < n; k++) this.advance();
  }

  private skipSpaceAndComments(): void {
    while (this.i < this.src.length) {
      const c = this.src[this.i]!;
      if (isSpace(c)) this.advance();
      else if (c === '/' && this.src[this.i + 1] === '/') {
        while (this.i < this.src.length && this.src[this.i] !== '\n') this.advance();
      } else return;
    }
  }

  private token(): void {
    const start = this.pos();
    const c = this.src[this.i]!;
    if (isWordStart(c)) {
      while (isWordPart(this.src[this.i])) this.advance();
      this.tokens.push({ kind: 'word', text: this.src.slice(start.offset, this.i), pos: start, end: this.i });
    } else if (isDigit(c) || (c === '-' && isDigit(this.src[this.i + 1]))) {
      this.number(start);
    } else if (c === '"') {
      this.string(start);
    } else {
      const punct = PUNCTUATION.find((p) => this.src.startsWith(p, this.i));
      if (punct !== undefined) {
        this.advanceBy(punct.length);
        this.tokens.push({ kind: 'punct', text: punct, pos: start, end: this.i });
        return;
      }
      this.errors.push({ pos: start, message: unexpected(this.src.codePointAt(this.i)!) });
      this.advance();
    }
  }

  private digits(): void {
    while (isDigit(this.src[this.i])) this.advance();
  }

  private number(start: SourcePos): void {
    if (this.src[this.i] === '-') this.advance();
    this.digits();
    let float = false;
    if (this.src[this.i] === '.' && isDigit(this.src[this.i + 1])) {
      float = true;
      this.advance();
      this.digits();
    }
    const e = this.src[this.i];
    if (float && (e === 'e' || e === 'E')) {
      const sign = this.src[this.i + 1] === '+' || this.src[this.i + 1] === '-' ? 1 : 0;
      if (isDigit(this.src[this.i + 1 + sign])) {
        this.advanceBy(1 + sign);
        this.digits();
      }
    }
    const text = this.src.slice(start.offset, this.i);
    if (isWordPart(this.src[this.i])) {
      // `12abc` is neither a number nor a word: one error for the whole run.
      while (isWordPart(this.src[this.i])) this.advance();
      this.errors.push({
        pos: start,
        message: `"${this.src.slice(start.offset, this.i)}" is not a number (a name cannot start with a digit)`,
      });
      return;
    }
    if (float) {
      this.tokens.push({ kind: 'float', text, value: Number(text), pos: start, end: this.i });
    } else {
      this.tokens.push({ kind: 'int', text, value: BigInt(text), pos: start, end: this.i });
    }
  }

  private string(start: SourcePos): void {
    this.advance(); // the opening quote
    let value = '';
    for (;;) {
      if (this.i >= this.src.length) {
        this.errors.push({ pos: start, message: 'this string has no closing "' });
        return;
      }
      const c = this.src[this.i]!;
      if (c === '"') {
        this.advance();
        this.tokens.push({ kind: 'string', text: this.src.slice(start.offset, this.i), value, pos: start, end: this.i });
        return;
      }
      if (c !== '\\') {
        const from = this.i;
        this.advance();
        value += this.src.slice(from, this.i);
        continue;
      }
      const escapePos = this.pos();
      this.advance(); // the backslash
      const next = this.src[this.i];
      const simple = next === undefined ? undefined : SIMPLE_ESCAPES[next];
      if (simple !== undefined) {
        value += simple;
        this.advance();
      } else if (next === 'u' && this.src[this.i + 1] === '{') {
        value += this.unicodeEscape(escapePos);
      } else {
        const shown = next === undefined ? 'the end of the file' : `"\\${next}"`;
        if (next !== undefined) this.advance(); // the escaped character goes with the error
        this.errors.push({
          pos: escapePos,
          message: `${shown} is not an escape; strings know \\" \\\\ \\n \\r \\t \\0 and \\u{hex}`,
        });
      }
    }
  }

  /** `\u{1F600}` after the backslash: the character, or '' after reporting an error. */
  private unicodeEscape(escapePos: SourcePos): string {
    this.advanceBy(2); // u{
    const from = this.i;
    while (isHex(this.src[this.i])) this.advance();
    const hex = this.src.slice(from, this.i);
    if (this.src[this.i] !== '}' || hex.length === 0 || hex.length > 6) {
      this.errors.push({ pos: escapePos, message: 'a \\u{...} escape holds 1 to 6 hex digits and ends with }' });
      return '';
    }
    this.advance(); // }
    const code = parseInt(hex, 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      this.errors.push({ pos: escapePos, message: `\\u{${hex}} is not a Unicode character` });
      return '';
    }
    return String.fromCodePoint(code);
  }
}

function unexpected(code: number): string {
  const ch = String.fromCodePoint(code);
  const shown = code < 0x20 || code === 0x7f ? `U+${code.toString(16).toUpperCase().padStart(4, '0')}` : `"${ch}"`;
  if (ch === '-') return 'a "-" must come right before the digits of a negative number; subtract with SUB(a, b)';
  if (ch === '/') return 'a comment starts with "//" (there are no block comments)';
  return `unexpected character ${shown}`;
}
