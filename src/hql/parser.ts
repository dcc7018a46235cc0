/**
 * The parser of `.hx` files: tokens (lexer.ts) to the syntax tree (ast.ts), by recursive
 * descent over the grammar of reference helixql-v1.md §2. It reports every syntax error
 * of a file at once: after an error it skips to the start of the next schema item or
 * query and goes on, so one mistake costs one diagnostic, not a cascade.
 */
import {
  PRIMITIVE_TYPES,
  type CompareOp,
  type DefaultValue,
  type Expr,
  type FieldDef,
  type FieldMapping,
  type FieldValue,
  type HxFile,
  type ItemMapping,
  type ItemRef,
  type MigrationDef,
  type MigrationValue,
  type IdArg,
  type Name,
  type ParamDef,
  type PathAlgorithm,
  type PrimitiveType,
  type ProjectionField,
  type ProjectionStep,
  type QueryDef,
  type Source,
  type Statement,
  type Step,
  type TypeDef,
  type TypeExpr,
  type VectorArg,
  type VersionRef,
} from './ast.js';
import { lex, type LexError, type Punct, type SourcePos, type Token } from './lexer.js';

/** What a file is made of, as the parser collects it. */
interface Items {
  types: TypeDef[];
  migrations: MigrationDef[];
  queries: QueryDef[];
}

export interface ParseResult {
  readonly file: HxFile;
  readonly errors: readonly LexError[];
}

/** Thrown inside the parser to unwind to the next item; never escapes `parse`. */
class ParseUnwind extends Error {
  constructor(
    readonly pos: SourcePos,
    message: string,
  ) {
    super(message);
  }
}

const COMPARE_OPS: readonly CompareOp[] = ['EQ', 'NEQ', 'GT', 'GTE', 'LT', 'LTE', 'CONTAINS', 'IS_IN'];
/** Math functions and how many arguments each takes (reference §2.7). */
export const MATH_ARITY: Readonly<Record<string, number>> = {
  PI: 0,
  E: 0,
  ABS: 1,
  SQRT: 1,
  LN: 1,
  LOG10: 1,
  EXP: 1,
  CEIL: 1,
  FLOOR: 1,
  ROUND: 1,
  SIN: 1,
  COS: 1,
  TAN: 1,
  ASIN: 1,
  ACOS: 1,
  ATAN: 1,
  SUM: 1,
  AVG: 1,
  COUNT: 1,
  ADD: 2,
  SUB: 2,
  MUL: 2,
  DIV: 2,
  POW: 2,
  MOD: 2,
  LOG: 2,
  ATAN2: 2,
  MIN: 2,
  MAX: 2,
};
/**
 * How deeply constructs may nest (arrays, objects, calls, projections, types, FOR loops, all
 * counted together). Real queries stay far below; the limit keeps a pathological file from
 * overflowing the stack, which would throw out of `parse` instead of reporting an error.
 */
export const MAX_NESTING = 256;
const PATH_STEPS: readonly string[] = ['ShortestPath', 'ShortestPathBFS', 'ShortestPathDijkstras', 'ShortestPathAStar'];

/** The upserts: steps on what a traversal found (reference §4.5), never sources. */
const UPSERTS: ReadonlySet<string> = new Set(['UpsertN', 'UpsertE', 'UpsertV']);

/** Why `UpsertN<T>(...)` (a later HelixDB's source form) is refused, and what v1 writes instead. */
function upsertSourceMessage(upsert: string): string {
  const example =
    upsert === 'UpsertN'
      ? 'existing <- N<T>::WHERE(_::{name}::EQ(name))  then  node <- existing::UpsertN({name: name, ...})'
      : upsert === 'UpsertE'
        ? 'existing <- E<T>  then  existing::UpsertE({...})::From(a)::To(b)  (it finds the edge from a to b itself)'
        : 'existing <- V<T>::WHERE(...)  then  v <- existing::UpsertV(vector, {...})';
  return `${upsert}<T> is not a source in HelixQL v1 (a later HelixDB's form): ${upsert} is a step on what a traversal found, created when it found nothing: ${example}`;
}

/** Parses one file's text; never throws. */
export function parse(source: string): ParseResult {
  const lexed = lex(source);
  const parser = new Parser(lexed.tokens);
  const file = parser.file();
  return { file, errors: [...lexed.errors, ...parser.errors] };
}

class Parser {
  private i = 0;
  private depth = 0;
  readonly errors: LexError[] = [];

  constructor(private readonly tokens: readonly Token[]) {}

  // ---- tokens ----

  private peek(ahead = 0): Token {
    return this.tokens[Math.min(this.i + ahead, this.tokens.length - 1)]!;
  }
  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }
  private isPunct(text: Punct, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'punct' && t.text === text;
  }
  private isWord(text?: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'word' && (text === undefined || t.text === text);
  }
  private fail(message: string, at: Token = this.peek()): never {
    throw new ParseUnwind(at.pos, message);
  }
  private shown(t: Token): string {
    if (t.kind === 'eof') return 'the end of the file';
    return t.kind === 'string' ? `the string ${t.text}` : `"${t.text}"`;
  }
  private expectPunct(text: Punct, what?: string): Token {
    if (!this.isPunct(text)) this.fail(`expected "${text}"${what ? ` ${what}` : ''}, found ${this.shown(this.peek())}`);
    return this.next();
  }
  private acceptPunct(text: Punct): boolean {
    if (!this.isPunct(text)) return false;
    this.i++;
    return true;
  }
  private expectWord(text: string, what?: string): Token {
    if (!this.isWord(text)) this.fail(`expected "${text}"${what ? ` ${what}` : ''}, found ${this.shown(this.peek())}`);
    return this.next();
  }
  private name(what: string): Name {
    const t = this.peek();
    if (t.kind !== 'word') this.fail(`expected ${what}, found ${this.shown(t)}`);
    this.i++;
    return { text: t.text, pos: t.pos };
  }
  /** `<T>`: a type name between angle brackets. */
  private typeArgument(what: string): Name {
    this.expectPunct('<', `before the ${what}`);
    const name = this.name(what);
    this.expectPunct('>', `after the ${what}`);
    return name;
  }
  /** Runs `parse` one level of nesting deeper; past MAX_NESTING levels, an error. */
  private nested<T>(parse: () => T): T {
    if (this.depth >= MAX_NESTING) this.fail(`this is nested too deeply (more than ${MAX_NESTING} levels)`);
    this.depth++;
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }
  // ---- top level ----

  file(): HxFile {
    const out: Items = { types: [], migrations: [], queries: [] };
    while (this.peek().kind !== 'eof') {
      const start = this.i;
      try {
        this.item(out);
      } catch (err) {
        if (!(err instanceof ParseUnwind)) throw err;
        this.errors.push({ pos: err.pos, message: err.message });
        if (this.i === start) this.i++;
        this.recover();
      }
    }
    return out;
  }

  /** Skips to the next token that starts an item: `QUERY`, `#`, `MIGRATION`, `N::`, `E::`, `V::`, `schema::`. */
  private recover(): void {
    while (this.peek().kind !== 'eof' && !this.atItemStart()) this.i++;
  }

  private atItemStart(): boolean {
    if (this.isWord('QUERY') || this.isPunct('#') || this.isWord('MIGRATION')) return true;
    return (this.isWord('N') || this.isWord('E') || this.isWord('V') || this.isWord('schema')) && this.isPunct('::', 1);
  }

  private item(out: Items): void {
    if (this.isWord('schema') && this.isPunct('::', 1)) {
      // `schema::N { ... }`: items of version N (reference §2.1); outside a block, version 1.
      const version = this.schemaVersion();
      this.expectPunct('{', 'to open the schema block');
      while (!this.isPunct('}')) {
        if (this.peek().kind === 'eof') this.fail('this schema block is never closed');
        out.types.push(this.typeDef(version.value));
      }
      this.i++;
      return;
    }
    if (this.isWord('MIGRATION')) {
      const start = this.i;
      try {
        out.migrations.push(this.migration());
      } catch (err) {
        if (!(err instanceof ParseUnwind)) throw err;
        // Its `N::A => ...` mappings would each read as the start of an item: skip the whole block.
        this.i = start + 1;
        this.skipMigration();
        throw err;
      }
      return;
    }
    if (this.isWord('QUERY') || this.isPunct('#')) {
      out.queries.push(this.query());
      return;
    }
    if ((this.isWord('N') || this.isWord('E') || this.isWord('V')) && this.isPunct('::', 1)) {
      out.types.push(this.typeDef(1));
      return;
    }
    this.fail(`expected a schema item (N::, E::, V::), a MIGRATION or a QUERY, found ${this.shown(this.peek())}`);
  }

  /** `schema::N`: a version, a whole number from 1. */
  private schemaVersion(): VersionRef {
    const pos = this.expectWord('schema').pos;
    this.expectPunct('::');
    const t = this.next();
    if (t.kind !== 'int') this.fail('expected a schema version number after "schema::"', t);
    if (t.value < 1n || t.value > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(`a schema version is a whole number from 1, not ${t.text}`, t);
    return { value: Number(t.value), pos };
  }

  /**
   * Skips the rest of a `MIGRATION schema::1 => schema::2 { ... }` block after an error in
   * it, so that it costs one error: its header and its `schema::` words and `N::A => ...`
   * mappings would otherwise each be read as the start of an item.
   */
  private skipMigration(): void {
    while (this.isWord('schema') || this.isPunct('::') || this.isPunct('=>') || this.peek().kind === 'int') this.i++;
    if (!this.acceptPunct('{')) return;
    let depth = 1;
    while (depth > 0 && this.peek().kind !== 'eof') {
      if (this.isPunct('{')) depth++;
      else if (this.isPunct('}')) depth--;
      this.i++;
    }
  }

  // ---- migrations ----

  /** `MIGRATION schema::1 => schema::2 { mapping ... }` (reference §2.3). */
  private migration(): MigrationDef {
    const pos = this.expectWord('MIGRATION').pos;
    const from = this.schemaVersion();
    this.expectPunct('=>', 'between the two schema versions');
    const to = this.schemaVersion();
    this.expectPunct('{', 'to open the migration');
    const mappings: ItemMapping[] = [];
    while (!this.isPunct('}')) {
      if (this.peek().kind === 'eof') this.fail('this migration is never closed');
      mappings.push(this.itemMapping());
      this.acceptPunct(',');
    }
    this.i++;
    return { kind: 'migration', pos, from, to, mappings };
  }

  /** `N::Old => N::New { fmaps }`, `=> _::{ fmaps }`, or either with `{ Properties: { fmaps } }`. */
  private itemMapping(): ItemMapping {
    const from = this.itemRef();
    this.expectPunct('=>', `after ${from.name.text}: N::Old => N::New {...} or N::Old => _::{...}`);
    let to: ItemMapping['to'];
    if (this.isWord('_') && this.isPunct('::', 1)) {
      to = { kind: 'same', pos: this.peek().pos };
      this.i += 2;
    } else to = this.itemRef();
    this.expectPunct('{', 'to open the field mappings');
    const properties = this.isWord('Properties') && this.isPunct(':', 1) && this.isPunct('{', 2);
    if (properties) {
      this.i += 2;
      this.expectPunct('{');
    }
    const fields: FieldMapping[] = [];
    let rest: { pos: SourcePos } | null = null;
    while (!this.isPunct('}')) {
      if (this.isPunct('..')) {
        rest = { pos: this.peek().pos };
        this.i++;
        this.acceptPunct(',');
        if (!this.isPunct('}')) this.fail(`".." ends the field mappings: expected "}" after it, found ${this.shown(this.peek())}`);
        break;
      }
      const name = this.name('a field name or ".."');
      this.expectPunct(':', `after the field name "${name.text}"`);
      fields.push({ name, value: this.migrationValue() });
      if (!this.acceptPunct(',')) break;
    }
    this.expectPunct('}', 'to close the field mappings');
    if (properties) {
      this.acceptPunct(',');
      this.expectPunct('}', 'to close the mapping');
    }
    return { from, to, properties, fields, rest };
  }

  /** `N::Name`, `E::Name` or `V::Name`. */
  private itemRef(): ItemRef {
    const t = this.peek();
    if (!(this.isWord('N') || this.isWord('E') || this.isWord('V')) || !this.isPunct('::', 1))
      this.fail(`expected an item (N::Name, E::Name or V::Name), found ${this.shown(t)}`);
    this.i += 2;
    const kind = t.text === 'N' ? 'node' : t.text === 'E' ? 'edge' : 'vector';
    return { kind, name: this.name('a type name'), pos: t.pos };
  }

  /** NOW, a literal, NONE, or a field of the old item with an optional `AS T`. */
  private migrationValue(): MigrationValue {
    const t = this.peek();
    if (this.isWord('NOW')) {
      this.i++;
      return { kind: 'now', pos: t.pos };
    }
    const value = this.literal();
    if (value !== undefined) return { kind: 'literal', value, pos: t.pos };
    if (t.kind !== 'word') this.fail(`expected a value: a field of the old item, a literal, NOW or NONE, found ${this.shown(t)}`);
    const name = this.name('a field');
    if (!this.isWord('AS')) return { kind: 'field', name, cast: null };
    this.i++;
    const type = this.name('a type after AS');
    if (!(PRIMITIVE_TYPES as readonly string[]).includes(type.text))
      this.fail(
        `AS takes a type: String, Boolean, F32, F64, I8 to I64, U8 to U128, Date or ID; found "${type.text}"`,
        this.tokens[this.i - 1],
      );
    return { kind: 'field', name, cast: { type: type.text as PrimitiveType, pos: type.pos } };
  }

  // ---- schema ----

  private typeDef(version: number): TypeDef {
    const kind = this.name('N, E or V');
    this.expectPunct('::');
    const name = this.name('a type name');
    if (kind.text === 'E') {
      const unique = this.isWord('UNIQUE') ? (this.i++, true) : false;
      this.expectPunct('{', `to open the body of ${name.text}`);
      this.expectWord('From');
      this.expectPunct(':');
      const from = this.name('the From node type');
      this.acceptPunct(',');
      this.expectWord('To');
      this.expectPunct(':');
      const to = this.name('the To node type');
      this.acceptPunct(',');
      let properties: FieldDef[] = [];
      if (this.isWord('Properties')) {
        this.i++;
        this.expectPunct(':');
        properties = this.fieldBlock();
        this.acceptPunct(',');
      }
      this.expectPunct('}', `to close the body of ${name.text}`);
      return { kind: 'edge', name, unique, from, to, properties, version };
    }
    if (kind.text !== 'N' && kind.text !== 'V') this.fail(`expected N::, E:: or V::, found "${kind.text}::"`, this.tokens[this.i - 3]);
    if (kind.text === 'V' && this.isPunct('<'))
      this.fail(
        `a vector type takes no precision (V::${name.text}<...> is a later HelixDB's syntax, not HelixQL v1): declare V::${name.text} { ... }. ` +
          'Trellis keeps every vector as 32-bit floats, and its cosine index as 16-bit ones (docs/queries.md, "Search")',
      );
    return { kind: kind.text === 'N' ? 'node' : 'vector', name, fields: this.fieldBlock(), version };
  }

  /** `{ field, field, ... }` with an optional trailing comma. */
  private fieldBlock(): FieldDef[] {
    this.expectPunct('{');
    const fields: FieldDef[] = [];
    while (!this.isPunct('}')) {
      fields.push(this.fieldDef());
      if (!this.acceptPunct(',')) break;
    }
    this.expectPunct('}', 'to close the field list');
    return fields;
  }

  private fieldDef(): FieldDef {
    let index: FieldDef['index'] = 'none';
    if (this.isWord('UNIQUE')) {
      this.i++;
      this.expectWord('INDEX', 'after UNIQUE');
      index = 'unique';
    } else if (this.isWord('INDEX')) {
      this.i++;
      index = 'index';
    }
    const name = this.name('a field name');
    this.expectPunct(':', `after the field name "${name.text}"`);
    const type = this.typeExpr();
    let def: DefaultValue | null = null;
    if (this.isWord('DEFAULT')) {
      this.i++;
      const t = this.peek();
      if (this.isWord('NOW')) {
        this.i++;
        def = { kind: 'now', pos: t.pos };
      } else {
        const value = this.literal();
        if (value === undefined) this.fail(`expected a default value (a literal or NOW), found ${this.shown(t)}`);
        if (value === null) this.fail('DEFAULT NONE is not a default: leave the DEFAULT out', t);
        def = { kind: 'literal', value, pos: t.pos };
      }
    }
    return { name, type, index, default: def };
  }

  private typeExpr(): TypeExpr {
    return this.nested(() => this.typeExprHere());
  }

  private typeExprHere(): TypeExpr {
    const t = this.peek();
    if (this.acceptPunct('[')) {
      const of = this.typeExpr();
      this.expectPunct(']', 'to close the array type');
      return { kind: 'array', of, pos: t.pos };
    }
    if (this.isPunct('{')) return { kind: 'object', fields: this.fieldBlock(), pos: t.pos };
    const name = this.name('a type');
    if ((PRIMITIVE_TYPES as readonly string[]).includes(name.text))
      return { kind: 'primitive', name: name.text as PrimitiveType, pos: t.pos };
    return { kind: 'named', name: name.text, pos: t.pos };
  }

  // ---- queries ----

  private query(): QueryDef {
    const start = this.peek().pos;
    let mcp = false;
    let model: string | null = null;
    if (this.acceptPunct('#')) {
      this.expectPunct('[');
      const macro = this.name('a macro name (mcp)');
      if (macro.text === 'mcp') mcp = true;
      else if (macro.text === 'model') {
        this.expectPunct('(', 'after model');
        const t = this.next();
        if (t.kind !== 'string' && t.kind !== 'word') this.fail("expected the model's name, a string or a name", t);
        model = t.kind === 'string' ? t.value : t.text;
        this.expectPunct(')', 'to close model(...)');
      } else this.fail(`unknown macro "${macro.text}"; the macros are #[mcp] and #[model(...)]`, this.tokens[this.i - 1]);
      this.expectPunct(']');
    }
    this.expectWord('QUERY');
    const name = this.name('the query name');
    this.expectPunct('(', 'to open the parameter list');
    const params: ParamDef[] = [];
    while (!this.isPunct(')')) {
      const pname = this.name('a parameter name');
      const optional = this.acceptPunct('?');
      this.expectPunct(':', `after the parameter "${pname.text}"`);
      params.push({ name: pname, optional, type: this.typeExpr() });
      if (!this.acceptPunct(',')) break;
    }
    this.expectPunct(')', 'to close the parameter list');
    this.expectPunct('=>', 'after the parameter list');
    const body = this.statements(() => this.isWord('RETURN'));
    const returnPos = this.expectWord('RETURN', 'to end the query').pos;
    const returns: Expr[] = [this.expr()];
    while (this.acceptPunct(',')) returns.push(this.expr());
    return { kind: 'query', pos: start, name, mcp, model, params, body, returnPos, returns };
  }

  private statements(atEnd: () => boolean): Statement[] {
    const out: Statement[] = [];
    while (!atEnd()) {
      if (this.peek().kind === 'eof' || this.atItemStart()) this.fail(`expected a statement or RETURN, found ${this.shown(this.peek())}`);
      out.push(this.statement());
    }
    return out;
  }

  private statement(): Statement {
    return this.nested(() => this.statementHere());
  }

  private statementHere(): Statement {
    const t = this.peek();
    if (this.isWord('DROP')) {
      this.i++;
      return { kind: 'drop', pos: t.pos, value: this.expr() };
    }
    if (this.isWord('FOR')) {
      this.i++;
      const vars: Name[] = [];
      let destructure = false;
      if (this.acceptPunct('{')) {
        destructure = true;
        do vars.push(this.name('a field name'));
        while (this.acceptPunct(','));
        this.expectPunct('}');
      } else {
        vars.push(this.name('a loop variable'));
        if (this.isPunct('.')) this.fail('FOR x.y IN ... is not supported; destructure with FOR {y} IN ...');
      }
      this.expectWord('IN');
      const source = this.name('the array to loop over');
      this.expectPunct('{', 'to open the loop body');
      const body = this.statements(() => this.isPunct('}'));
      this.expectPunct('}');
      return { kind: 'for', pos: t.pos, vars, destructure, source, body };
    }
    if (t.kind === 'word' && this.isPunct('<-', 1)) {
      this.i += 2;
      return { kind: 'assign', pos: t.pos, name: { text: t.text, pos: t.pos }, value: this.expr() };
    }
    if (this.isWord('AddN') || this.isWord('AddE') || this.isWord('AddV') || this.isWord('BatchAddV'))
      return { kind: 'expr', pos: t.pos, value: this.expr() };
    if (UPSERTS.has(t.text) && this.isPunct('<', 1)) this.fail(upsertSourceMessage(t.text), t);
    this.fail(`expected a statement (name <- ..., DROP, FOR, AddN, AddE, AddV, BatchAddV) or RETURN, found ${this.shown(t)}`);
  }

  // ---- expressions ----

  /** A literal at the cursor, consumed; undefined (nothing consumed) when there is none. */
  private literal(): string | bigint | number | boolean | null | undefined {
    const t = this.peek();
    if (t.kind === 'string' || t.kind === 'int' || t.kind === 'float') {
      this.i++;
      return t.value;
    }
    if (this.isWord('true') || this.isWord('false')) {
      this.i++;
      return t.text === 'true';
    }
    if (this.isWord('NONE')) {
      this.i++;
      return null;
    }
    return undefined;
  }

  expr(): Expr {
    return this.nested(() => this.exprHere());
  }

  private exprHere(): Expr {
    const t = this.peek();
    const value = this.literal();
    if (value !== undefined) return { kind: 'literal', pos: t.pos, value };
    if (this.acceptPunct('[')) {
      const items: Expr[] = [];
      while (!this.isPunct(']')) {
        items.push(this.expr());
        if (!this.acceptPunct(',')) break;
      }
      this.expectPunct(']', 'to close the array');
      return { kind: 'array', pos: t.pos, items };
    }
    if (this.isPunct('{')) return this.objectLiteral();
    const negated = this.acceptPunct('!');
    if (this.isWord('EXISTS')) {
      this.i++;
      this.expectPunct('(');
      const traversal = this.expr();
      this.expectPunct(')', 'to close EXISTS');
      return { kind: 'exists', pos: t.pos, negated, traversal };
    }
    if ((this.isWord('AND') || this.isWord('OR')) && this.isPunct('(', 1)) {
      const op = this.next().text as 'AND' | 'OR';
      this.expectPunct('(');
      const items: Expr[] = [this.expr()];
      while (this.acceptPunct(',')) items.push(this.expr());
      this.expectPunct(')', `to close ${op}`);
      return { kind: 'logic', pos: t.pos, op, negated, items };
    }
    if (negated) this.fail('"!" negates EXISTS(...), AND(...) or OR(...) only');
    if (t.kind === 'word' && Object.hasOwn(MATH_ARITY, t.text) && this.isPunct('(', 1)) return this.math();
    if (t.kind === 'word') return this.traversal();
    this.fail(`expected a value or a traversal, found ${this.shown(t)}`);
  }

  private objectLiteral(): Expr {
    const pos = this.expectPunct('{').pos;
    const fields: FieldValue[] = [];
    while (!this.isPunct('}')) {
      const name = this.name('a key');
      this.expectPunct(':', `after the key "${name.text}"`);
      fields.push({ name, value: this.expr() });
      if (!this.acceptPunct(',')) break;
    }
    this.expectPunct('}', 'to close the object');
    return { kind: 'object', pos, fields };
  }

  private math(): Expr {
    const fn = this.next();
    this.expectPunct('(');
    const args: Expr[] = [];
    while (!this.isPunct(')')) {
      args.push(this.expr());
      if (!this.acceptPunct(',')) break;
    }
    this.expectPunct(')', `to close ${fn.text}`);
    const arity = MATH_ARITY[fn.text]!;
    if (args.length !== arity) this.fail(`${fn.text} takes ${arity} argument${arity === 1 ? '' : 's'}, got ${args.length}`, fn);
    return { kind: 'math', pos: fn.pos, fn: fn.text, args };
  }

  private traversal(): Expr {
    const pos = this.peek().pos;
    const source = this.source();
    const steps: Step[] = [];
    while (this.isPunct('::')) {
      this.i++;
      steps.push(this.step());
    }
    return { kind: 'traversal', pos, source, steps };
  }

  private source(): Source {
    const t = this.next();
    const pos = t.pos;
    switch (t.text) {
      case 'N':
      case 'E':
      case 'V': {
        const type = this.isPunct('<') ? this.typeArgument(`${t.text === 'N' ? 'node' : t.text === 'E' ? 'edge' : 'vector'} type`) : null;
        let id: IdArg | null = null;
        let lookup: { field: Name; value: Expr } | null = null;
        if (this.acceptPunct('(')) {
          if (this.acceptPunct('{')) {
            const field = this.name('an indexed field');
            this.expectPunct(':');
            lookup = { field, value: this.expr() };
            this.expectPunct('}');
          } else {
            id = this.idArg();
            if (this.isPunct(',')) this.fail('only one id can be given');
          }
          this.expectPunct(')');
        }
        return { kind: t.text, pos, type, id, lookup };
      }
      case '_':
        return { kind: 'anon', pos };
      case 'AddN': {
        const type = this.typeArgument('node type');
        return { kind: 'AddN', pos, type, fields: this.isPunct('(') ? this.initializer() : [] };
      }
      case 'AddE': {
        const type = this.typeArgument('edge type');
        const fields = this.isPunct('(') ? this.initializer() : [];
        const ends = this.fromTo();
        return { kind: 'AddE', pos, type, fields, ...ends };
      }
      case 'AddV': {
        const type = this.typeArgument('vector type');
        this.expectPunct('(', `after AddV<${type.text}>: AddV<T>(vector, {field: value, ...})`);
        const vector = this.vectorArg();
        let fields: FieldValue[] = [];
        if (this.acceptPunct(',') && this.isPunct('{')) fields = this.fieldValues();
        this.expectPunct(')', 'to close AddV');
        return { kind: 'AddV', pos, type, vector, fields };
      }
      case 'BatchAddV': {
        const type = this.typeArgument('vector type');
        this.expectPunct('(');
        const items = this.name('the array of vectors to add');
        this.expectPunct(')', 'to close BatchAddV');
        return { kind: 'BatchAddV', pos, type, items };
      }
      case 'SearchV': {
        const { type, vector, k } = this.searchVArguments();
        let prefilter: Expr | null = null;
        if (this.acceptPunct(',')) {
          this.expectWord('PREFILTER', 'as the third argument of SearchV');
          prefilter = this.prefilterCondition();
        }
        this.expectPunct(')', 'to close SearchV');
        return { kind: 'SearchV', pos, type, vector, k, prefilter };
      }
      case 'SearchBM25': {
        const type = this.typeArgument('node type');
        this.expectPunct('(');
        const text = this.expr();
        this.expectPunct(',', 'between the text and k (SearchBM25<T>(text, k))');
        const k = this.expr();
        this.expectPunct(')', 'to close SearchBM25');
        return { kind: 'SearchBM25', pos, type, text, k };
      }
      case 'SearchHybrid': {
        const type = this.typeArgument('vector type');
        this.expectPunct('(');
        const vector = this.vectorArg();
        this.expectPunct(',', 'after the vector (SearchHybrid<T>(vector, text, k))');
        const text = this.expr();
        this.expectPunct(',', 'between the text and k (SearchHybrid<T>(vector, text, k))');
        const k = this.expr();
        this.expectPunct(')', 'to close SearchHybrid');
        return { kind: 'SearchHybrid', pos, type, vector, text, k };
      }
    }
    if (t.kind !== 'word') this.fail(`expected a traversal, found ${this.shown(t)}`, t);
    if (UPSERTS.has(t.text) && this.isPunct('<')) this.fail(upsertSourceMessage(t.text), t);
    return { kind: 'var', pos, name: { text: t.text, pos } };
  }

  /** `( [ {field: value, ...} ] )` */
  private initializer(): FieldValue[] {
    this.expectPunct('(');
    let fields: FieldValue[] = [];
    if (this.isPunct('{')) fields = this.fieldValues();
    this.expectPunct(')');
    return fields;
  }

  private fieldValues(): FieldValue[] {
    this.expectPunct('{');
    const fields: FieldValue[] = [];
    while (!this.isPunct('}')) {
      const name = this.name('a field name');
      this.expectPunct(':', `after "${name.text}"`);
      fields.push({ name, value: this.expr() });
      if (!this.acceptPunct(',')) break;
    }
    this.expectPunct('}', 'to close the field values');
    return fields;
  }

  /** `::From(a)::To(b)` in either order, each at most once. */
  private fromTo(): { from: IdArg | null; to: IdArg | null } {
    let from: IdArg | null = null;
    let to: IdArg | null = null;
    while (this.isPunct('::') && (this.isWord('From', 1) || this.isWord('To', 1))) {
      const which = this.peek(1).text;
      this.i += 2;
      this.expectPunct('(');
      const arg = this.idArg();
      this.expectPunct(')');
      if (which === 'From') {
        if (from !== null) this.fail('::From is given twice');
        from = arg;
      } else {
        if (to !== null) this.fail('::To is given twice');
        to = arg;
      }
    }
    return { from, to };
  }

  private idArg(): IdArg {
    const t = this.peek();
    if (t.kind === 'string') {
      this.i++;
      return { kind: 'literal', value: t.value, pos: t.pos };
    }
    if (t.kind === 'int') {
      this.i++;
      return { kind: 'literal', value: t.text, pos: t.pos };
    }
    return { kind: 'name', name: this.name('an id (a parameter, a variable or a literal)') };
  }

  /** `<T>(vector, k` of SearchV, as a source and as a step (the caller reads what may follow, then the `)`). */
  private searchVArguments(): { type: Name; vector: VectorArg; k: Expr } {
    const type = this.typeArgument('vector type');
    this.expectPunct('(');
    const vector = this.vectorArg();
    this.expectPunct(',', 'between the vector and k (SearchV<T>(vector, k))');
    return { type, vector, k: this.expr() };
  }

  /** `(condition)` after PREFILTER. */
  private prefilterCondition(): Expr {
    this.expectPunct('(');
    const condition = this.expr();
    this.expectPunct(')', 'to close PREFILTER');
    return condition;
  }

  /** A vector: `[1.0, 2.0]`, a parameter or variable, or `Embed(text)`. */
  private vectorArg(): VectorArg {
    const t = this.peek();
    if (this.acceptPunct('[')) {
      const values: number[] = [];
      while (!this.isPunct(']')) {
        const n = this.next();
        if (n.kind !== 'float' && n.kind !== 'int') this.fail(`a vector holds numbers, found ${this.shown(n)}`, n);
        values.push(n.kind === 'float' ? n.value : Number(n.value));
        if (!this.acceptPunct(',')) break;
      }
      this.expectPunct(']', 'to close the vector');
      return { kind: 'literal', values, pos: t.pos };
    }
    if (this.isWord('Embed') && this.isPunct('(', 1)) {
      this.i += 2;
      const text = this.expr();
      this.expectPunct(')', 'to close Embed');
      return { kind: 'embed', text, pos: t.pos };
    }
    return { kind: 'name', name: this.name('a vector: [numbers], a parameter or Embed(text)') };
  }

  private step(): Step {
    const t = this.peek();
    const pos = t.pos;
    if (this.isPunct('{')) return this.projection(null);
    if (this.acceptPunct('|')) {
      const item = this.name('the name of the current item');
      this.expectPunct('|');
      return this.projection(item);
    }
    if (this.acceptPunct('!')) {
      this.expectPunct('{', 'after "!" (an exclusion is !{field, ...})');
      const fields: Name[] = [];
      while (!this.isPunct('}')) {
        fields.push(this.name('a field to exclude'));
        if (!this.acceptPunct(',')) break;
      }
      this.expectPunct('}');
      return { kind: 'exclude', pos, fields };
    }
    if (t.kind !== 'word') this.fail(`expected a step after "::", found ${this.shown(t)}`);
    this.i++;
    switch (t.text) {
      case 'Out':
      case 'In':
      case 'OutE':
      case 'InE':
        return { kind: 'hop', pos, dir: t.text, edge: this.typeArgument('edge type') };
      case 'FromN':
      case 'ToN':
      case 'FromV':
      case 'ToV':
        return { kind: 'endpoint', pos, which: t.text };
      case 'WHERE': {
        this.expectPunct('(');
        const condition = this.expr();
        this.expectPunct(')', 'to close WHERE');
        return { kind: 'where', pos, condition };
      }
      case 'COUNT':
      case 'ID':
      case 'FIRST':
        return { kind: t.text, pos };
      case 'RANGE': {
        this.expectPunct('(');
        const start = this.expr();
        this.expectPunct(',', 'between the start and the end of RANGE (both are required)');
        const end = this.expr();
        this.expectPunct(')', 'to close RANGE');
        return { kind: 'range', pos, start, end };
      }
      case 'ORDER': {
        this.expectPunct('<');
        const dir = this.name('Asc or Desc');
        if (dir.text !== 'Asc' && dir.text !== 'Desc') this.fail(`expected Asc or Desc, found "${dir.text}"`, this.tokens[this.i - 1]);
        this.expectPunct('>');
        this.expectPunct('(');
        const by = this.expr();
        this.expectPunct(')', 'to close ORDER');
        return { kind: 'order', pos, desc: dir.text === 'Desc', by };
      }
      case 'GROUP_BY':
      case 'AGGREGATE_BY': {
        this.expectPunct('(');
        const properties: Name[] = [this.name('a property')];
        while (this.acceptPunct(',')) properties.push(this.name('a property'));
        this.expectPunct(')');
        return { kind: 'group', pos, aggregate: t.text === 'AGGREGATE_BY', properties };
      }
      case 'UPDATE':
      case 'Update': {
        this.expectPunct('(');
        const fields = this.fieldValues();
        this.expectPunct(')');
        return { kind: 'update', pos, fields };
      }
      case 'UpsertN':
      case 'UpsertE': {
        this.expectPunct('(');
        const fields = this.fieldValues();
        this.expectPunct(')');
        const ends = t.text === 'UpsertE' ? this.fromTo() : { from: null, to: null };
        return { kind: 'upsert', pos, which: t.text, vector: null, fields, ...ends };
      }
      case 'UpsertV': {
        this.expectPunct('(');
        const vector = this.vectorArg();
        let fields: FieldValue[] = [];
        if (this.acceptPunct(',')) fields = this.fieldValues();
        this.expectPunct(')', 'to close UpsertV');
        return { kind: 'upsert', pos, which: 'UpsertV', vector, fields, from: null, to: null };
      }
      case 'SearchV': {
        const { type, vector, k } = this.searchVArguments();
        this.expectPunct(')', 'to close SearchV');
        return { kind: 'search', pos, type, vector, k };
      }
      case 'PREFILTER':
        return { kind: 'prefilter', pos, condition: this.prefilterCondition() };
      case 'RerankRRF': {
        let k: Expr | null = null;
        if (this.acceptPunct('(')) {
          this.expectWord('k', 'in RerankRRF(k: ...)');
          this.expectPunct(':');
          k = this.expr();
          this.expectPunct(')', 'to close RerankRRF');
        }
        return { kind: 'rerankRRF', pos, k };
      }
      case 'RerankMMR': {
        this.expectPunct('(');
        this.expectWord('lambda', 'in RerankMMR(lambda: ...)');
        this.expectPunct(':');
        const lambda = this.expr();
        let distance: Expr | null = null;
        if (this.acceptPunct(',')) {
          this.expectWord('distance', 'in RerankMMR(lambda: ..., distance: ...)');
          this.expectPunct(':');
          distance = this.expr();
        }
        this.expectPunct(')', 'to close RerankMMR');
        return { kind: 'rerankMMR', pos, lambda, distance };
      }
      case 'INTERSECT': {
        this.expectPunct('(');
        const traversal = this.expr();
        this.expectPunct(')');
        return { kind: 'intersect', pos, traversal };
      }
    }
    if ((COMPARE_OPS as readonly string[]).includes(t.text)) {
      this.expectPunct('(');
      const value = this.expr();
      this.expectPunct(')', `to close ${t.text}`);
      return { kind: 'compare', pos, op: t.text as CompareOp, value };
    }
    if (PATH_STEPS.includes(t.text)) return this.pathStep(t.text as PathAlgorithm, pos);
    if (t.text === 'MATCH')
      this.fail(
        '"MATCH" is not a step: pattern matching was in a HelixDB development grammar, never in HelixQL v1. ' +
          'Filter with WHERE(...) (one query per case), or return the value and branch in the caller',
        t,
      );
    this.fail(`"${t.text}" is not a step`, t);
  }

  /** `ShortestPath[<E>]`, `...BFS`, `...Dijkstras[<E>](weight)`, `...AStar[<E>](weight, "h")`, then `::To(x)` and/or `::From(x)`. */
  private pathStep(algorithm: PathAlgorithm, pos: SourcePos): Step {
    const edge = this.isPunct('<') ? this.typeArgument('edge type') : null;
    let weight: Expr | null = null;
    let heuristic: string | null = null;
    if (algorithm === 'ShortestPathDijkstras' || algorithm === 'ShortestPathAStar') {
      this.expectPunct('(', `after ${algorithm}: the weight of an edge`);
      weight = this.expr();
      if (algorithm === 'ShortestPathAStar') {
        this.expectPunct(',', 'between the weight and the heuristic property');
        const h = this.next();
        if (h.kind !== 'string') this.fail('the heuristic is a property name in quotes, such as "h"', h);
        heuristic = h.value;
      }
      this.expectPunct(')', `to close ${algorithm}`);
    }
    const { from, to } = this.fromTo();
    return { kind: 'path', pos, algorithm, edge, weight, heuristic, from, to };
  }

  /** `{a, alias: value, nested: {...}, ..}` after `::` (and after `|item|` for a closure). */
  private projection(closure: Name | null): ProjectionStep {
    return this.nested(() => this.projectionHere(closure));
  }

  private projectionHere(closure: Name | null): ProjectionStep {
    const pos = this.expectPunct('{').pos;
    const fields: ProjectionField[] = [];
    let spread = false;
    while (!this.isPunct('}')) {
      if (this.acceptPunct('..')) {
        if (fields.length === 0) this.fail('".." comes after at least one field', this.tokens[this.i - 1]);
        spread = true;
        this.acceptPunct(',');
        break;
      }
      const name = this.name('a field name');
      let value: Expr | ProjectionStep | null = null;
      if (this.acceptPunct(':')) value = this.isPunct('{') ? this.projection(null) : this.expr();
      fields.push({ name, value });
      if (!this.acceptPunct(',')) break;
    }
    this.expectPunct('}', 'to close the projection');
    return { kind: 'project', pos, fields, spread, closure };
  }
}
