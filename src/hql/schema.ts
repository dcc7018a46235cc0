/**
 * The project's schema, built from the `N::`, `E::` and `V::` items of every file and
 * checked (reference helixql-v1.md §2.2 and the E1xx/E2xx checks of §8): duplicate types
 * and fields, edge ends that name no type, reserved names, field types and defaults.
 */
import type { DefaultValue, EdgeTypeDef, FieldDef, Name, NodeTypeDef, TypeDef, TypeExpr } from './ast.js';
import type { SourcePos } from './lexer.js';
import { parseRfc3339 } from '../core/datetime.js';

export interface Problem {
  readonly pos: SourcePos;
  readonly message: string;
}

export interface NodeType {
  readonly kind: 'node' | 'vector';
  readonly name: string;
  readonly fields: ReadonlyMap<string, FieldDef>;
}

export interface EdgeType {
  readonly kind: 'edge';
  readonly name: string;
  readonly unique: boolean;
  readonly from: string;
  readonly to: string;
  readonly fields: ReadonlyMap<string, FieldDef>;
}

export interface Schema {
  readonly nodes: ReadonlyMap<string, NodeType>;
  readonly edges: ReadonlyMap<string, EdgeType>;
}

/** Fields every element has and no type may declare (the reference's E204 lists, not swapped). */
const IMPLICIT_NODE_FIELDS = ['id', 'label'];
const IMPLICIT_EDGE_FIELDS = ['id', 'label', 'from_node', 'to_node'];
const RESERVED_TYPE_NAMES = [
  'Node',
  'Edge',
  'HVector',
  'Value',
  'GraphError',
  'VectorError',
  'Response',
  'HandlerInput',
  'Aggregate',
  'AggregateItem',
];

/** A definition together with the file it is in. */
export interface Located<T> {
  readonly file: string;
  readonly item: T;
}

export type FileProblem = Problem & { readonly file: string };

export function buildSchema(defs: readonly Located<TypeDef>[]): { schema: Schema; problems: FileProblem[] } {
  const problems: FileProblem[] = [];
  const nodes = new Map<string, NodeType>();
  const edges = new Map<string, EdgeType>();
  const seen = new Map<string, Name>();
  const keptEdges: Located<EdgeTypeDef>[] = [];
  for (const { file, item } of defs) {
    const report = (pos: SourcePos, message: string) => problems.push({ file, pos, message });
    if (RESERVED_TYPE_NAMES.includes(item.name.text))
      report(item.name.pos, `"${item.name.text}" is a reserved name and cannot name a type`);
    const earlier = seen.get(item.name.text);
    if (earlier !== undefined) {
      report(item.name.pos, `type "${item.name.text}" is defined twice (first at line ${earlier.pos.line})`);
      continue;
    }
    seen.set(item.name.text, item.name);
    const fieldList = item.kind === 'edge' ? item.properties : item.fields;
    const fields = checkFields(
      fieldList,
      item.kind === 'edge' ? IMPLICIT_EDGE_FIELDS : IMPLICIT_NODE_FIELDS,
      item.kind,
      item.name.text,
      report,
    );
    if (item.kind === 'edge') {
      edges.set(item.name.text, edgeType(item, fields));
      keptEdges.push({ file, item });
    } else nodes.set(item.name.text, nodeType(item, fields));
  }
  // The ends are checked once every type is known: items may come in any order.
  for (const { file, item } of keptEdges) {
    for (const end of [item.from, item.to]) {
      if (!nodes.has(end.text))
        problems.push({
          file,
          pos: end.pos,
          message: `edge "${item.name.text}" connects "${end.text}", which is not a node or vector type`,
        });
    }
  }
  return { schema: { nodes, edges }, problems };
}

function nodeType(def: NodeTypeDef, fields: Map<string, FieldDef>): NodeType {
  return { kind: def.kind, name: def.name.text, fields };
}

function edgeType(def: EdgeTypeDef, fields: Map<string, FieldDef>): EdgeType {
  return { kind: 'edge', name: def.name.text, unique: def.unique, from: def.from.text, to: def.to.text, fields };
}

function checkFields(
  list: readonly FieldDef[],
  implicit: readonly string[],
  kind: string,
  typeName: string,
  report: (pos: SourcePos, message: string) => void,
): Map<string, FieldDef> {
  const fields = new Map<string, FieldDef>();
  const lower = new Set<string>();
  for (const field of list) {
    const name = field.name.text;
    if (implicit.includes(name.toLowerCase())) {
      report(field.name.pos, `"${name}" is a field every ${kind} has; ${kind} type "${typeName}" cannot declare it`);
      continue;
    }
    if (lower.has(name.toLowerCase())) {
      report(field.name.pos, `field "${name}" is declared twice in ${kind} type "${typeName}"`);
      continue;
    }
    lower.add(name.toLowerCase());
    const typeProblem = fieldTypeProblem(field.type);
    if (typeProblem !== null) report(typeProblem.pos, typeProblem.message);
    if (field.default !== null) {
      const problem = defaultProblem(field.default, field.type);
      if (problem !== null) report(field.default.pos, `the default of "${name}" ${problem}`);
    }
    fields.set(name, field);
  }
  return fields;
}

/** Schema fields hold primitives and arrays of them; object and named types are for parameters. */
function fieldTypeProblem(type: TypeExpr): Problem | null {
  if (type.kind === 'array') return fieldTypeProblem(type.of);
  if (type.kind === 'object')
    return { pos: type.pos, message: 'a schema field cannot hold an object type; use separate fields or an edge' };
  if (type.kind === 'named')
    return {
      pos: type.pos,
      message: `"${type.name}" is not a field type (String, Boolean, F32, F64, I8 to I64, U8 to U128, Date, ID or [T])`,
    };
  return null;
}

const INTEGER_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  I8: [-(2n ** 7n), 2n ** 7n - 1n],
  I16: [-(2n ** 15n), 2n ** 15n - 1n],
  I32: [-(2n ** 31n), 2n ** 31n - 1n],
  I64: [-(2n ** 63n), 2n ** 63n - 1n],
  U8: [0n, 2n ** 8n - 1n],
  U16: [0n, 2n ** 16n - 1n],
  U32: [0n, 2n ** 32n - 1n],
  U64: [0n, 2n ** 64n - 1n],
  U128: [0n, 2n ** 128n - 1n],
  ID: [0n, 2n ** 64n - 1n],
};

/** The inclusive range of an integer type, or undefined for a type that is not an integer type. */
export function integerRange(type: string): readonly [bigint, bigint] | undefined {
  return INTEGER_RANGES[type];
}

export function isFloatType(type: string): boolean {
  return type === 'F32' || type === 'F64';
}

/** Whether a type is a number: an integer type (ID too) or a float type. */
export function isNumberType(type: TypeExpr | undefined): boolean {
  return type !== undefined && type.kind === 'primitive' && (isFloatType(type.name) || integerRange(type.name) !== undefined);
}

function defaultProblem(def: DefaultValue, type: TypeExpr): string | null {
  if (type.kind !== 'primitive') return 'is not allowed: only String, Boolean, number and Date fields take defaults';
  const t = type.name;
  if (def.kind === 'now') return t === 'Date' ? null : `is NOW, but the field is ${t}, not Date`;
  return literalProblem(def.value, t);
}

/** Why `value` cannot be a value of primitive type `type`, or null when it can. */
export function literalProblem(value: string | bigint | number | boolean | null, type: string): string | null {
  const range = integerRange(type);
  if (typeof value === 'bigint') {
    if (range !== undefined)
      return value >= range[0] && value <= range[1] ? null : `is ${value}, out of the range of ${type} (${range[0]} to ${range[1]})`;
    return isFloatType(type) ? null : `is the number ${value}, but the field is ${type}`;
  }
  if (typeof value === 'number') return isFloatType(type) ? null : `is the float ${value}, but the field is ${type}`;
  if (typeof value === 'boolean') return type === 'Boolean' ? null : `is ${value}, but the field is ${type}`;
  if (typeof value === 'string') {
    if (type === 'String') return null;
    if (type === 'Date') return parseDateLiteral(value) === null ? `is "${value}", which is not a date (RFC 3339 or YYYY-MM-DD)` : null;
    return `is a string, but the field is ${type}`;
  }
  return null;
}

/** A date literal in a query or a default: RFC 3339, or a bare `YYYY-MM-DD` (midnight UTC). Epoch ms, or null. */
export function parseDateLiteral(text: string): number | null {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) ? parseRfc3339(`${text}T00:00:00Z`) : parseRfc3339(text);
}
