/**
 * The token cursor the Cypher parser is built on: looking ahead, keywords (case-insensitive),
 * spans, backtracking for the few places where the grammar needs it, and the one way a syntax
 * error is raised. The parser is split over three classes, one per file (expressions,
 * patterns, clauses), each extending the one before; this is their common base.
 */
import type { Span } from './ast.js';
import { CypherSyntaxError } from './errors.js';
import type { Punct, Token } from './lexer.js';

/**
 * How deeply expressions, patterns and subqueries may nest. Real queries stay far below; the
 * limit turns a pathological query into a syntax error instead of a stack overflow.
 */
export const MAX_NESTING = 200;

/** The nesting error: final, never taken back by `attempt` (another reading nests as deep). */
class TooDeep extends CypherSyntaxError {}

export abstract class TokenCursor {
  protected i = 0;
  private depth = 0;
  /** For each opening bracket token, the index of its closing token (-1: none); built on first use. */
  private closers: Int32Array | null = null;

  constructor(
    protected readonly text: string,
    protected readonly tokens: readonly Token[],
  ) {}

  protected peek(ahead = 0): Token {
    return this.tokens[Math.min(this.i + ahead, this.tokens.length - 1)]!;
  }
  protected next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }
  /** The token just consumed. */
  protected previous(): Token {
    return this.tokens[Math.max(this.i - 1, 0)]!;
  }
  protected isPunct(text: Punct, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'punct' && t.text === text;
  }
  protected acceptPunct(text: Punct): boolean {
    if (!this.isPunct(text)) return false;
    this.i++;
    return true;
  }
  protected expectPunct(text: Punct, what?: string): Token {
    if (!this.isPunct(text)) this.fail(`expected "${text}"${what === undefined ? '' : ` ${what}`}`);
    return this.next();
  }
  /** An unquoted word equal to `keyword` (upper case) whatever its case. */
  protected isKeyword(keyword: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'word' && t.keyword === keyword;
  }
  protected acceptKeyword(keyword: string): boolean {
    if (!this.isKeyword(keyword)) return false;
    this.i++;
    return true;
  }
  protected expectKeyword(keyword: string, what?: string): Token {
    if (!this.isKeyword(keyword)) this.fail(`expected ${keyword}${what === undefined ? '' : ` ${what}`}`);
    return this.next();
  }

  /** From the start of `first` to the end of the last token consumed. */
  protected spanFrom(first: Token | Span): Span {
    const start = 'kind' in first ? first.span.start : first.start;
    return { start, end: Math.max(start, this.previous().span.end) };
  }
  /** The source text from the start of `first` to the end of the last token consumed. */
  protected textFrom(first: Token): string {
    return this.text.slice(first.from, Math.max(first.from, this.previous().to));
  }

  protected shown(t: Token): string {
    if (t.kind === 'eof') return 'the end of the query';
    return `"${this.text.slice(t.from, t.to)}"`;
  }

  /**
   * Raises a syntax error at `at`: `expected` says what the parser wanted there. A lexical
   * error token raises its own error instead (an unclosed string, an en dash), except a
   * malformed number, which is only a number error where a value belongs (`number()`).
   */
  protected fail(expected: string, at: Token = this.peek()): never {
    if (at.kind === 'bad' && at.what === 'other') throw new CypherSyntaxError(at.message, at.detail, at.span);
    throw new CypherSyntaxError(`${expected}, found ${this.shown(at)}`, 'UnexpectedSyntax', at.span);
  }

  /** The index of the token closing the `(`, `[` or `{` at token index `open`, or -1. */
  protected closing(open: number): number {
    if (this.closers === null) {
      const closers = new Int32Array(this.tokens.length).fill(-1);
      const stack: number[] = [];
      const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
      this.tokens.forEach((t, k) => {
        if (t.kind !== 'punct') return;
        if (t.text === '(' || t.text === '[' || t.text === '{') stack.push(k);
        else if (pairs[t.text] !== undefined) {
          const top = stack.pop();
          const opener = top === undefined ? undefined : this.tokens[top];
          if (opener?.kind === 'punct' && opener.text === pairs[t.text]) closers[top!] = k;
          else stack.length = 0; // unbalanced: whatever is open stays unmatched
        }
      });
      this.closers = closers;
    }
    return this.closers[open] ?? -1;
  }

  /** Runs `parse` one level deeper; past MAX_NESTING levels, a syntax error. */
  protected nested<T>(parse: () => T): T {
    if (this.depth >= MAX_NESTING) {
      throw new TooDeep(`this query nests too deeply (more than ${MAX_NESTING} levels)`, 'UnexpectedSyntax', this.peek().span);
    }
    this.depth++;
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  /**
   * Runs `parse` and keeps its result; when it raises a syntax error, goes back to where it
   * started and returns null. Used where two readings share a prefix (`(a)-->(b)` a pattern,
   * `(a) - (b)` a subtraction), always trying the pattern first.
   */
  protected attempt<T>(parse: () => T): T | null {
    const start = this.i;
    const depth = this.depth;
    try {
      return parse();
    } catch (err) {
      if (!(err instanceof CypherSyntaxError) || err instanceof TooDeep) throw err;
      this.i = start;
      this.depth = depth;
      return null;
    }
  }
}
