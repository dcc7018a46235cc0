/**
 * Wire schemas of index DDL, index operations and search (reference v2-wire §4.9, §5.10,
 * §5.12). ops.ts builds them with its expression decoders.
 */
import type { IndexSpec } from '../core/index-spec.js';
import { buildParametersProblem, HNSW_BUILD, INDEX_KINDS, OPERATION_ID } from '../core/index-spec.js';
import { clip } from '../core/clip.js';
import { LIMITS } from '../plan/limits.js';
import type { Expr, PropertyInput, StreamBound } from '../plan/expr.js';
import type { IndexOperationKind, OpKind, OpOf, PlanNode, SearchOp } from '../plan/ops.js';
import {
  bool,
  component,
  described,
  describe,
  fail,
  label,
  name,
  oneOf,
  optional,
  required,
  str,
  struct,
  tagged,
  taggedSchema,
  u64,
  withDefault,
  type Field,
  type JsonSchema,
} from './schema.js';

/** The largest vector dimension an index may declare. */
export const MAX_VECTOR_DIMENSION = 16384;

/** An integer from `min` to `max`; `what` names it in the error. */
function between(what: string, min: number, max: number, description?: string): Field<number> {
  return described(
    (json, path) => {
      const n = u64(json, path);
      if (n < min || n > max) fail(path, `${what} must be between ${min} and ${max}, got ${n}`);
      return n;
    },
    { type: 'integer', minimum: min, maximum: max, ...(description === undefined ? {} : { description }) },
  );
}

const oneTo = (what: string, max: number): Field<number> => between(what, 1, max);

const dimension = oneTo('dimension', MAX_VECTOR_DIMENSION);

/** A vector index's build parameters (a Trellis extension; HNSW_BUILD states the bounds and defaults). */
const hnswM = between('m', HNSW_BUILD.m.min, HNSW_BUILD.m.max, "HNSW's M: links per element above level 0 (twice as many at level 0)");
const efConstruction = between(
  'ef_construction',
  HNSW_BUILD.m.min,
  HNSW_BUILD.efConstruction.max,
  "HNSW's ef_construction: the beam of an insertion, at least m",
);

/** The widest beam (ef) of an index's default or a search. */
const MAX_SEARCH_EF = LIMITS.maxSearchEf;

const efField = oneTo('ef', MAX_SEARCH_EF);

const SPEC_FIELDS = {
  equality: { label: required(label), property: required(name), unique: withDefault(bool, false) },
  range: { label: required(label), property: required(name), direction: withDefault(oneOf(['asc', 'desc'] as const), 'asc') },
  vector: {
    label: required(label),
    property: required(name),
    dimension: required(dimension),
    metric: required(oneOf(['cosine', 'euclidean', 'manhattan', 'inner_product'] as const)),
    tenant_property: optional(name),
    ef_search: optional(efField),
    m: withDefault(hnswM, HNSW_BUILD.m.default),
    ef_construction: withDefault(efConstruction, HNSW_BUILD.efConstruction.default),
  },
  text: { label: required(label), property: required(name), tenant_property: optional(name) },
};

const SPEC_STRUCTS = Object.fromEntries(
  Object.entries(SPEC_FIELDS).map(([family, fields]) => [family, struct(fields as Record<string, Field<unknown>>)]),
) as Record<keyof typeof SPEC_FIELDS, Field<Record<string, unknown>>>;
const familyOf = (kind: string) => kind.slice(kind.indexOf('_') + 1) as keyof typeof SPEC_FIELDS;

export const indexSpec: Field<IndexSpec> = described(
  (json, path) => {
    const { tag, body, bodyPath } = tagged(json, path, 'an index spec');
    if (!(INDEX_KINDS as readonly string[]).includes(tag)) {
      return fail(path, `unknown index kind "${clip(tag)}" (expected one of ${INDEX_KINDS.join(', ')})`);
    }
    const family = familyOf(tag);
    const fields = SPEC_STRUCTS[family](body, bodyPath);
    if (family === 'vector') {
      const problem = buildParametersProblem(fields.m as number, fields.ef_construction as number, {
        m: 'm',
        efConstruction: 'ef_construction',
      });
      if (problem !== null) fail(`${bodyPath}.ef_construction`, problem);
    }
    return { kind: tag, ...fields } as IndexSpec;
  },
  component('IndexSpec', () => taggedSchema([], Object.fromEntries(INDEX_KINDS.map((kind) => [kind, SPEC_STRUCTS[familyOf(kind)]])))),
);

const operationId: Field<string> = described(
  (json, path) => {
    const id = str(json, path);
    if (!OPERATION_ID.test(id)) {
      fail(path, `"${clip(id)}" is not a canonical lowercase, non-nil UUID`, 'invalid_index_operation_id');
    }
    return id;
  },
  { type: 'string', pattern: OPERATION_ID.source, description: 'a canonical lowercase, non-nil UUID' },
);

interface Decoders {
  /** ops.ts's builder of a kind's decoder from its payload shape. */
  readonly op: <K extends OpKind>(kind: K, shape: Record<string, Field<unknown>>) => Field<OpOf<K>>;
  readonly input: Field<PlanNode>;
  readonly expr: Field<Expr>;
  readonly propertyInput: Field<PropertyInput>;
}

type SearchKind = SearchOp['op'];
type IndexOpKinds = 'create_index' | 'drop_index' | IndexOperationKind | 'list_indexes' | SearchKind;

/** The decoders of every index and search kind. */
export function indexOps(d: Decoders): { [K in IndexOpKinds]: Field<OpOf<K>> } {
  /**
   * `{"literal": n}` or `{"expr": e}`: an expression that does not fold to a constant is
   * the bound as it is (checked when the search runs); the literal, or the constant's value
   * (`folded`), is the number `count` makes of it.
   */
  const streamBound = (
    what: string,
    count: (value: unknown, path: string, folded: boolean) => number,
    literalSchema: JsonSchema,
  ): Field<StreamBound> =>
    described(
      (json, path) => {
        const { tag, body, bodyPath } = tagged(json, path, `${what} ({"literal": n} or {"expr": ...})`);
        if (tag !== 'literal' && tag !== 'expr') return fail(path, `expected "literal" or "expr", got "${clip(tag)}"`);
        const e: Expr | null = tag === 'expr' ? d.expr(body, bodyPath) : null;
        if (e !== null && e.e !== 'constant') return { kind: 'expr', expr: e, path: bodyPath };
        return { kind: 'literal', n: count(e === null ? body : e.value, bodyPath, e !== null) };
      },
      taggedSchema([], { literal: literalSchema, expr: d.expr }),
    );
  /** A search's `k`: a literal of at least 1, a constant folded to one, or an expression (a parameter). */
  const searchCount = streamBound(
    'a result count',
    (value, path, folded) => {
      if (folded && typeof value !== 'bigint') {
        return fail(path, `k must be a positive integer, got ${describe(value)}`, 'invalid_search_result_count_expression');
      }
      const n = folded ? (value as bigint) : u64(value, path);
      if (n === 0 || n === 0n) return fail(path, 'k must be at least 1', 'invalid_search_result_count');
      if (typeof n === 'bigint' && (n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER))) {
        return fail(path, `k must be a positive integer, got ${n}`, 'invalid_search_result_count_expression');
      }
      return Number(n);
    },
    { type: 'integer', minimum: 1 },
  );
  /**
   * A vector search's beam (a Trellis extension): a literal from 1 to MAX_SEARCH_EF, a
   * constant folded to one, or an expression checked when the search runs. A wrong one is
   * a malformed request (invalid_query_json): the result-count codes are about `k`.
   */
  const searchEf = streamBound(
    'a beam width',
    (n, path) => {
      if (typeof n !== 'bigint' || n < 1n || n > BigInt(MAX_SEARCH_EF)) {
        return fail(path, `ef must be an integer from 1 to ${MAX_SEARCH_EF}, got ${describe(n)}`);
      }
      return Number(n);
    },
    { type: 'integer', minimum: 1, maximum: MAX_SEARCH_EF },
  );
  const op = d.op;
  const search = (query: 'query_vector' | 'query_text', within: boolean): Record<string, Field<unknown>> => ({
    ...(within ? { input: required(d.input) } : {}),
    label: required(label),
    property: required(name),
    [query]: required(d.propertyInput),
    k: required(searchCount),
    tenant_value: optional(d.propertyInput),
    missing_index: withDefault(oneOf(['error', 'empty'] as const), 'error'),
    ...(query === 'query_vector' ? { ef: optional(searchEf) } : {}),
  });
  const operation = { operation_id: required(operationId) };
  return {
    create_index: op('create_index', { spec: required(indexSpec), if_not_exists: withDefault(bool, false) }),
    drop_index: op('drop_index', { spec: required(indexSpec) }),
    get_index_operation: op('get_index_operation', operation),
    list_indexes: op('list_indexes', {}),
    retry_index_operation: op('retry_index_operation', operation),
    abort_index_operation: op('abort_index_operation', operation),
    vector_search_nodes: op('vector_search_nodes', search('query_vector', false)),
    vector_search_edges: op('vector_search_edges', search('query_vector', false)),
    text_search_nodes: op('text_search_nodes', search('query_text', false)),
    text_search_edges: op('text_search_edges', search('query_text', false)),
    vector_search_nodes_within: op('vector_search_nodes_within', search('query_vector', true)),
    vector_search_edges_within: op('vector_search_edges_within', search('query_vector', true)),
    text_search_nodes_within: op('text_search_nodes_within', search('query_text', true)),
    text_search_edges_within: op('text_search_edges_within', search('query_text', true)),
  };
}
