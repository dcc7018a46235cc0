/**
 * Schema versions and `MIGRATION` blocks (reference helixql-v1.md §2.1, §2.3;
 * docs/query-language.md "Schema versions and migrations"): each migration is checked
 * against the schemas of its two versions, and lowered to the /v2/query write entries that
 * rewrite the data (src/server/schema-migration.ts runs them, one write batch for the whole
 * chain of versions, when a writer starts).
 *
 * A mapping `N::Old => N::New { field: value, ... }` rewrites every element of the old item:
 * its label becomes the new item's (nodes and vectors; an edge keeps its label), and its
 * properties are replaced by the listed fields: a field of the old element (converted by
 * `AS T`), a literal, `NOW`, or `NONE` (unset). A field of the new item that is not listed
 * is unset, as in HelixDB, unless the list ends with `..`, which carries over each field the
 * old item has by the same name. The old values are read before any is written (through
 * temporary properties), so `{a: b, b: a}` swaps; and every mapping of one migration acts on
 * the elements as they were before it, so `A => B` and `B => C` in one migration do not chain.
 */
import type { FieldDef, ItemMapping, ItemRef, LiteralValue, MigrationDef, MigrationValue, PrimitiveType, TypeExpr } from './ast.js';
import type { SourcePos } from './lexer.js';
import { literal } from './lower-value.js';
import { integerRange, isFloatType, literalProblem, type FileProblem, type Located, type Schema } from './schema.js';
import { CompileError, typeText } from './types.js';
import { checkedRequest, labelIs, op, property, type Wire } from './wire-build.js';
import type { CastTarget } from '../plan/expr.js';
import { GraphError } from '../core/errors.js';

/** The label of the node that records the schema version the data is at (src/server/schema-migration.ts). */
export const SCHEMA_LABEL = '$trellis_schema';

/** One checked migration: the write entries that take the data from `from` to `to`. */
export interface MigrationStep {
  readonly from: number;
  readonly to: number;
  /** Where it is written: `file:line`. */
  readonly at: string;
  /** The /v2/query write entries. */
  readonly entries: readonly Wire[];
  /** What each entry does, for a message when one fails (`N::User, field "age"`). */
  readonly what: readonly string[];
  /** The vector types it renames: their vectors need the new type's vector index (src/server/schema-migration.ts makes it). */
  readonly vectorRenames: readonly { readonly from: string; readonly to: string }[];
}

/** The versions a project declares and the migrations between them. */
export interface SchemaVersions {
  /** Every version some item declares, ascending; [1] for a project without schema items. */
  readonly versions: readonly number[];
  /** The migration from each version that has one. */
  readonly steps: ReadonlyMap<number, MigrationStep>;
}

/** Checks every migration against the schemas of its versions; the steps of those without problems. */
export function checkMigrations(
  migrations: readonly Located<MigrationDef>[],
  schemas: ReadonlyMap<number, Schema>,
): { steps: Map<number, MigrationStep>; problems: FileProblem[] } {
  const problems: FileProblem[] = [];
  const steps = new Map<number, MigrationStep>();
  const firstFrom = new Map<number, string>();
  const declared = [...schemas.keys()].sort((a, b) => a - b).map((v) => `schema::${v}`);
  for (const { file, item: m } of migrations) {
    const report = (pos: SourcePos, message: string) => problems.push({ file, pos, message });
    const at = `${file}:${m.pos.line}`;
    const from = schemas.get(m.from.value);
    const to = schemas.get(m.to.value);
    for (const [v, schema] of [
      [m.from, from],
      [m.to, to],
    ] as const) {
      if (schema === undefined)
        report(
          v.pos,
          `schema::${v.value} is not a version of this project: no schema item is declared in it (the versions: ${declared.join(', ') || 'none'})`,
        );
    }
    if (from === undefined || to === undefined) continue;
    if (m.to.value <= m.from.value) {
      report(m.to.pos, `a migration goes to a later version: schema::${m.from.value} => schema::${m.to.value}`);
      continue;
    }
    const earlier = firstFrom.get(m.from.value);
    if (earlier !== undefined) {
      report(m.pos, `a second migration from schema::${m.from.value} (the first is at ${earlier}); each version has at most one`);
      continue;
    }
    firstFrom.set(m.from.value, at);
    const lowering = new StepLowering(m.from.value, m.to.value);
    const mapped = new Map<string, ItemRef>();
    let ok = true;
    for (const mapping of m.mappings) {
      const key = `${mapping.from.kind}:${mapping.from.name.text}`;
      const before = mapped.get(key);
      if (before !== undefined) {
        report(mapping.from.pos, `${refText(mapping.from)} is mapped twice in this migration (first at line ${before.pos.line})`);
        ok = false;
        continue;
      }
      mapped.set(key, mapping.from);
      try {
        lowering.add(checkMapping(mapping, m.from.value, from, m.to.value, to));
      } catch (err) {
        if (!(err instanceof MappingProblems)) throw err;
        for (const p of err.problems) report(p.pos, p.message);
        ok = false;
      }
    }
    if (!ok) continue;
    const lowered = lowering.finish(`MIGRATION at ${at}`);
    const invalid = planProblem(lowered.entries);
    if (invalid !== null)
      report(m.pos, `this migration's plan is not valid /v2/query (a bug of Trellis's compiler; please report it): ${invalid}`);
    else steps.set(m.from.value, { from: m.from.value, to: m.to.value, at, ...lowered });
  }
  return { steps, problems };
}

/** Why the write batch of `entries` is not valid /v2/query (decoded and validated as a request would be), or null. */
function planProblem(entries: readonly Wire[]): string | null {
  if (entries.length === 0) return null;
  try {
    checkedRequest({ request_type: 'write', query: { write: { entries, returns: [] } } }, new Map());
    return null;
  } catch (err) {
    if (err instanceof GraphError) return err.msg;
    throw err;
  }
}

class MappingProblems extends Error {
  constructor(readonly problems: readonly CompileError[]) {
    super('mapping problems');
  }
}

/** An item of a schema: its kind, name and declared fields. */
interface Item {
  readonly kind: ItemRef['kind'];
  readonly name: string;
  readonly fields: ReadonlyMap<string, FieldDef>;
}

/** A field of the new item and how its value is made. */
type FieldPlan =
  | { readonly field: string; readonly kind: 'copy'; readonly source: string; readonly cast: string | null }
  | { readonly field: string; readonly kind: 'value'; readonly wire: Wire }
  | { readonly field: string; readonly kind: 'now' }
  | { readonly field: string; readonly kind: 'unset' };

/** A checked mapping: its old and new item and its fields. */
interface MappingPlan {
  readonly source: Item;
  readonly target: Item;
  readonly fields: readonly FieldPlan[];
}

function refText(ref: ItemRef): string {
  return `${ref.kind === 'node' ? 'N' : ref.kind === 'edge' ? 'E' : 'V'}::${ref.name.text}`;
}

const KIND_NAMES: Readonly<Record<ItemRef['kind'], string>> = { node: 'node type', edge: 'edge type', vector: 'vector type' };

function itemOf(schema: Schema, kind: ItemRef['kind'], name: string): Item | { readonly other: string } | null {
  const edge = schema.edges.get(name);
  const node = schema.nodes.get(name);
  const found: Item | null =
    edge !== undefined
      ? { kind: 'edge', name, fields: edge.fields }
      : node !== undefined
        ? { kind: node.kind, name, fields: node.fields }
        : null;
  if (found === null) return null;
  return found.kind === kind ? found : { other: KIND_NAMES[found.kind] };
}

function findItem(schema: Schema, version: number, ref: ItemRef, pos: SourcePos, name = ref.name.text): Item {
  const found = itemOf(schema, ref.kind, name);
  if (found === null) throw new CompileError(pos, `${KIND_NAMES[ref.kind]} "${name}" is not declared in schema::${version}`);
  if ('other' in found) throw new CompileError(pos, `"${name}" is a ${found.other} in schema::${version}, not a ${KIND_NAMES[ref.kind]}`);
  return found;
}

function checkMapping(mapping: ItemMapping, fromVersion: number, from: Schema, toVersion: number, to: Schema): MappingPlan {
  const source = findItemOrThrow(() => findItem(from, fromVersion, mapping.from, mapping.from.pos));
  const target = findItemOrThrow(() =>
    mapping.to.kind === 'same'
      ? findItem(to, toVersion, mapping.from, mapping.to.pos)
      : findItem(to, toVersion, mapping.to, mapping.to.pos),
  );
  if (mapping.to.kind !== 'same' && mapping.to.kind !== mapping.from.kind)
    throw new MappingProblems([
      new CompileError(
        mapping.to.pos,
        `a ${KIND_NAMES[mapping.from.kind]} maps to a ${KIND_NAMES[mapping.from.kind]}, not to ${refText(mapping.to)}`,
      ),
    ]);
  if (source.kind === 'edge' && source.name !== target.name)
    throw new MappingProblems([
      new CompileError(
        mapping.to.pos,
        `an edge keeps its label in Trellis: edge type "${source.name}" cannot become "${target.name}" (map E::${source.name} => _::{...}, or create the new edges in a query)`,
      ),
    ]);
  const problems: CompileError[] = [];
  const fields: FieldPlan[] = [];
  const given = new Set<string>();
  const where = (version: number, item: Item) => `${KIND_NAMES[item.kind]} ${item.name} of schema::${version}`;
  for (const f of mapping.fields) {
    try {
      const declared = target.fields.get(f.name.text);
      if (declared === undefined) throw new CompileError(f.name.pos, `"${f.name.text}" is not a field of ${where(toVersion, target)}`);
      if (given.has(f.name.text)) throw new CompileError(f.name.pos, `"${f.name.text}" is given twice`);
      given.add(f.name.text);
      fields.push(fieldPlan(f.name.text, declared.type, f.value, source, where(fromVersion, source)));
    } catch (err) {
      if (!(err instanceof CompileError)) throw err;
      problems.push(err);
    }
  }
  if (mapping.rest !== null) fields.push(...restPlans(mapping.rest.pos, target, source, given, problems));
  if (problems.length > 0) throw new MappingProblems(problems);
  return { source, target, fields };
}

/**
 * The fields `..` carries over: each field of the new item not listed that the old item has
 * by the same name, copied as `field: field` would be (a type that needs AS is a problem at
 * the `..`, naming the field: the rest is never converted silently).
 */
function restPlans(at: SourcePos, target: Item, source: Item, given: ReadonlySet<string>, problems: CompileError[]): FieldPlan[] {
  const plans: FieldPlan[] = [];
  for (const [name, declared] of target.fields) {
    const old = source.fields.get(name);
    if (given.has(name) || old === undefined) continue;
    if (copies(old.type, declared.type)) {
      plans.push({ field: name, kind: 'copy', source: name, cast: null });
      continue;
    }
    const convert =
      castable(old.type, declared.type) === null
        ? `: list it as "${name}: ${name} AS ${typeText(declared.type)}"`
        : ': list it with a value of the new type';
    problems.push(
      new CompileError(
        at,
        `".." carries "${name}" over, but the old "${name}" is ${typeText(old.type)} and the new one ${typeText(declared.type)}${convert}`,
      ),
    );
  }
  return plans;
}

function findItemOrThrow(find: () => Item): Item {
  try {
    return find();
  } catch (err) {
    if (err instanceof CompileError) throw new MappingProblems([err]);
    throw err;
  }
}

function fieldPlan(field: string, type: TypeExpr, value: MigrationValue, source: Item, sourceText: string): FieldPlan {
  switch (value.kind) {
    case 'now':
      if (type.kind !== 'primitive' || type.name !== 'Date')
        throw new CompileError(value.pos, `NOW is a date, but "${field}" is ${typeText(type)}`);
      return { field, kind: 'now' };
    case 'literal':
      if (value.value === null) return { field, kind: 'unset' };
      return { field, kind: 'value', wire: literalValue(value.value, type, field, value.pos) };
    case 'field': {
      const old = source.fields.get(value.name.text);
      if (old === undefined) throw new CompileError(value.name.pos, `"${value.name.text}" is not a field of ${sourceText}`);
      if (value.cast === null) {
        if (copies(old.type, type)) return { field, kind: 'copy', source: value.name.text, cast: null };
        const hint = castable(old.type, type) === null ? ` AS ${typeText(type)}` : '';
        throw new CompileError(
          value.name.pos,
          `the old "${value.name.text}" is ${typeText(old.type)}, the new "${field}" is ${typeText(type)}` +
            (hint === '' ? ': the one does not convert to the other' : `: convert it with "${value.name.text}${hint}"`),
        );
      }
      const cast = value.cast;
      if (type.kind !== 'primitive' || type.name !== cast.type)
        throw new CompileError(cast.pos, `"${field}" is ${typeText(type)}, so the cast is AS ${typeText(type)}, not AS ${cast.type}`);
      const problem = castable(old.type, type);
      if (problem !== null) throw new CompileError(cast.pos, problem);
      const same = old.type.kind === 'primitive' && old.type.name === cast.type;
      return { field, kind: 'copy', source: value.name.text, cast: same || cast.type === 'Boolean' ? null : CAST_TARGETS[cast.type] };
    }
  }
}

function literalValue(value: Exclude<LiteralValue, null>, type: TypeExpr, field: string, pos: SourcePos): Wire {
  if (type.kind !== 'primitive')
    throw new CompileError(pos, `"${field}" is ${typeText(type)}: a literal cannot be one (use NONE or a field)`);
  const problem = literalProblem(value, type.name === 'ID' ? 'U64' : type.name);
  if (problem !== null) throw new CompileError(pos, `the value of "${field}" ${problem}`);
  return literal(value, type, pos);
}

/** Whether a value of type `from` is one of type `to` as it is, without AS: the same type, a wider integer type, F32 to F64. */
function copies(from: TypeExpr, to: TypeExpr): boolean {
  if (from.kind === 'array' || to.kind === 'array') return from.kind === 'array' && to.kind === 'array' && copies(from.of, to.of);
  if (from.kind !== 'primitive' || to.kind !== 'primitive') return false;
  if (from.name === to.name) return true;
  if (from.name === 'F32' && to.name === 'F64') return true;
  const a = integerRange(from.name);
  const b = integerRange(to.name);
  return a !== undefined && b !== undefined && from.name !== 'ID' && to.name !== 'ID' && a[0] >= b[0] && a[1] <= b[1];
}

/** Why `AS` cannot take a value of type `from` to type `to`, or null when it can (docs/query-language.md). */
function castable(from: TypeExpr, to: TypeExpr): string | null {
  if (from.kind !== 'primitive' || to.kind !== 'primitive')
    return `AS converts one value, and "${typeText(from)}" to "${typeText(to)}" is not one: only the same array type carries over (without AS)`;
  const a = from.name;
  const b = to.name;
  const numeric = (t: PrimitiveType) => integerRange(t) !== undefined || isFloatType(t);
  if (a === b || b === 'String' || (numeric(a) && numeric(b)) || (a === 'String' && b === 'Date')) return null;
  return `${a} does not convert to ${b}: AS converts numbers to numbers, any value to String, and a String to a Date`;
}

/**
 * The /v2/query cast target of each type AS converts to (Trellis integers are i64: U128 and
 * ID are held as u64, up to the largest i64). Only a Boolean converts to Boolean: no cast.
 */
const CAST_TARGETS: Readonly<Record<Exclude<PrimitiveType, 'Boolean'>, CastTarget>> = {
  String: 'string',
  F32: 'f32',
  F64: 'f64',
  I8: 'i8',
  I16: 'i16',
  I32: 'i32',
  I64: 'i64',
  U8: 'u8',
  U16: 'u16',
  U32: 'u32',
  U64: 'u64',
  U128: 'u64',
  Date: 'date_time',
  ID: 'u64',
};

/**
 * The write entries of one migration. Its mappings act on disjoint sets of elements (each
 * old item is mapped once), bound to a variable each before anything changes:
 *  1. per mapping, the elements of the old item;
 *  2. every copied field's value (cast) into a temporary property;
 *  3. the old item's fields removed;
 *  4. the label changed (nodes and vectors);
 *  5. each new field set: from its temporary property, a literal, NOW; NONE removes it.
 */
class StepLowering {
  private readonly mappings: MappingPlan[] = [];

  constructor(
    private readonly from: number,
    private readonly to: number,
  ) {}

  add(plan: MappingPlan): void {
    this.mappings.push(plan);
  }

  finish(header: string): { entries: Wire[]; what: string[]; vectorRenames: { from: string; to: string }[] } {
    const entries: Wire[] = [];
    const what: string[] = [];
    const push = (description: string, root: Wire, name?: string) => {
      entries.push({ query: name === undefined ? { root } : { name, root } });
      what.push(`${header}, ${description}`);
    };
    const variable = (j: number) => `migrate_${this.from}_${this.to}_${j}`;
    const elements = (j: number): Wire => {
      const kind = this.mappings[j]!.source.kind === 'edge' ? 'edges' : 'nodes';
      return op(kind, { reference: { var: variable(j) } });
    };
    const temporary = (i: number) => `$migrate_${i}`;
    const ref = (m: MappingPlan) => `${m.source.kind === 'edge' ? 'E' : m.source.kind === 'vector' ? 'V' : 'N'}::${m.source.name}`;
    this.mappings.forEach((m, j) => {
      const source = op(m.source.kind === 'edge' ? 'edges_where' : 'nodes_where', { predicate: labelIs(m.source.name) });
      push(`${ref(m)}: its elements`, source, variable(j));
    });
    this.mappings.forEach((m, j) =>
      m.fields.forEach((f, i) => {
        if (f.kind !== 'copy') return;
        const read = property(f.source);
        const value = f.cast === null ? read : { cast: { expr: read, to: f.cast } };
        const present = op('where', { input: elements(j), predicate: { is_not_null: { property: f.source } } });
        push(`${ref(m)}, field "${f.field}" from "${f.source}"`, setProperty(present, temporary(i), { expr: value }));
      }),
    );
    this.mappings.forEach((m, j) => {
      for (const field of m.source.fields.keys())
        push(`${ref(m)}: removing "${field}"`, op('remove_property', { input: elements(j), name: field }));
      if (m.source.kind !== 'edge' && m.source.name !== m.target.name)
        push(`${ref(m)}: relabelled ${m.target.name}`, setProperty(elements(j), '$label', { value: { string: m.target.name } }));
    });
    this.mappings.forEach((m, j) =>
      m.fields.forEach((f, i) => {
        const at = `${ref(m)}, field "${f.field}"`;
        switch (f.kind) {
          case 'copy': {
            const present = op('where', { input: elements(j), predicate: { is_not_null: { property: temporary(i) } } });
            push(at, setProperty(present, f.field, { expr: property(temporary(i)) }));
            push(at, op('remove_property', { input: elements(j), name: temporary(i) }));
            return;
          }
          case 'value':
            push(at, setProperty(elements(j), f.field, { value: f.wire }));
            return;
          case 'now':
            push(at, setProperty(elements(j), f.field, { expr: 'date_time_now' }));
            return;
          case 'unset':
            push(at, op('remove_property', { input: elements(j), name: f.field }));
            return;
        }
      }),
    );
    const vectorRenames = this.mappings
      .filter((m) => m.source.kind === 'vector' && m.source.name !== m.target.name)
      .map((m) => ({ from: m.source.name, to: m.target.name }));
    return { entries, what, vectorRenames };
  }
}

function setProperty(input: Wire, name: string, value: Wire): Wire {
  return op('set_property', { input, name, value });
}
