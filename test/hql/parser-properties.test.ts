/**
 * Property tests of the `.hx` parser (src/hql/parser.ts) and printer (src/hql/print.ts):
 *  - random syntax trees print to source that parses back to the same tree (positions aside);
 *  - no input makes `parse` throw, and every error and node it reports has a position inside
 *    the text whose line and column agree with its offset: token soups, mutations of printed
 *    programs, deep nesting, random Unicode.
 * Runs are seeded: a failure names its seed, and HQL_PROP_SEED=<seed> replays it
 * (HQL_PROP_CASES=<n> changes the number of cases).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  PRIMITIVE_TYPES,
  type CompareOp,
  type DefaultValue,
  type Expr,
  type FieldDef,
  type FieldValue,
  type HxFile,
  type IdArg,
  type ItemMapping,
  type ItemRef,
  type LiteralValue,
  type MigrationDef,
  type MigrationValue,
  type Name,
  type ParamDef,
  type PathAlgorithm,
  type VectorArg,
  type ProjectionField,
  type ProjectionStep,
  type QueryDef,
  type Source,
  type Statement,
  type Step,
  type TypeDef,
  type TypeExpr,
} from '../../src/hql/ast.js';
import { PUNCTUATION, type SourcePos } from '../../src/hql/lexer.js';
import { MATH_ARITY, parse } from '../../src/hql/parser.js';
import { printFile, printFloat, printLiteral } from '../../src/hql/print.js';
import { countFromEnv, Rng, seedFromEnv } from '../helpers/prng.js';

const SEED = seedFromEnv('HQL_PROP_SEED');
const CASES = countFromEnv('HQL_PROP_CASES', 300);

/**
 * Runs `check` over `cases` generated cases, each from its own generator derived from the
 * seed; a failure says which case of which seed, and shows the input.
 */
function forAll(property: string, cases: number, check: (rng: Rng) => void): void {
  const master = new Rng(SEED ^ hashName(property));
  for (let i = 0; i < cases; i++) {
    const rng = master.fork();
    try {
      check(rng);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new Error(`${property}: case ${i} failed (replay with HQL_PROP_SEED=${SEED}): ${message}`, { cause: err });
    }
  }
}

function hashName(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** `value` without its positions (`pos`, `returnPos`), to compare trees by shape. */
function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== 'pos' && k !== 'returnPos') out[k] = strip(v);
  return out;
}

// ---- the words of the language ----

const COMPARE_OPS: readonly CompareOp[] = ['EQ', 'NEQ', 'GT', 'GTE', 'LT', 'LTE', 'CONTAINS', 'IS_IN'];
const PATHS: readonly PathAlgorithm[] = ['ShortestPath', 'ShortestPathBFS', 'ShortestPathDijkstras', 'ShortestPathAStar'];
const VECTOR_WORDS = [...PATHS, 'RerankRRF', 'RerankMMR', 'SearchV', 'UpsertV', 'PREFILTER', 'SearchHybrid'];
/** Every word the grammar gives a meaning somewhere (reference helixql-v1.md §1), and JavaScript's own. */
const KEYWORDS: readonly string[] = [
  ...['QUERY', 'RETURN', 'FOR', 'IN', 'DROP', 'DEFAULT', 'INDEX', 'UNIQUE', 'Properties', 'From', 'To', 'MIGRATION', 'schema'],
  ...['N', 'E', 'V', '_', 'AddN', 'AddE', 'AddV', 'BatchAddV', 'SearchV', 'SearchBM25', 'Embed', 'AS'],
  ...['Out', 'In', 'OutE', 'InE', 'FromN', 'ToN', 'FromV', 'ToV', 'WHERE', 'INTERSECT', 'EXISTS', 'AND', 'OR', ...COMPARE_OPS],
  ...['COUNT', 'ID', 'RANGE', 'ORDER', 'Asc', 'Desc', 'FIRST', 'GROUP_BY', 'AGGREGATE_BY', 'UPDATE', 'Update', 'UpsertN', 'UpsertE'],
  ...VECTOR_WORDS,
  ...['k', 'lambda', 'distance', 'NOW', 'NONE', 'true', 'false', 'mcp', 'model'],
  ...Object.keys(MATH_ARITY),
  ...PRIMITIVE_TYPES,
  // Names of Object.prototype: a lookup table keyed by the source's words must not see them.
  ...['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'],
];
const KEYWORD_SET = new Set(KEYWORDS);

/** Words that cannot stand where a schema field's name is expected. */
const NOT_FIELD = new Set(['UNIQUE', 'INDEX']);
/** Words that cannot be the name assigned to by a statement. */
const NOT_ASSIGNED = new Set(['DROP', 'FOR', 'RETURN', 'QUERY', 'MIGRATION']);
/** Words that do not read as a variable where a value is expected. */
const NOT_VARIABLE = new Set([
  'N',
  'E',
  'V',
  '_',
  'AddN',
  'AddE',
  'AddV',
  'BatchAddV',
  'SearchV',
  'SearchBM25',
  'SearchHybrid',
  'true',
  'false',
  'NONE',
  'EXISTS',
]);
/** Words that do not read as a field of the old item in a migration mapping. */
const NOT_FIELD_VALUE = new Set(['NOW', 'NONE', 'true', 'false']);
/** A type name that is a primitive's is that primitive. */
const NOT_NAMED_TYPE = new Set<string>(PRIMITIVE_TYPES);
const ANYWHERE = new Set<string>();

// ---- random syntax trees ----

const P: SourcePos = { offset: 0, line: 1, column: 1 };
const STRING_CHARS = [
  ...'aZz09 _-',
  '"',
  '\\',
  '\n',
  '\r',
  '\t',
  '\0',
  '\x01',
  '\x1b',
  '\x7f',
  '\x85',
  'é',
  '日',
  '😀',
  '\u2028',
  '{',
  '}',
  '//',
  '\\u{41}',
  '\uD800',
  '\uDFFF',
];

/** Random trees over ast.ts; `depth` bounds nesting. */
class TreeGen {
  constructor(private readonly rng: Rng) {}

  /** A name for a position where the words in `avoid` mean something else; a keyword at times. */
  name(avoid: ReadonlySet<string> = ANYWHERE): Name {
    if (this.rng.chance(0.2)) {
      const word = this.rng.pick(KEYWORDS);
      if (!avoid.has(word)) return { text: word, pos: P };
    }
    for (;;) {
      const first = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_';
      let text = this.rng.pick([...first]);
      const length = this.rng.int(8);
      for (let i = 0; i < length; i++) text += this.rng.pick([...first, ...'0123456789']);
      if (!KEYWORD_SET.has(text) && !avoid.has(text)) return { text, pos: P };
    }
  }

  string(): string {
    let out = '';
    const length = this.rng.int(8);
    for (let i = 0; i < length; i++) out += this.rng.pick(STRING_CHARS);
    return out;
  }

  bigint(): bigint {
    return this.rng.weighted<() => bigint>([
      [4, () => BigInt(this.rng.int(1000))],
      [2, () => -BigInt(this.rng.int(1000))],
      [1, () => (this.rng.chance(0.5) ? -1n : 1n) * BigInt(`1${'0'.repeat(this.rng.between(10, 45))}`) + BigInt(this.rng.u32())],
      [1, () => 0n],
    ])();
  }

  float(): number {
    return this.rng.weighted<() => number>([
      [3, () => (this.rng.float() - 0.5) * 10 ** this.rng.between(-5, 8)],
      [2, () => this.rng.between(-1000, 1000)],
      [
        2,
        () =>
          this.rng.pick([
            0,
            -0,
            0.1,
            1.5e-7,
            5e-324,
            -5e-324,
            1e21,
            1e-7,
            123456789012345680000,
            Number.MAX_VALUE,
            -Number.MIN_VALUE,
            2 ** 53,
          ]),
      ],
      [
        2,
        () => {
          // Any finite double, from random bits.
          const view = new DataView(new ArrayBuffer(8));
          for (;;) {
            view.setUint32(0, this.rng.u32());
            view.setUint32(4, this.rng.u32());
            const x = view.getFloat64(0);
            if (Number.isFinite(x)) return x;
          }
        },
      ],
    ])();
  }

  literal(allowNull = true): LiteralValue {
    return this.rng.weighted<() => LiteralValue>([
      [3, () => this.string()],
      [3, () => this.bigint()],
      [3, () => this.float()],
      [1, () => this.rng.chance(0.5)],
      [allowNull ? 1 : 0, () => null],
    ])();
  }

  some<T>(max: number, make: () => T, min = 0): T[] {
    const out: T[] = [];
    const n = this.rng.between(min, max);
    for (let i = 0; i < n; i++) out.push(make());
    return out;
  }

  // ---- schema ----

  type(depth: number): TypeExpr {
    return this.rng.weighted<() => TypeExpr>([
      [4, () => ({ kind: 'primitive', name: this.rng.pick(PRIMITIVE_TYPES), pos: P })],
      [depth > 0 ? 1 : 0, () => ({ kind: 'array', of: this.type(depth - 1), pos: P })],
      [depth > 0 ? 1 : 0, () => ({ kind: 'object', fields: this.some(3, () => this.fieldDef(depth - 1)), pos: P })],
      [1, () => ({ kind: 'named', name: this.name(NOT_NAMED_TYPE).text, pos: P })],
    ])();
  }

  fieldDef(depth: number): FieldDef {
    const def: DefaultValue | null = this.rng.weighted<() => DefaultValue | null>([
      [3, () => null],
      [1, () => ({ kind: 'now', pos: P })],
      [2, () => ({ kind: 'literal', value: this.literal(false), pos: P })],
    ])();
    return {
      name: this.name(NOT_FIELD),
      type: this.type(depth),
      index: this.rng.pick(['none', 'none', 'index', 'unique'] as const),
      default: def,
    };
  }

  typeDef(): TypeDef {
    const version = this.version();
    if (this.rng.chance(0.35)) {
      return {
        kind: 'edge',
        name: this.name(),
        unique: this.rng.chance(0.3),
        from: this.name(),
        to: this.name(),
        properties: this.some(3, () => this.fieldDef(2)),
        version,
      };
    }
    return { kind: this.rng.chance(0.7) ? 'node' : 'vector', name: this.name(), fields: this.some(4, () => this.fieldDef(2)), version };
  }

  version(): number {
    return this.rng.weighted<() => number>([
      [4, () => 1],
      [2, () => this.rng.between(2, 4)],
      [1, () => this.rng.between(5, 2 ** 40)],
    ])();
  }

  // ---- migrations ----

  migration(): MigrationDef {
    return {
      kind: 'migration',
      pos: P,
      from: { value: this.version(), pos: P },
      to: { value: this.version(), pos: P },
      mappings: this.some(3, () => this.itemMapping()),
    };
  }

  itemRef(): ItemRef {
    return { kind: this.rng.pick(['node', 'edge', 'vector'] as const), name: this.name(), pos: P };
  }

  itemMapping(): ItemMapping {
    return {
      from: this.itemRef(),
      to: this.rng.chance(0.6) ? { kind: 'same', pos: P } : this.itemRef(),
      properties: this.rng.chance(0.3),
      fields: this.some(4, () => ({ name: this.name(), value: this.migrationValue() })),
      rest: this.rng.chance(0.3) ? { pos: P } : null,
    };
  }

  migrationValue(): MigrationValue {
    return this.rng.weighted<() => MigrationValue>([
      [1, () => ({ kind: 'now', pos: P })],
      [2, () => ({ kind: 'literal', value: this.literal(), pos: P })],
      [
        3,
        () => ({
          kind: 'field',
          name: this.name(NOT_FIELD_VALUE),
          cast: this.rng.chance(0.4) ? { type: this.rng.pick(PRIMITIVE_TYPES), pos: P } : null,
        }),
      ],
    ])();
  }

  // ---- queries ----

  query(): QueryDef {
    const params: ParamDef[] = this.some(3, () => ({ name: this.name(), optional: this.rng.chance(0.3), type: this.type(2) }));
    return {
      kind: 'query',
      pos: P,
      name: this.name(),
      ...(this.rng.chance(0.2) ? { mcp: true, model: null } : { mcp: false, model: this.rng.chance(0.1) ? this.string() : null }),
      params,
      body: this.some(4, () => this.statement(2)),
      returnPos: P,
      returns: this.some(3, () => this.expr(2), 1),
    };
  }

  statement(depth: number): Statement {
    return this.rng.weighted<() => Statement>([
      [4, () => ({ kind: 'assign', pos: P, name: this.name(NOT_ASSIGNED), value: this.expr(depth) })],
      [1, () => ({ kind: 'drop', pos: P, value: this.expr(depth) })],
      [1, () => ({ kind: 'expr', pos: P, value: this.traversal(depth, this.creation(depth)) })],
      [
        depth > 0 ? 1 : 0,
        () => {
          const destructure = this.rng.chance(0.4);
          const vars = destructure ? this.some(3, () => this.name(), 1) : [this.name()];
          return { kind: 'for', pos: P, vars, destructure, source: this.name(), body: this.some(3, () => this.statement(depth - 1)) };
        },
      ],
    ])();
  }

  expr(depth: number): Expr {
    if (depth <= 0) {
      return this.rng.weighted<() => Expr>([
        [2, () => ({ kind: 'literal', pos: P, value: this.literal() })],
        [2, () => this.traversal(0, { kind: 'var', pos: P, name: this.name(NOT_VARIABLE) })],
        [1, () => this.traversal(0, { kind: 'anon', pos: P })],
      ])();
    }
    const d = depth - 1;
    return this.rng.weighted<() => Expr>([
      [3, () => ({ kind: 'literal', pos: P, value: this.literal() })],
      [1, () => ({ kind: 'array', pos: P, items: this.some(3, () => this.expr(d)) })],
      [1, () => ({ kind: 'object', pos: P, fields: this.fieldValues(d) })],
      [1, () => ({ kind: 'exists', pos: P, negated: this.rng.chance(0.5), traversal: this.expr(d) })],
      [
        1,
        () => ({
          kind: 'logic',
          pos: P,
          op: this.rng.pick(['AND', 'OR'] as const),
          negated: this.rng.chance(0.3),
          items: this.some(3, () => this.expr(d), 1),
        }),
      ],
      [
        1,
        () => {
          const fn = this.rng.pick(Object.keys(MATH_ARITY));
          return { kind: 'math', pos: P, fn, args: this.some(MATH_ARITY[fn]!, () => this.expr(d), MATH_ARITY[fn]!) };
        },
      ],
      [5, () => this.traversal(d, this.source(d))],
    ])();
  }

  /** An expression that is not an object literal: a projection field's value that starts with `{` is a nested projection. */
  exprNotObject(depth: number): Expr {
    const e = this.expr(depth);
    return e.kind === 'object' ? { kind: 'literal', pos: P, value: this.literal() } : e;
  }

  fieldValues(depth: number): FieldValue[] {
    return this.some(3, () => ({ name: this.name(), value: this.expr(depth) }));
  }

  traversal(depth: number, source: Source): Expr {
    return { kind: 'traversal', pos: P, source, steps: this.some(depth > 0 ? 3 : 1, () => this.step(Math.max(depth - 1, 0))) };
  }

  idArg(): IdArg {
    return this.rng.chance(0.5) ? { kind: 'name', name: this.name() } : { kind: 'literal', value: this.string(), pos: P };
  }

  vector(depth: number): VectorArg {
    return this.rng.weighted<() => VectorArg>([
      [1, () => ({ kind: 'literal', values: this.some(3, () => this.float(), 1), pos: P })],
      [2, () => ({ kind: 'name', name: this.name(NOT_VARIABLE) })],
      [1, () => ({ kind: 'embed', text: this.exprNotObject(depth), pos: P })],
    ])();
  }

  vectorSource(depth: number): Source {
    const type = this.name();
    return this.rng.weighted<() => Source>([
      [2, () => ({ kind: 'AddV', pos: P, type, vector: this.vector(depth), fields: this.fieldValues(depth) })],
      [1, () => ({ kind: 'BatchAddV', pos: P, type, items: this.name(NOT_VARIABLE) })],
      [
        2,
        () => ({
          kind: 'SearchV',
          pos: P,
          type,
          vector: this.vector(depth),
          k: this.exprNotObject(depth),
          prefilter: this.rng.chance(0.3) ? this.exprNotObject(depth) : null,
        }),
      ],
      [1, () => ({ kind: 'SearchBM25', pos: P, type, text: this.exprNotObject(depth), k: this.exprNotObject(depth) })],
      [
        1,
        () => ({
          kind: 'SearchHybrid',
          pos: P,
          type,
          vector: this.vector(depth),
          text: this.exprNotObject(depth),
          k: this.exprNotObject(depth),
        }),
      ],
    ])();
  }

  pathStep(depth: number): Step {
    const algorithm = this.rng.pick(PATHS);
    const weighted = algorithm === 'ShortestPathDijkstras' || algorithm === 'ShortestPathAStar';
    return {
      kind: 'path',
      pos: P,
      algorithm,
      edge: this.rng.chance(0.7) ? this.name() : null,
      weight: weighted ? this.exprNotObject(depth) : null,
      heuristic: algorithm === 'ShortestPathAStar' ? this.string() : null,
      from: this.rng.chance(0.6) ? this.idArg() : null,
      to: this.rng.chance(0.6) ? this.idArg() : null,
    };
  }

  creation(depth: number): Source {
    if (this.rng.chance(0.5)) return { kind: 'AddN', pos: P, type: this.name(), fields: this.fieldValues(depth) };
    return {
      kind: 'AddE',
      pos: P,
      type: this.name(),
      fields: this.fieldValues(depth),
      from: this.rng.chance(0.7) ? this.idArg() : null,
      to: this.rng.chance(0.7) ? this.idArg() : null,
    };
  }

  source(depth: number): Source {
    return this.rng.weighted<() => Source>([
      [
        3,
        () => {
          const kind = this.rng.pick(['N', 'E', 'V'] as const);
          const type = this.rng.chance(0.8) ? this.name() : null;
          // `E(...)` is the math constant E: an untyped E source takes no argument.
          const arg = kind === 'E' && type === null ? 'none' : this.rng.pick(['none', 'id', 'lookup'] as const);
          return {
            kind,
            pos: P,
            type,
            id: arg === 'id' ? this.idArg() : null,
            lookup: arg === 'lookup' ? { field: this.name(), value: this.expr(depth) } : null,
          };
        },
      ],
      [3, () => ({ kind: 'var', pos: P, name: this.name(NOT_VARIABLE) })],
      [1, () => ({ kind: 'anon', pos: P })],
      [2, () => this.creation(depth)],
      [1, () => this.vectorSource(depth)],
    ])();
  }

  projection(depth: number, closure: boolean): ProjectionStep {
    const fields: ProjectionField[] = this.some(4, () => ({
      name: this.name(),
      value: this.rng.weighted<() => Expr | ProjectionStep | null>([
        [2, () => null],
        [2, () => this.exprNotObject(depth)],
        // Nested projections are rare otherwise (a depth left, then this branch): weight 2
        // keeps "value:project" among the kinds 300 cases reach.
        [depth > 0 ? 2 : 0, () => this.projection(depth - 1, false)],
      ])(),
    }));
    return {
      kind: 'project',
      pos: P,
      fields,
      spread: fields.length > 0 && this.rng.chance(0.3),
      closure: closure && this.rng.chance(0.3) ? this.name() : null,
    };
  }

  step(depth: number): Step {
    return this.rng.weighted<() => Step>([
      [2, () => ({ kind: 'hop', pos: P, dir: this.rng.pick(['Out', 'In', 'OutE', 'InE'] as const), edge: this.name() })],
      [1, () => ({ kind: 'endpoint', pos: P, which: this.rng.pick(['FromN', 'ToN', 'FromV', 'ToV'] as const) })],
      [1, () => ({ kind: 'where', pos: P, condition: this.expr(depth) })],
      [1, () => ({ kind: this.rng.pick(['COUNT', 'ID', 'FIRST'] as const), pos: P })],
      [1, () => ({ kind: 'range', pos: P, start: this.expr(depth), end: this.expr(depth) })],
      [1, () => ({ kind: 'order', pos: P, desc: this.rng.chance(0.5), by: this.expr(depth) })],
      [1, () => ({ kind: 'group', pos: P, aggregate: this.rng.chance(0.5), properties: this.some(3, () => this.name(), 1) })],
      [2, () => this.projection(depth, true)],
      [1, () => ({ kind: 'exclude', pos: P, fields: this.some(3, () => this.name()) })],
      [1, () => ({ kind: 'compare', pos: P, op: this.rng.pick(COMPARE_OPS), value: this.expr(depth) })],
      [1, () => ({ kind: 'update', pos: P, fields: this.fieldValues(depth) })],
      [
        1,
        () =>
          this.rng.chance(0.5)
            ? { kind: 'upsert', pos: P, which: 'UpsertN', vector: null, fields: this.fieldValues(depth), from: null, to: null }
            : {
                kind: 'upsert',
                pos: P,
                which: 'UpsertE',
                vector: null,
                fields: this.fieldValues(depth),
                from: this.rng.chance(0.7) ? this.idArg() : null,
                to: this.rng.chance(0.7) ? this.idArg() : null,
              },
      ],
      [1, () => ({ kind: 'intersect', pos: P, traversal: this.expr(depth) })],
      [
        1,
        () => ({
          kind: 'upsert',
          pos: P,
          which: 'UpsertV',
          vector: this.vector(depth),
          fields: this.fieldValues(depth),
          from: null,
          to: null,
        }),
      ],
      [1, () => ({ kind: 'search', pos: P, type: this.name(), vector: this.vector(depth), k: this.exprNotObject(depth) })],
      [1, () => ({ kind: 'prefilter', pos: P, condition: this.exprNotObject(depth) })],
      [1, () => ({ kind: 'rerankRRF', pos: P, k: this.rng.chance(0.5) ? this.exprNotObject(depth) : null })],
      [
        1,
        () => ({
          kind: 'rerankMMR',
          pos: P,
          lambda: this.exprNotObject(depth),
          distance: this.rng.chance(0.5) ? this.exprNotObject(depth) : null,
        }),
      ],
      [1, () => this.pathStep(depth)],
    ])();
  }

  file(): HxFile {
    return {
      types: this.some(3, () => this.typeDef()),
      migrations: this.some(2, () => this.migration()),
      queries: this.some(3, () => this.query()),
    };
  }
}

/** The `kind`s of every node in `value`, each as `parent key:kind` (`steps:hop`, `source:var`, ...). */
function kinds(value: unknown, key: string, into: Set<string>): void {
  if (Array.isArray(value)) value.forEach((v) => kinds(v, key, into));
  else if (value !== null && typeof value === 'object') {
    const kind = (value as { kind?: unknown }).kind;
    if (typeof kind === 'string') into.add(`${key}:${kind}`);
    for (const [k, v] of Object.entries(value)) if (k !== 'pos') kinds(v, k, into);
  }
}

test('random syntax trees print to source that parses back to the same tree', () => {
  const seen = new Set<string>();
  forAll('round trip', CASES, (rng) => {
    const file = new TreeGen(rng).file();
    kinds(file, 'file', seen);
    const source = printFile(file);
    const { file: back, errors } = parse(source);
    assert.deepEqual(errors, [], `the printed source parses without errors:\n${source}`);
    assert.deepStrictEqual(strip(back), strip(file), `the tree read back is the one printed:\n${source}`);
    assert.equal(printFile(back), source, 'printing is stable');
  });
  // The generator reaches every kind of node (a check on the generator, not the parser).
  const expected = [
    ...['hop', 'endpoint', 'where', 'COUNT', 'ID', 'FIRST', 'range', 'order', 'group', 'project', 'exclude'],
    ...['compare', 'update', 'upsert', 'intersect', 'search', 'prefilter', 'rerankRRF', 'rerankMMR', 'path'],
  ].map((k) => `steps:${k}`);
  expected.push(
    ...['N', 'E', 'V', 'var', 'anon', 'AddN', 'AddE', 'AddV', 'BatchAddV', 'SearchV', 'SearchBM25', 'SearchHybrid'].map(
      (k) => `source:${k}`,
    ),
  );
  expected.push(...['assign', 'drop', 'for', 'expr'].map((k) => `body:${k}`));
  expected.push(...['traversal', 'literal', 'array', 'exists', 'logic', 'math', 'object'].map((k) => `items:${k}`));
  expected.push(...['node', 'vector', 'edge'].map((k) => `types:${k}`), 'type:object', 'type:named', 'of:array', 'default:now');
  expected.push('value:project', 'id:literal', 'id:name', 'from:name', 'to:literal');
  expected.push('migrations:migration', 'to:same', 'to:edge', 'value:now', 'value:literal', 'value:field');
  if (CASES >= 300)
    assert.deepEqual(
      expected.filter((k) => !seen.has(k)),
      [],
      'kinds the generator never made',
    );
});

test('literals print so that they read back as the same value and kind', () => {
  forAll('literals', CASES * 10, (rng) => {
    const gen = new TreeGen(rng);
    const value = gen.literal();
    const source = `QUERY Q() =>\n    RETURN ${printLiteral(value)}\n`;
    const { file, errors } = parse(source);
    assert.deepEqual(errors, [], source);
    const back = file.queries[0]!.returns[0]!;
    assert.equal(back.kind, 'literal', source);
    // Object.is: the same string, bigint, boolean or null, and -0 stays -0.
    assert.ok(Object.is((back as Extract<Expr, { kind: 'literal' }>).value, value), source);
  });
  assert.equal(printFloat(1), '1.0');
  assert.equal(printFloat(-0), '-0.0');
  assert.equal(printFloat(1.5e-7), '1.5e-7');
  assert.equal(printFloat(1e21), '1.0e+21');
  assert.throws(() => printFloat(Number.NaN), RangeError);
});

// ---- parse never throws ----

/** Line and column of `offset` in `text`, counted the way the lexer counts (a code point is a column). */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  let column = 1;
  for (const _ of before.slice(lineStart)) column++;
  return { line: before.split('\n').length, column };
}

/** Parses `text`: it must return, and every error and every node must have a position inside the text that agrees with itself. */
function parsesSafely(text: string): void {
  let result: ReturnType<typeof parse>;
  try {
    result = parse(text);
  } catch (err) {
    assert.fail(
      `parse threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)} on ${JSON.stringify(text.slice(0, 300))}`,
    );
  }
  const checkPos = (pos: SourcePos, what: string) => {
    assert.ok(
      Number.isInteger(pos.offset) && pos.offset >= 0 && pos.offset <= text.length,
      `${what} offset ${pos.offset} is inside the text`,
    );
    assert.deepEqual(
      { line: pos.line, column: pos.column },
      lineColumn(text, pos.offset),
      `${what} at offset ${pos.offset}: line and column`,
    );
  };
  for (const e of result.errors) {
    assert.ok(typeof e.message === 'string' && e.message.length > 0, 'an error has a message');
    checkPos(e.pos, `the error "${e.message}"`);
  }
  const walk = (value: unknown, key: string): void => {
    if (Array.isArray(value)) value.forEach((v) => walk(v, key));
    else if (typeof value === 'function') assert.fail(`the tree holds a function at "${key}"`);
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (k === 'pos' || k === 'returnPos') checkPos(v as SourcePos, `a node's ${k}`);
        else walk(v, k);
      }
    }
  };
  walk(result.file, 'file');
}

const SOUP_PIECES: readonly string[] = [
  ...KEYWORDS,
  ...PUNCTUATION,
  ...[
    'x',
    'User',
    'a_1',
    'Follows',
    '0',
    '42',
    '-7',
    '1.5',
    '-2.5e-3',
    '1e5',
    '12abc',
    '1.',
    '.5',
    '-',
    '/',
    '\\',
    '@',
    '$',
    '=',
    '"s"',
    '"\\n"',
  ],
  ...['"unclosed', '"\\q"', '"\\u{110000}"', '"\\u{}"', '// comment\n', '\n', '\t', '😀', '\u0000', '\uD800'],
];

test("token soups: random sequences of the language's words, punctuation and literals never make parse throw", () => {
  forAll('token soup', CASES * 2, (rng) => {
    const pieces: string[] = [];
    const n = rng.int(80);
    for (let i = 0; i < n; i++) pieces.push(rng.pick(SOUP_PIECES), rng.pick(['', ' ', ' ', '\n', '\t']));
    if (rng.chance(0.5))
      pieces.unshift(
        rng.pick(['QUERY Q() =>\n    ', 'N::A {', 'E::K {', 'QUERY Q(a: ', '#[', 'schema::1 {', 'MIGRATION schema::1 => schema::2 {']),
      );
    parsesSafely(pieces.join(''));
  });
});

test('mutations of printed programs (characters deleted, inserted, swapped, repeated) never make parse throw', () => {
  const inserted = [...'(){}[]<>:,.!|#?_"\\/-+=aZ09 \n', '::', '..', '=>', '<-', '😀', '\uD83D'];
  forAll('mutation', CASES * 2, (rng) => {
    let text = printFile(new TreeGen(rng).file());
    const mutations = rng.between(1, 6);
    for (let m = 0; m < mutations; m++) {
      const at = rng.int(text.length + 1);
      text = rng.weighted<() => string>([
        [3, () => text.slice(0, at) + text.slice(at + rng.between(1, 6))],
        [3, () => text.slice(0, at) + rng.pick(inserted) + text.slice(at)],
        [2, () => (at + 1 < text.length ? text.slice(0, at) + text[at + 1] + text[at] + text.slice(at + 2) : text)],
        [1, () => text.slice(0, at) + text.slice(at, at + rng.between(1, 40)).repeat(rng.between(2, 4)) + text.slice(at)],
      ])();
    }
    parsesSafely(text);
  });
});

test('deep nesting never makes parse throw (it is an error, not a stack overflow)', () => {
  const openers = ['[', '{a: ', 'AND(', '!EXISTS(', 'ADD(1, ', 'x::WHERE(', 'x::{a: ', 'x::RANGE(', 'N<T>({f: ', 'AddN<T>({a: '];
  const typeOpeners = ['[', '{a: '];
  forAll('deep nesting', 40, (rng) => {
    const depth = rng.pick([10, 100, 1000, rng.between(1, 20000), 20000]);
    const text = rng.weighted<() => string>([
      [4, () => `QUERY Q() =>\n    RETURN ${rng.pick(openers).repeat(depth)}1`],
      [1, () => `QUERY Q() =>\n    RETURN ${Array.from({ length: depth }, () => rng.pick(openers)).join('')}1`],
      [1, () => `QUERY Q(p: ${rng.pick(typeOpeners).repeat(depth)}I8) => RETURN p`],
      [1, () => `N::A { f: ${rng.pick(typeOpeners).repeat(depth)}I8 }`],
      [1, () => `QUERY Q() =>\n${'FOR x IN y {\n'.repeat(depth)}`],
    ])();
    parsesSafely(text);
  });
});

test('random Unicode text never makes parse throw', () => {
  forAll('unicode', CASES * 2, (rng) => {
    let text = '';
    const n = rng.int(200);
    for (let i = 0; i < n; i++) {
      text += rng.weighted<() => string>([
        [4, () => String.fromCharCode(rng.between(0x20, 0x7e))],
        [1, () => String.fromCharCode(rng.int(0x20))],
        [2, () => String.fromCharCode(rng.between(0x80, 0xffff))],
        [1, () => String.fromCodePoint(rng.between(0x10000, 0x10ffff))],
        [1, () => String.fromCharCode(rng.between(0xd800, 0xdfff))],
      ])();
    }
    parsesSafely(text);
  });
});
