/**
 * The printer of `.hx` syntax trees (ast.ts): the inverse of the parser. `printFile(parse(text).file)`
 * is canonical source that the parser reads back to the same tree, positions aside
 * (test/hql/parser-properties.test.ts checks that over random trees).
 *
 * The format: schema items first, then migrations, then queries, a blank line between
 * items; one field per line in schema bodies and migration mappings (with a trailing
 * comma), 4 spaces per level of indentation, one statement per line, expressions on one
 * line with `::` chains written without spaces. Items of version 1 print unversioned;
 * each run of items of another version prints in one `schema::N { ... }` block.
 *
 * What the tree does not keep, the printer cannot give back: comments, `Update` (prints as
 * `UPDATE`), how an id literal was written (`N<T>(12)` and `N<T>("12")` are the same node;
 * it prints as a string), and how a vector literal's numbers were written (they print as
 * floats).
 * Trees the parser cannot produce may print as text that does not read back: an object
 * literal directly as a projection field's value (`{a: {b: 1}}` reads as a nested
 * projection), a closure as a nested projection, `E(x)` without a type (`E(...)` is the math
 * constant), empty AND/OR/GROUP_BY lists, a math call of the wrong arity. Values that no
 * source text can spell (NaN, infinities) throw a RangeError.
 */
import { isScalar, scalarText, type ScalarStyle } from '../core/scalar-text.js';
import type {
  DefaultValue,
  EdgeTypeDef,
  Expr,
  FieldDef,
  FieldMapping,
  FieldValue,
  HxFile,
  IdArg,
  ItemMapping,
  ItemRef,
  LiteralValue,
  MigrationDef,
  NodeTypeDef,
  ProjectionField,
  ProjectionStep,
  QueryDef,
  Source,
  VectorArg,
  Statement,
  Step,
  TypeDef,
  TypeExpr,
} from './ast.js';

const INDENT = '    ';

/** The whole file: schema items, then migrations, then queries, separated by blank lines, ending with a newline. */
export function printFile(file: HxFile): string {
  const items = [...printTypes(file.types), ...file.migrations.map(printMigration), ...file.queries.map(printQuery)];
  return items.length === 0 ? '' : `${items.join('\n\n')}\n`;
}

// ---- schema ----

/** Items of version 1 as they are; each run of items of one other version in a `schema::N` block. */
function printTypes(types: readonly TypeDef[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < types.length;) {
    const version = types[i]!.version;
    if (version === 1) {
      out.push(printTypeDef(types[i++]!));
      continue;
    }
    const run: string[] = [];
    while (i < types.length && types[i]!.version === version) run.push(indented(printTypeDef(types[i++]!)));
    out.push(`schema::${version} {\n${run.join('\n\n')}\n}`);
  }
  return out;
}

function indented(text: string): string {
  return text
    .split('\n')
    .map((line) => INDENT + line)
    .join('\n');
}

function printTypeDef(def: TypeDef): string {
  return def.kind === 'edge' ? printEdgeDef(def) : printNodeDef(def);
}

function printNodeDef(def: NodeTypeDef): string {
  return `${def.kind === 'node' ? 'N' : 'V'}::${def.name.text} ${fieldBlock(def.fields, '')}`;
}

function printEdgeDef(def: EdgeTypeDef): string {
  const lines = [`${INDENT}From: ${def.from.text},`, `${INDENT}To: ${def.to.text},`];
  // No comma after the Properties block, as HelixQL v1 requires (Trellis accepts either).
  if (def.properties.length > 0) lines.push(`${INDENT}Properties: ${fieldBlock(def.properties, INDENT)}`);
  return `E::${def.name.text}${def.unique ? ' UNIQUE' : ''} {\n${lines.join('\n')}\n}`;
}

/** `{ field, ... }` of a schema item: one field per line, each with a comma; `{}` when empty. */
function fieldBlock(fields: readonly FieldDef[], indent: string): string {
  if (fields.length === 0) return '{}';
  const lines = fields.map((f) => `${indent}${INDENT}${printFieldDef(f)},`);
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function printFieldDef(field: FieldDef): string {
  const index = field.index === 'unique' ? 'UNIQUE INDEX ' : field.index === 'index' ? 'INDEX ' : '';
  const def = field.default === null ? '' : ` DEFAULT ${printDefault(field.default)}`;
  return `${index}${field.name.text}: ${printTypeExpr(field.type)}${def}`;
}

/** A field's default as written: `NOW` or the literal. */
export function printDefault(def: DefaultValue): string {
  return def.kind === 'now' ? 'NOW' : printLiteral(def.value);
}

/** A type; object types print on one line (`{a: String, b: [I32]}`). */
function printTypeExpr(type: TypeExpr): string {
  switch (type.kind) {
    case 'primitive':
      return type.name;
    case 'named':
      return type.name;
    case 'array':
      return `[${printTypeExpr(type.of)}]`;
    case 'object':
      return `{${type.fields.map(printFieldDef).join(', ')}}`;
  }
}

// ---- migrations ----

function printMigration(m: MigrationDef): string {
  const head = `MIGRATION schema::${m.from.value} => schema::${m.to.value} {`;
  if (m.mappings.length === 0) return `${head}}`;
  return `${head}\n${m.mappings.map((x) => indented(printMapping(x))).join('\n')}\n}`;
}

function printMapping(m: ItemMapping): string {
  const to = m.to.kind === 'same' ? '_::' : `${printItemRef(m.to)} `;
  const head = `${printItemRef(m.from)} => ${to}`;
  const fields = [...m.fields.map(printFieldMapping), ...(m.rest === null ? [] : ['..'])];
  if (!m.properties) return fields.length === 0 ? `${head}{}` : `${head}{\n${fields.map((f) => `${INDENT}${f},`).join('\n')}\n}`;
  const inner = fields.length === 0 ? '{}' : `{\n${fields.map((f) => `${INDENT}${INDENT}${f},`).join('\n')}\n${INDENT}}`;
  return `${head}{\n${INDENT}Properties: ${inner}\n}`;
}

function printItemRef(ref: ItemRef): string {
  return `${ref.kind === 'node' ? 'N' : ref.kind === 'edge' ? 'E' : 'V'}::${ref.name.text}`;
}

function printFieldMapping(f: FieldMapping): string {
  const v = f.value;
  const value =
    v.kind === 'now'
      ? 'NOW'
      : v.kind === 'literal'
        ? printLiteral(v.value)
        : `${v.name.text}${v.cast === null ? '' : ` AS ${v.cast.type}`}`;
  return `${f.name.text}: ${value}`;
}

// ---- queries ----

function printQuery(query: QueryDef): string {
  const params = query.params.map((p) => `${p.name.text}${p.optional ? '?' : ''}: ${printTypeExpr(p.type)}`).join(', ');
  const macro = query.mcp ? '#[mcp]\n' : query.model !== null ? `#[model(${printString(query.model)})]\n` : '';
  const lines = [`${macro}QUERY ${query.name.text}(${params}) =>`];
  for (const s of query.body) lines.push(printStatement(s, INDENT));
  lines.push(`${INDENT}RETURN ${query.returns.map(printExpr).join(', ')}`);
  return lines.join('\n');
}

/** One statement at `indent`; a FOR loop spans several lines. */
function printStatement(statement: Statement, indent = ''): string {
  switch (statement.kind) {
    case 'assign':
      return `${indent}${statement.name.text} <- ${printExpr(statement.value)}`;
    case 'drop':
      return `${indent}DROP ${printExpr(statement.value)}`;
    case 'expr':
      return `${indent}${printExpr(statement.value)}`;
    case 'for': {
      const names = statement.vars.map((v) => v.text).join(', ');
      const vars = statement.destructure ? `{${names}}` : names;
      const head = `${indent}FOR ${vars} IN ${statement.source.text} {`;
      if (statement.body.length === 0) return `${head}}`;
      const body = statement.body.map((s) => printStatement(s, indent + INDENT));
      return `${head}\n${body.join('\n')}\n${indent}}`;
    }
  }
}

// ---- expressions ----

function printExpr(expr: Expr): string {
  switch (expr.kind) {
    case 'literal':
      return printLiteral(expr.value);
    case 'array':
      return `[${expr.items.map(printExpr).join(', ')}]`;
    case 'object':
      return `{${fieldValues(expr.fields)}}`;
    case 'exists':
      return `${expr.negated ? '!' : ''}EXISTS(${printExpr(expr.traversal)})`;
    case 'logic':
      return `${expr.negated ? '!' : ''}${expr.op}(${expr.items.map(printExpr).join(', ')})`;
    case 'math':
      return `${expr.fn}(${expr.args.map(printExpr).join(', ')})`;
    case 'traversal':
      return printSource(expr.source) + expr.steps.map((s) => `::${printStep(s)}`).join('');
  }
}

function fieldValues(fields: readonly FieldValue[]): string {
  return fields.map((f) => `${f.name.text}: ${printExpr(f.value)}`).join(', ');
}

function printIdArg(arg: IdArg): string {
  return arg.kind === 'name' ? arg.name.text : printString(arg.value);
}

/** `::From(a)::To(b)`, each only when given. */
function fromTo(from: IdArg | null, to: IdArg | null): string {
  return (from === null ? '' : `::From(${printIdArg(from)})`) + (to === null ? '' : `::To(${printIdArg(to)})`);
}

function printSource(source: Source): string {
  switch (source.kind) {
    case 'N':
    case 'E':
    case 'V': {
      const type = source.type === null ? '' : `<${source.type.text}>`;
      const arg =
        source.id !== null
          ? `(${printIdArg(source.id)})`
          : source.lookup !== null
            ? `({${source.lookup.field.text}: ${printExpr(source.lookup.value)}})`
            : '';
      return `${source.kind}${type}${arg}`;
    }
    case 'var':
      return source.name.text;
    case 'anon':
      return '_';
    case 'AddN':
      return `AddN<${source.type.text}>${source.fields.length === 0 ? '' : `({${fieldValues(source.fields)}})`}`;
    case 'AddE':
      return `AddE<${source.type.text}>${source.fields.length === 0 ? '' : `({${fieldValues(source.fields)}})`}${fromTo(source.from, source.to)}`;
    case 'AddV':
      return `AddV<${source.type.text}>(${printVector(source.vector)}${source.fields.length === 0 ? '' : `, {${fieldValues(source.fields)}}`})`;
    case 'BatchAddV':
      return `BatchAddV<${source.type.text}>(${source.items.text})`;
    case 'SearchV': {
      const prefilter = source.prefilter === null ? '' : `, PREFILTER(${printExpr(source.prefilter)})`;
      return `SearchV<${source.type.text}>(${printVector(source.vector)}, ${printExpr(source.k)}${prefilter})`;
    }
    case 'SearchBM25':
      return `SearchBM25<${source.type.text}>(${printExpr(source.text)}, ${printExpr(source.k)})`;
    case 'SearchHybrid':
      return `SearchHybrid<${source.type.text}>(${printVector(source.vector)}, ${printExpr(source.text)}, ${printExpr(source.k)})`;
  }
}

function printVector(vector: VectorArg): string {
  switch (vector.kind) {
    case 'literal':
      return `[${vector.values.map(printFloat).join(', ')}]`;
    case 'name':
      return vector.name.text;
    case 'embed':
      return `Embed(${printExpr(vector.text)})`;
  }
}

/** One step, without the `::` before it. */
function printStep(step: Step): string {
  switch (step.kind) {
    case 'hop':
      return `${step.dir}<${step.edge.text}>`;
    case 'endpoint':
      return step.which;
    case 'where':
      return `WHERE(${printExpr(step.condition)})`;
    case 'COUNT':
    case 'ID':
    case 'FIRST':
      return step.kind;
    case 'range':
      return `RANGE(${printExpr(step.start)}, ${printExpr(step.end)})`;
    case 'order':
      return `ORDER<${step.desc ? 'Desc' : 'Asc'}>(${printExpr(step.by)})`;
    case 'group':
      return `${step.aggregate ? 'AGGREGATE_BY' : 'GROUP_BY'}(${step.properties.map((p) => p.text).join(', ')})`;
    case 'project':
      return printProjection(step);
    case 'exclude':
      return `!{${step.fields.map((f) => f.text).join(', ')}}`;
    case 'compare':
      return `${step.op}(${printExpr(step.value)})`;
    case 'update':
      return `UPDATE({${fieldValues(step.fields)}})`;
    case 'upsert':
      if (step.which === 'UpsertV')
        return `UpsertV(${printVector(step.vector!)}${step.fields.length === 0 ? '' : `, {${fieldValues(step.fields)}}`})`;
      return `${step.which}({${fieldValues(step.fields)}})${fromTo(step.from, step.to)}`;
    case 'intersect':
      return `INTERSECT(${printExpr(step.traversal)})`;
    case 'search':
      return `SearchV<${step.type.text}>(${printVector(step.vector)}, ${printExpr(step.k)})`;
    case 'prefilter':
      return `PREFILTER(${printExpr(step.condition)})`;
    case 'rerankRRF':
      return step.k === null ? 'RerankRRF' : `RerankRRF(k: ${printExpr(step.k)})`;
    case 'rerankMMR':
      return `RerankMMR(lambda: ${printExpr(step.lambda)}${step.distance === null ? '' : `, distance: ${printExpr(step.distance)}`})`;
    case 'path': {
      const edge = step.edge === null ? '' : `<${step.edge.text}>`;
      const args =
        step.weight === null ? '' : `(${printExpr(step.weight)}${step.heuristic === null ? '' : `, ${printString(step.heuristic)}`})`;
      return `${step.algorithm}${edge}${args}${fromTo(step.from, step.to)}`;
    }
    case 'unsupported':
      return step.what;
  }
}

function printProjection(step: ProjectionStep): string {
  const fields = step.fields.map(printProjectionField);
  if (step.spread) fields.push('..');
  return `${step.closure === null ? '' : `|${step.closure.text}|`}{${fields.join(', ')}}`;
}

function printProjectionField(field: ProjectionField): string {
  if (field.value === null) return field.name.text;
  const value = field.value.kind === 'project' ? printProjection(field.value) : printExpr(field.value);
  return `${field.name.text}: ${value}`;
}

// ---- literals ----

/** A literal as the lexer reads it back: strings escaped, floats with a `.`, NONE for null. */
export function printLiteral(value: LiteralValue): string {
  return isScalar(value) ? scalarText(value, LITERALS) : 'NONE';
}

const LITERALS: ScalarStyle = { string: (s) => printString(s), number: (n) => printFloat(n) };

const ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\0': '\\0' };

/**
 * A string literal: `"`, `\` and the usual control characters as their escapes, other
 * control characters (C0, DEL, C1) as `\u{hex}`, everything else as itself. A lone surrogate
 * has no escape (`\u{D800}` is not a character) and prints as itself.
 */
export function printString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const simple = ESCAPES[ch];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    const code = ch.codePointAt(0)!;
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) ? `\\u{${code.toString(16).toUpperCase()}}` : ch;
  }
  return `${out}"`;
}

/**
 * A float so that it lexes as a float again (`[0-9]+.[0-9]+`, an optional exponent, `-` in
 * front): JavaScript's shortest round-trip form, with `.0` added to a mantissa without a
 * point (`1` -> `1.0`, `1e+21` -> `1.0e+21`, `5e-324` -> `5.0e-324`); `-0` keeps its sign.
 */
export function printFloat(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`${value} has no literal in the query language`);
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const [mantissa, exponent] = String(Math.abs(value)).split('e') as [string, string | undefined];
  return `${sign}${mantissa.includes('.') ? mantissa : `${mantissa}.0`}${exponent === undefined ? '' : `e${exponent}`}`;
}
