/**
 * What an agent reads about a project before it calls its queries (the read-only schema
 * tools of the MCP endpoint; docs/query-language.md, "Agents"): the node, edge and vector
 * types with their fields, the fields declared INDEX or UNIQUE INDEX, and a query counting
 * the nodes of each node type and the edges of each edge type.
 */
import type { FieldDef } from './ast.js';
import { compileQuery, type CompiledQuery } from './compile.js';
import { parse } from './parser.js';
import { printDefault } from './print.js';
import type { Schema } from './schema.js';
import { typeText } from './types.js';

export interface FieldDescription {
  readonly name: string;
  readonly type: string;
  readonly index?: 'INDEX' | 'UNIQUE INDEX';
  /** As written in the schema: `NOW`, `0`, `"guest"`. */
  readonly default?: string;
}

export interface SchemaDescription {
  /** The fields every node has (implicit_fields.node) and every edge has (.edge), besides the declared ones. */
  readonly implicit_fields: { readonly node: readonly string[]; readonly edge: readonly string[] };
  readonly nodes: readonly { readonly name: string; readonly fields: readonly FieldDescription[] }[];
  readonly edges: readonly {
    readonly name: string;
    readonly from: string;
    readonly to: string;
    readonly unique: boolean;
    readonly properties: readonly FieldDescription[];
  }[];
  readonly vectors: readonly { readonly name: string; readonly fields: readonly FieldDescription[] }[];
}

export function describeSchema(schema: Schema): SchemaDescription {
  const types = [...schema.nodes.values()];
  return {
    implicit_fields: { node: ['id', 'label'], edge: ['id', 'label', 'from_node', 'to_node'] },
    nodes: types.filter((t) => t.kind === 'node').map((t) => ({ name: t.name, fields: fieldsOf(t.fields) })),
    edges: [...schema.edges.values()].map((e) => ({
      name: e.name,
      from: e.from,
      to: e.to,
      unique: e.unique,
      properties: fieldsOf(e.fields),
    })),
    vectors: types.filter((t) => t.kind === 'vector').map((t) => ({ name: t.name, fields: fieldsOf(t.fields) })),
  };
}

function fieldsOf(fields: ReadonlyMap<string, FieldDef>): FieldDescription[] {
  return [...fields.values()].map((f) => ({
    name: f.name.text,
    type: typeText(f.type),
    ...(f.index === 'none' ? {} : { index: f.index === 'unique' ? 'UNIQUE INDEX' : 'INDEX' }),
    ...(f.default === null ? {} : { default: printDefault(f.default) }),
  }));
}

export interface IndexDescription {
  /** The node, edge or vector type. */
  readonly type: string;
  readonly field: string;
  readonly unique: boolean;
}

/** Every field declared INDEX or UNIQUE INDEX, in schema order. */
export function describeIndexes(schema: Schema): IndexDescription[] {
  const out: IndexDescription[] = [];
  for (const t of [...schema.nodes.values(), ...schema.edges.values()]) {
    for (const f of t.fields.values()) if (f.index !== 'none') out.push({ type: t.name, field: f.name.text, unique: f.index === 'unique' });
  }
  return out;
}

/** A read query counting each node type and each edge type, and which returned key counts what. */
export interface CountsQuery {
  readonly query: CompiledQuery;
  /** The query's returned key of each count. */
  readonly keys: readonly { readonly key: string; readonly kind: 'nodes' | 'edges'; readonly type: string }[];
}

/**
 * The counts query of `schema`, written in the query language and compiled like a
 * project's own queries (so it runs as any named query does), or null when the schema has
 * no node or edge type. Vector types are left out: vectors are not stored yet.
 */
export function countsQuery(schema: Schema, name: string): CountsQuery | null {
  const keys = [
    ...[...schema.nodes.values()].filter((t) => t.kind === 'node').map((t, i) => ({ key: `n${i}`, kind: 'nodes' as const, type: t.name })),
    ...[...schema.edges.values()].map((t, i) => ({ key: `e${i}`, kind: 'edges' as const, type: t.name })),
  ];
  if (keys.length === 0) return null;
  const lines = keys.map((k) => `    ${k.key} <- ${k.kind === 'nodes' ? 'N' : 'E'}<${k.type}>::COUNT`);
  const source = `QUERY ${name}() =>\n${lines.join('\n')}\n    RETURN ${keys.map((k) => k.key).join(', ')}\n`;
  const parsed = parse(source);
  const def = parsed.file.queries[0];
  const { compiled, problems } = def === undefined ? { compiled: null, problems: [] } : compileQuery(def, schema);
  if (parsed.errors.length > 0 || compiled === null) {
    const messages = [...parsed.errors, ...problems].map((p) => p.message).join('; ');
    throw new Error(`the counts query does not compile: ${messages}\n${source}`);
  }
  return { query: compiled, keys };
}
