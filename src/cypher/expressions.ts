/**
 * Expressions of openCypher 9, by recursive descent, loosest binding first:
 *   OR < XOR < AND < NOT < comparison chain (= <> < > <= >=)
 *   < predicates (IN, STARTS WITH, ENDS WITH, CONTAINS, =~, IS [NOT] NULL)
 *   < + - < * / % < ^ < unary + - < postfix (.key, [i], [a..b]) then labels (n:A)
 * as the TCK's precedence features fix it: `-3 ^ 2` is 9.0, `[1]+2 IN [3]+4` tests `[1,2]`.
 *
 * A minus sign directly before a number literal makes a negative literal: that is how
 * `-9223372036854775808`, which has no positive counterpart, is a valid integer.
 *
 * Patterns and subqueries are parsed by the subclasses (patterns.ts, parser.ts); this class
 * names what it needs from them.
 */
import type { CallExpr, CaseAlternative, Expr, ExistsExpr, MapEntry, MapExpr, MapProjectionItem, Name, PatternPart, Query } from './ast.js';
import { TokenCursor } from './cursor.js';
import { CypherSyntaxError } from './errors.js';
import { RESERVED } from './keywords.js';
import type { Token } from './lexer.js';

const I64_MAX = (1n << 63n) - 1n;
const COMPARISONS = ['=', '<>', '<', '>', '<=', '>='] as const;
const QUANTIFIERS = ['ALL', 'ANY', 'NONE', 'SINGLE'] as const;

export abstract class ExpressionParser extends TokenCursor {
  /**
   * How many WHERE clauses the parser is inside. A relationship pattern used as a value is
   * a predicate, and the TCK accepts it only there (`RETURN (n)-->()` is UnexpectedSyntax).
   */
  protected inWhere = 0;
  /**
   * Token positions where a pattern comprehension or a pattern predicate was tried and
   * failed: neither is tried twice at one place, which keeps nested attempts linear.
   */
  private readonly notComprehensionAt = new Set<number>();
  private readonly notPatternAt = new Set<number>();

  /** A pattern part of a MATCH or a pattern predicate, without shortestPath. */
  protected abstract patternElement(): PatternPart;
  /** The pattern list of EXISTS { pattern WHERE ... }. */
  protected abstract patternList(): PatternPart[];
  /** A whole query, inside EXISTS { }. */
  protected abstract subquery(): Query;

  /** A name for a variable: a word that is not a reserved word (or any quoted name). */
  protected variable(what = 'a variable'): Name {
    const t = this.peek();
    if (t.kind !== 'word' || RESERVED.has(t.keyword)) this.fail(`expected ${what}`);
    this.i++;
    return { name: t.text, span: t.span };
  }
  protected isVariable(ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'word' && !RESERVED.has(t.keyword);
  }
  /** A label, type or property key: any word, reserved or not. */
  protected symbolicName(what: string): Name {
    const t = this.peek();
    if (t.kind !== 'word') this.fail(`expected ${what}`);
    this.i++;
    return { name: t.text, span: t.span };
  }

  /** `WHERE expr` with pattern predicates allowed. */
  protected whereExpression(): Expr {
    this.inWhere++;
    try {
      return this.expression();
    } finally {
      this.inWhere--;
    }
  }

  expression(): Expr {
    return this.nested(() => this.or());
  }

  private or(): Expr {
    let left = this.xor();
    while (this.acceptKeyword('OR')) left = this.binary('or', left, this.xor());
    return left;
  }
  private xor(): Expr {
    let left = this.and();
    while (this.acceptKeyword('XOR')) left = this.binary('xor', left, this.and());
    return left;
  }
  private and(): Expr {
    let left = this.not();
    while (this.acceptKeyword('AND')) left = this.binary('and', left, this.not());
    return left;
  }
  private not(): Expr {
    const first = this.peek();
    if (!this.acceptKeyword('NOT')) return this.comparison();
    const operand = this.nested(() => this.not());
    return { kind: 'unary', span: this.spanFrom(first), op: 'not', operand };
  }
  private binary(op: Extract<Expr, { kind: 'binary' }>['op'], left: Expr, right: Expr): Expr {
    return { kind: 'binary', span: { start: left.span.start, end: right.span.end }, op, left, right };
  }

  private comparison(): Expr {
    const first = this.predicate();
    const operands: Expr[] = [first];
    const ops: (typeof COMPARISONS)[number][] = [];
    for (;;) {
      const t = this.peek();
      const op = t.kind === 'punct' ? COMPARISONS.find((c) => c === t.text) : undefined;
      if (op === undefined) break;
      this.i++;
      ops.push(op);
      operands.push(this.predicate());
    }
    if (ops.length === 0) return first;
    return { kind: 'comparison', span: { start: first.span.start, end: operands[operands.length - 1]!.span.end }, operands, ops };
  }

  private predicate(): Expr {
    let left = this.additive();
    for (;;) {
      if (this.acceptKeyword('IN')) left = this.binary('in', left, this.additive());
      else if (this.isKeyword('STARTS') && this.isKeyword('WITH', 1)) {
        this.i += 2;
        left = this.binary('startsWith', left, this.additive());
      } else if (this.isKeyword('ENDS') && this.isKeyword('WITH', 1)) {
        this.i += 2;
        left = this.binary('endsWith', left, this.additive());
      } else if (this.acceptKeyword('CONTAINS')) left = this.binary('contains', left, this.additive());
      else if (this.acceptPunct('=~')) left = this.binary('regex', left, this.additive());
      else if (this.isKeyword('IS')) {
        this.i++;
        const negated = this.acceptKeyword('NOT');
        this.expectKeyword('NULL', negated ? 'after IS NOT' : 'or NOT NULL after IS');
        left = { kind: 'isNull', span: this.spanFrom(left.span), operand: left, negated };
      } else return left;
    }
  }

  private additive(): Expr {
    let left = this.multiplicative();
    for (;;) {
      if (this.acceptPunct('+')) left = this.binary('+', left, this.multiplicative());
      else if (this.acceptPunct('-')) left = this.binary('-', left, this.multiplicative());
      else return left;
    }
  }
  private multiplicative(): Expr {
    let left = this.power();
    for (;;) {
      if (this.acceptPunct('*')) left = this.binary('*', left, this.power());
      else if (this.acceptPunct('/')) left = this.binary('/', left, this.power());
      else if (this.acceptPunct('%')) left = this.binary('%', left, this.power());
      else return left;
    }
  }
  private power(): Expr {
    let left = this.unary();
    while (this.acceptPunct('^')) left = this.binary('^', left, this.unary());
    return left;
  }

  private unary(): Expr {
    const first = this.peek();
    if (!this.isPunct('-') && !this.isPunct('+')) return this.postfix(true);
    this.i++;
    const op = first.kind === 'punct' && first.text === '-' ? '-' : '+';
    const t = this.peek();
    const literal = t.kind === 'int' || t.kind === 'float' || (t.kind === 'bad' && t.what === 'number');
    if (op === '-' && literal && !this.continuesPostfix(1)) {
      this.i++;
      return this.number(t, first);
    }
    const operand = this.nested(() => this.unary());
    return { kind: 'unary', span: this.spanFrom(first), op, operand };
  }

  /** Whether the token `ahead` continues a postfix expression (`.key`, `[i]`, `:Label`). */
  private continuesPostfix(ahead: number): boolean {
    return this.isPunct('.', ahead) || this.isPunct('[', ahead);
  }

  /**
   * An atom and what follows it: `.key`, `[index]`, `[from..to]`, and at the end `:A:B`
   * label predicates when `labels` (SET and REMOVE read their own labels).
   */
  protected postfix(labels: boolean): Expr {
    let expr = this.atom();
    for (;;) {
      if (this.isPunct('.')) {
        this.i++;
        const key = this.symbolicName('a property name after "."');
        expr = { kind: 'property', span: this.spanFrom(expr.span), object: expr, key };
      } else if (this.isPunct('[')) {
        this.i++;
        expr = this.subscript(expr);
      } else break;
    }
    if (labels && this.isPunct(':')) {
      const names = this.labels();
      expr = { kind: 'hasLabels', span: this.spanFrom(expr.span), object: expr, labels: names };
    }
    return expr;
  }

  /** `:A:B` (one or more). */
  protected labels(): Name[] {
    const names: Name[] = [];
    while (this.acceptPunct(':')) names.push(this.symbolicName('a label name after ":"'));
    return names;
  }

  /** After `[`: `[i]`, `[a..b]`, `[..b]`, `[a..]`. */
  private subscript(object: Expr): Expr {
    if (this.acceptPunct('..')) {
      const to = this.isPunct(']') ? null : this.expression();
      this.expectPunct(']', 'to close the slice');
      return { kind: 'slice', span: this.spanFrom(object.span), object, from: null, to };
    }
    if (this.isPunct(']')) this.fail('expected an index or a slice between "[" and "]"');
    const index = this.expression();
    if (this.acceptPunct('..')) {
      const to = this.isPunct(']') ? null : this.expression();
      this.expectPunct(']', 'to close the slice');
      return { kind: 'slice', span: this.spanFrom(object.span), object, from: index, to };
    }
    this.expectPunct(']', 'to close the index');
    return { kind: 'index', span: this.spanFrom(object.span), object, index };
  }

  /** A number literal token, negated when `minus` (the `-` token before it) is given. */
  private number(t: Token, minus: Token | null): Expr {
    const span = minus === null ? t.span : { start: minus.span.start, end: t.span.end };
    if (t.kind === 'bad') throw new CypherSyntaxError(t.message, t.detail, t.span);
    if (t.kind === 'float') return { kind: 'float', span, value: minus === null ? t.value : -t.value };
    if (t.kind !== 'int') this.fail('expected a number', t);
    const value = minus === null ? t.value : -t.value;
    if (value > I64_MAX || value < -I64_MAX - 1n) {
      const written = this.text.slice(minus === null ? t.from : minus.from, t.to);
      throw new CypherSyntaxError(`the integer ${written} does not fit in 64 bits`, 'IntegerOverflow', span);
    }
    return { kind: 'integer', span, value };
  }

  /** An integer literal token (a pattern's length bound), checked like any literal. */
  protected integer(t: Token): bigint {
    const literal = this.number(t, null);
    if (literal.kind !== 'integer') this.fail('expected an integer', t);
    return literal.value;
  }

  private atom(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case 'int':
      case 'float':
        this.i++;
        return this.number(t, null);
      case 'bad':
        if (t.what === 'number') throw new CypherSyntaxError(t.message, t.detail, t.span);
        return this.fail('expected an expression');
      case 'string':
        this.i++;
        return { kind: 'string', span: t.span, value: t.value };
      case 'param':
        this.i++;
        return { kind: 'parameter', span: t.span, name: t.name };
      case 'punct':
        // No nesting count here: each of these nests through expression(), which counts.
        if (t.text === '[') return this.bracket();
        if (t.text === '{') return this.mapLiteral();
        if (t.text === '(') return this.parenthesized();
        return this.fail('expected an expression');
      case 'word':
        return this.wordAtom(t);
      case 'eof':
        return this.fail('expected an expression');
    }
  }

  private wordAtom(t: Extract<Token, { kind: 'word' }>): Expr {
    switch (t.keyword) {
      case 'TRUE':
      case 'FALSE':
        this.i++;
        return { kind: 'boolean', span: t.span, value: t.keyword === 'TRUE' };
      case 'NULL':
        this.i++;
        return { kind: 'null', span: t.span };
      case 'CASE':
        return this.caseExpression();
      case 'EXISTS':
        if (this.isPunct('{', 1)) return this.exists();
        break;
      case 'COUNT':
        if (this.isPunct('(', 1) && this.isPunct('*', 2) && this.isPunct(')', 3)) {
          this.i += 4;
          return { kind: 'countStar', span: this.spanFrom(t) };
        }
        break;
      case 'REDUCE':
        if (this.isPunct('(', 1) && this.isVariable(2) && this.isPunct('=', 3)) return this.reduce();
        break;
    }
    if ((QUANTIFIERS as readonly string[]).includes(t.keyword) && this.isPunct('(', 1) && this.isVariable(2) && this.isKeyword('IN', 3)) {
      return this.quantifier();
    }
    if (this.isPunct('(', 1) || this.isQualifiedCall()) return this.functionCall();
    const name = this.variable('an expression');
    if (this.isPunct('{')) return this.mapProjection(name);
    return { kind: 'variable', span: name.span, name: name.name };
  }

  /** `a.b.c(`: a namespaced function name. */
  private isQualifiedCall(): boolean {
    let k = 0;
    while (this.peek(k).kind === 'word' && this.isPunct('.', k + 1)) k += 2;
    return k > 0 && this.peek(k).kind === 'word' && this.isPunct('(', k + 1);
  }

  private functionCall(): CallExpr {
    const first = this.peek();
    const parts: Name[] = [this.symbolicName('a function name')];
    while (this.acceptPunct('.')) parts.push(this.symbolicName('a function name'));
    this.expectPunct('(');
    const distinct = this.acceptKeyword('DISTINCT');
    const args: Expr[] = [];
    // `exists((n)-->())` tests a pattern: the one place besides WHERE where one may stand.
    const isExists = parts.length === 1 && parts[0]!.name.toUpperCase() === 'EXISTS';
    if (isExists) this.inWhere++;
    try {
      if (!this.isPunct(')')) {
        do args.push(this.expression());
        while (this.acceptPunct(','));
      }
    } finally {
      if (isExists) this.inWhere--;
    }
    this.expectPunct(')', 'to close the argument list');
    const name = parts.pop()!;
    return { kind: 'call', span: this.spanFrom(first), namespace: parts, name, distinct, args };
  }

  /** `[`: a list, a list comprehension `[x IN l WHERE p | e]` or a pattern comprehension. */
  private bracket(): Expr {
    const first = this.next();
    if (this.isVariable() && this.isKeyword('IN', 1)) {
      const variable = this.variable();
      this.i++;
      const list = this.expression();
      const where = this.acceptKeyword('WHERE') ? this.whereExpression() : null;
      const map = this.acceptPunct('|') ? this.expression() : null;
      this.expectPunct(']', 'to close the list comprehension');
      return { kind: 'listComprehension', span: this.spanFrom(first), variable, list, where, map };
    }
    const start = this.isVariable() && this.isPunct('=', 1) ? this.i + 2 : this.i;
    if (this.relationshipFollows(start)) {
      const comprehension = this.attemptPattern(this.notComprehensionAt, () => this.patternComprehension(first));
      if (comprehension !== null) return comprehension;
    }
    const items: Expr[] = [];
    if (!this.isPunct(']')) {
      do items.push(this.expression());
      while (this.acceptPunct(','));
    }
    this.expectPunct(']', 'or "," in the list');
    return { kind: 'list', span: this.spanFrom(first), items };
  }

  /** After `[`: `p = (a)-->(b) WHERE pred | expr]`. */
  private patternComprehension(first: Token): Expr {
    let variable: Name | null = null;
    if (this.isVariable() && this.isPunct('=', 1)) {
      variable = this.variable();
      this.i++;
    }
    const element = this.patternElement();
    if (element.relationships.length === 0) this.fail('expected a relationship in the pattern comprehension');
    const pattern = variable === null ? element : { ...element, variable, span: { start: variable.span.start, end: element.span.end } };
    const where = this.acceptKeyword('WHERE') ? this.whereExpression() : null;
    this.expectPunct('|', 'in the pattern comprehension');
    const map = this.expression();
    this.expectPunct(']', 'to close the pattern comprehension');
    return { kind: 'patternComprehension', span: this.spanFrom(first), pattern, where, map };
  }

  /**
   * Whether token `at` is a `(` whose `)` is followed by `-` or `<-`: only then may a pattern
   * start there, so that no other parenthesis costs a parse attempt.
   */
  private relationshipFollows(at: number): boolean {
    const t = this.tokens[at];
    if (t === undefined || t.kind !== 'punct' || t.text !== '(') return false;
    const close = this.closing(at);
    if (close < 0) return false;
    const next = this.tokens[close + 1];
    const after = this.tokens[close + 2];
    return next?.kind === 'punct' && (next.text === '-' || (next.text === '<' && after?.kind === 'punct' && after.text === '-'));
  }

  /** `attempt` for patterns, remembering where one failed so that it is never tried twice. */
  private attemptPattern<T>(failed: Set<number>, parse: () => T): T | null {
    const at = this.i;
    if (failed.has(at)) return null;
    const result = this.attempt(parse);
    if (result === null) failed.add(at);
    return result;
  }

  /** `(`: a relationship pattern used as a predicate, or a parenthesized expression. */
  private parenthesized(): Expr {
    const first = this.peek();
    const pattern = !this.relationshipFollows(this.i)
      ? null
      : this.attemptPattern(this.notPatternAt, () => {
          const part = this.patternElement();
          if (part.relationships.length === 0) this.fail('expected a relationship');
          return part;
        });
    if (pattern !== null) {
      if (this.inWhere === 0) {
        throw new CypherSyntaxError(
          'a pattern cannot be used as a value here: a pattern predicate may stand only in WHERE (use EXISTS { } or a pattern comprehension)',
          'UnexpectedSyntax',
          pattern.span,
        );
      }
      return { kind: 'pattern', span: pattern.span, pattern };
    }
    this.i++;
    const inner = this.expression();
    this.expectPunct(')', 'to close the parenthesis');
    // The parentheses belong to the inner expression's span: its text is what was written.
    return { ...inner, span: this.spanFrom(first) };
  }

  /** `{key: value, ...}`. */
  protected mapLiteral(): MapExpr {
    const first = this.expectPunct('{');
    const entries: MapEntry[] = [];
    if (!this.isPunct('}')) {
      do {
        const key = this.symbolicName('a property name (a map key)');
        this.expectPunct(':', 'after the map key');
        entries.push({ key, value: this.expression() });
      } while (this.acceptPunct(','));
    }
    this.expectPunct('}', 'or "," in the map');
    return { kind: 'map', span: this.spanFrom(first), entries };
  }

  /** `n{.a, .*, b: expr, x}`. */
  private mapProjection(variable: Name): Expr {
    this.expectPunct('{');
    const items: MapProjectionItem[] = [];
    if (!this.isPunct('}')) {
      do {
        const first = this.peek();
        if (this.acceptPunct('.')) {
          if (this.acceptPunct('*')) items.push({ kind: 'allProperties', span: this.spanFrom(first) });
          else {
            const key = this.symbolicName('a property name after "."');
            items.push({ kind: 'property', span: this.spanFrom(first), key });
          }
        } else if (this.peek().kind === 'word' && this.isPunct(':', 1)) {
          const key = this.symbolicName('a key');
          this.i++;
          const value = this.expression();
          items.push({ kind: 'entry', span: this.spanFrom(first), key, value });
        } else {
          const name = this.variable('a map projection item');
          items.push({ kind: 'variable', span: this.spanFrom(first), name });
        }
      } while (this.acceptPunct(','));
    }
    this.expectPunct('}', 'or "," in the map projection');
    return { kind: 'mapProjection', span: this.spanFrom(variable.span), variable, items };
  }

  private caseExpression(): Expr {
    const first = this.next();
    const subject = this.isKeyword('WHEN') ? null : this.expression();
    const alternatives: CaseAlternative[] = [];
    while (this.acceptKeyword('WHEN')) {
      const when = this.expression();
      this.expectKeyword('THEN', 'after the WHEN condition');
      alternatives.push({ when, then: this.expression() });
    }
    if (alternatives.length === 0) this.fail('expected WHEN in CASE');
    const otherwise = this.acceptKeyword('ELSE') ? this.expression() : null;
    this.expectKeyword('END', 'to close CASE');
    return { kind: 'case', span: this.spanFrom(first), subject, alternatives, else: otherwise };
  }

  /** `all(x IN list WHERE pred)`, any, none, single. */
  private quantifier(): Expr {
    const first = this.next();
    const quantifier = (first.kind === 'word' ? first.keyword.toLowerCase() : 'all') as 'all' | 'any' | 'none' | 'single';
    this.expectPunct('(');
    const variable = this.variable();
    this.expectKeyword('IN');
    const list = this.expression();
    const where = this.acceptKeyword('WHERE') ? this.whereExpression() : null;
    this.expectPunct(')', `to close ${quantifier}(...)`);
    return { kind: 'quantifier', span: this.spanFrom(first), quantifier, variable, list, where };
  }

  /** `reduce(acc = init, x IN list | expr)`. */
  private reduce(): Expr {
    const first = this.next();
    this.expectPunct('(');
    const accumulator = this.variable('the accumulator');
    this.expectPunct('=');
    const init = this.expression();
    this.expectPunct(',', 'after the initial value of reduce');
    const variable = this.variable();
    this.expectKeyword('IN');
    const list = this.expression();
    this.expectPunct('|', 'before the reduce expression');
    const expr = this.expression();
    this.expectPunct(')', 'to close reduce(...)');
    return { kind: 'reduce', span: this.spanFrom(first), accumulator, init, variable, list, expr };
  }

  /** `EXISTS { pattern WHERE pred }` or `EXISTS { query }`. */
  private exists(): ExistsExpr {
    const first = this.next();
    this.expectPunct('{');
    let result: ExistsExpr;
    if (this.isPunct('(') || (this.isVariable() && this.isPunct('=', 1))) {
      const pattern = this.patternList();
      const where = this.acceptKeyword('WHERE') ? this.whereExpression() : null;
      this.expectPunct('}', 'to close EXISTS');
      result = { kind: 'exists', span: this.spanFrom(first), pattern, where, query: null };
    } else {
      const query = this.subquery();
      this.expectPunct('}', 'to close EXISTS');
      result = { kind: 'exists', span: this.spanFrom(first), pattern: null, where: null, query };
    }
    return result;
  }
}
