/**
 * Vectors and search in the language (reference §2.7, §4.1, §4.6): AddV and BatchAddV,
 * SearchV as a source (with PREFILTER) and as a step, SearchBM25, SearchHybrid (a vector
 * and a text search fused by reciprocal rank), Embed(text), RerankRRF and RerankMMR.
 *
 * A vector of type T is a node labelled T whose `data` holds the vector, indexed by a
 * cosine vector index on (T, data) that the first vector written makes (of its dimension;
 * database.ts answerNamed adds it to the call that writes it). SearchBM25<T> reads one text
 * index per String field of T, which the server makes at start-up (src/server); with
 * several fields the scores of each field's search are summed. Searches of an index that
 * does not exist yet find nothing (`missing_index: "empty"`): no vector of the type has
 * been written.
 */
import type { Expr, FieldValue, Name, Step, TypeExpr, VectorArg } from './ast.js';
import type { SourcePos } from './lexer.js';
import { elementType, hiddenName, LIST, lookup, ONE, type ElementTy, type Lowered, type Lowering } from './lower-context.js';
import { assignments, literal, namedValue } from './lower-value.js';
import { integerRange, isNumberType, type NodeType } from './schema.js';
import { CompileError, describeTy, typeText } from './types.js';
import { labelIs, op, type Wire } from './wire-build.js';

/** The property holding a vector's numbers. */
export const VECTOR_PROPERTY = 'data';

const isString = (t: TypeExpr): boolean => t.kind === 'primitive' && t.name === 'String';
const isInteger = (t: TypeExpr): boolean => t.kind === 'primitive' && integerRange(t.name) !== undefined && t.name !== 'ID';

/** A search of the language's vector index of `type`. */
function vectorSearch(l: Lowering, type: string, vector: Wire, k: Wire, input: Wire | null): Wire {
  const ef = l.options.efSearch;
  const fields = {
    label: type,
    property: VECTOR_PROPERTY,
    query_vector: vector,
    k,
    missing_index: 'empty',
    ...(ef === null ? {} : { ef: { literal: BigInt(ef) } }),
  };
  return input === null ? op('vector_search_nodes', fields) : op('vector_search_nodes_within', { input, ...fields });
}

/** The vector of AddV, UpsertV or SearchV as a property input: a literal, a parameter, or the embedding the call is given. */
export function vectorInput(l: Lowering, v: VectorArg, type: string | null): Wire {
  switch (v.kind) {
    case 'literal':
      if (v.values.length === 0) throw new CompileError(v.pos, 'a vector holds at least one number');
      if (type !== null) l.needs.vectorWrites.push({ type, from: { dimension: v.values.length } });
      return { value: { f32_array: v.values } };
    case 'name': {
      const variable = lookup(l, v.name.text, v.name.pos);
      const t = variable.ty.k === 'param' ? variable.ty.type : null;
      if (t === null || t.kind !== 'array' || !isNumberType(t.of))
        throw new CompileError(
          v.name.pos,
          `a vector is a parameter of type [F64] (or [F32]), a list of numbers or Embed(text); "${v.name.text}" is ${t === null ? describeTy(variable.ty) : typeText(t)}`,
        );
      if (type !== null) l.needs.vectorWrites.push({ type, from: { name: v.name.text, loops: l.loopFields.get(v.name.text) ?? [] } });
      return { expr: { param: v.name.text } };
    }
    case 'embed': {
      const param = hiddenName(l, 'embed');
      const loops = embedLoops(l, v.text);
      l.needs.embeds.push({ param, text: embedText(l, v.text), loops });
      if (type !== null) l.needs.vectorWrites.push({ type, from: { name: param, loops } });
      return { expr: { param } };
    }
  }
}

function embedText(l: Lowering, e: Expr): { literal: string } | { name: string } {
  if (e.kind === 'literal' && typeof e.value === 'string') return { literal: e.value };
  // The text is embedded before the transaction, so it is known then: a parameter, not a variable.
  const name = valueOfType(l, e, isString, 'Embed takes a String', false);
  if (name !== null) return { name: (name as { param: string }).param };
  throw new CompileError(e.pos, 'Embed takes a String: a string literal or a String parameter');
}

function embedLoops(l: Lowering, e: Expr): readonly string[] {
  return e.kind === 'traversal' && e.source.kind === 'var' ? (l.loopFields.get(e.source.name.text) ?? []) : [];
}

/**
 * The value `e` names when it is a bare name (a parameter, or with `variables` a variable
 * of one value too), checked by `accepts`: a name of any other type fails with
 * `${claim}; "name" is ...`. Null when `e` is not a bare name.
 */
function valueOfType(l: Lowering, e: Expr, accepts: (t: TypeExpr) => boolean, claim: string, variables = true): Wire | null {
  if (e.kind !== 'traversal' || e.source.kind !== 'var' || e.steps.length !== 0) return null;
  const name = e.source.name.text;
  const v = lookup(l, name, e.source.name.pos);
  if (v.ty.k !== 'param' && !variables)
    throw new CompileError(e.pos, `${claim} literal or parameter, known before the query runs; "${name}" is ${describeTy(v.ty)}`);
  const value = namedValue(l, name, e.source.name.pos);
  if (accepts(value.type)) return value.wire;
  throw new CompileError(e.pos, `${claim}; "${name}" is ${typeText(value.type)}`);
}

/** A search's k: an integer literal of at least 1, or an integer parameter. */
function searchCount(l: Lowering, e: Expr, what: string): Wire {
  if (e.kind === 'literal' && typeof e.value === 'bigint') {
    if (e.value < 1n) throw new CompileError(e.pos, `the k of ${what} is ${e.value}; it is at least 1`);
    return { literal: e.value };
  }
  const value = valueOfType(l, e, isInteger, `the k of ${what} is an integer`);
  if (value !== null) return { expr: value };
  throw new CompileError(e.pos, `the k of ${what} is an integer literal, an integer parameter or a variable of one integer`);
}

/** A search's text: a string literal or a String parameter. */
function searchText(l: Lowering, e: Expr, what: string): Wire {
  if (e.kind === 'literal' && typeof e.value === 'string') return { value: { string: e.value } };
  const value = valueOfType(l, e, isString, `the text of ${what} is a String`);
  if (value !== null) return { expr: value };
  throw new CompileError(e.pos, `the text of ${what} is a string literal, a String parameter or a variable of one String`);
}

const vectors = (type: string, single: boolean): ElementTy => ({ k: 'element', kind: 'vector', type, single });

/** `AddV<T>(vector, {fields})`: one new vector. */
export function lowerAddV(l: Lowering, type: Name, vector: VectorArg, fields: readonly FieldValue[]): Lowered {
  const t = elementType(l, 'vector', type.text, type.pos);
  l.write = true;
  const data = vectorInput(l, vector, t.name);
  return {
    root: op('add_n', { label: t.name, properties: [[VECTOR_PROPERTY, data], ...assignments(l, t, fields, true)] }),
    ty: vectors(t.name, true),
    show: ONE,
  };
}

/**
 * `BatchAddV<T>(items)`: one vector per element of `items`, an array of objects holding the
 * vector in `vector` and fields of T; the new vectors, in order.
 */
export function lowerBatchAddV(l: Lowering, type: Name, items: Name, pos: SourcePos): Lowered {
  const t = elementType(l, 'vector', type.text, type.pos);
  const param = lookup(l, items.text, items.pos);
  const element = param.ty.k === 'param' && param.ty.type.kind === 'array' ? param.ty.type.of : null;
  if (element === null || element.kind !== 'object')
    throw new CompileError(
      items.pos,
      `BatchAddV takes an array parameter of objects {vector: [F64], field: T, ...}; "${items.text}" is ${describeTy(param.ty)}`,
    );
  const fields = element.fields.filter((f) => f.name.text !== 'vector');
  if (fields.length === element.fields.length)
    throw new CompileError(items.pos, `the elements of "${items.text}" hold their vector in a field named "vector"`);
  l.write = true;
  const given: FieldValue[] = fields.map((f) => ({
    name: f.name,
    value: { kind: 'traversal', pos, source: { kind: 'var', pos, name: f.name }, steps: [] },
  }));
  // The loop's fields shadow the query's names while its body is checked.
  const saved = new Map(element.fields.map((f) => [f.name.text, l.scope.get(f.name.text)]));
  for (const f of element.fields) l.scope.set(f.name.text, { ty: { k: 'param', type: f.type }, show: ONE, pos: f.name.pos });
  l.loopFields.set('vector', [...l.loops, items.text]);
  let properties: [string, Wire][];
  try {
    properties = assignments(l, t, given, true);
    l.needs.vectorWrites.push({ type: t.name, from: { name: 'vector', loops: [...l.loops, items.text] } });
  } finally {
    l.loopFields.delete('vector');
    for (const [name, v] of saved) {
      if (v === undefined) l.scope.delete(name);
      else l.scope.set(name, v);
    }
  }
  const made = hiddenName(l, 'new');
  const all = hiddenName(l, 'added');
  l.pre.push(
    { query: { name: all, root: op('nodes', { reference: { ids: [] } }) } },
    {
      for_each: {
        param: items.text,
        body: [
          {
            query: {
              name: made,
              root: op('add_n', { label: t.name, properties: [[VECTOR_PROPERTY, { expr: { param: 'vector' } }], ...properties] }),
            },
          },
          { query: { name: all, root: op('inject', { input: op('nodes', { reference: { var: all } }), variable: made }) } },
        ],
      },
    },
  );
  return { root: op('nodes', { reference: { var: all } }), ty: vectors(t.name, false), show: LIST };
}

/** `SearchV<T>(vector, k)` as a source, with its PREFILTER (a condition the vectors must meet to take part). */
export function lowerSearchV(l: Lowering, type: Name, vector: VectorArg, k: Expr, prefilter: Expr | null): Lowered {
  const t = elementType(l, 'vector', type.text, type.pos);
  const query = vectorInput(l, vector, null);
  const count = searchCount(l, k, 'SearchV');
  let input: Wire | null = null;
  if (prefilter !== null) {
    const condition = l.hooks.condition(l, prefilter, vectors(t.name, true));
    input = op('where', { input: op('nodes_where', { predicate: labelIs(t.name) }), predicate: condition });
  }
  return { root: vectorSearch(l, t.name, query, count, input), ty: vectors(t.name, false), show: LIST };
}

/** `::SearchV<T>(vector, k)` as a step: the search ranks only the incoming vectors. */
export function lowerSearchStep(l: Lowering, state: Lowered, step: Extract<Step, { kind: 'search' }>): Lowered {
  const t = elementType(l, 'vector', step.type.text, step.type.pos);
  if (state.ty.k !== 'element' || state.ty.kind !== 'vector' || state.ty.type !== t.name)
    throw new CompileError(step.pos, `::SearchV<${t.name}> searches among vectors of type ${t.name}, not ${describeTy(state.ty)}`);
  const root = vectorSearch(l, t.name, vectorInput(l, step.vector, null), searchCount(l, step.k, 'SearchV'), state.root);
  return { root, ty: vectors(t.name, false), show: LIST };
}

/** The String fields of a node or vector type, which its text search reads. */
function textFields(t: NodeType, pos: SourcePos): string[] {
  const fields = [...t.fields.values()].filter((f) => f.type.kind === 'primitive' && f.type.name === 'String').map((f) => f.name.text);
  if (fields.length === 0) throw new CompileError(pos, `${t.kind} type ${t.name} has no String field for a text search to read`);
  return fields;
}

/** A text search of `t`: one field's search, or every field's with their scores summed (hidden entries before the statement). */
function textSearch(l: Lowering, t: NodeType, text: Wire, k: Wire, pos: SourcePos, what: string): Wire {
  if (!l.options.bm25)
    throw new CompileError(pos, `${what} needs text search, which this project turns off ("bm25": false in its configuration)`);
  const fields = textFields(t, pos);
  const search = (property: string) => {
    if (!l.needs.textIndexes.some((x) => x.label === t.name && x.property === property))
      l.needs.textIndexes.push({ label: t.name, property });
    return op('text_search_nodes', { label: t.name, property, query_text: text, k, missing_index: 'empty' });
  };
  if (fields.length === 1) return search(fields[0]!);
  const parts = fields.map((f) => {
    const name = hiddenName(l, 'text');
    l.pre.push({ query: { name, root: search(f) } });
    return name;
  });
  return op('limit', { input: op('fuse', { variables: parts, method: 'score_sum' }), count: k });
}

/** `SearchBM25<T>(text, k)`: the k best matches of T by BM25. */
export function lowerSearchBM25(l: Lowering, type: Name, text: Expr, k: Expr, pos: SourcePos): Lowered {
  const t = l.schema.nodes.get(type.text);
  if (t === undefined) throw new CompileError(type.pos, `"${type.text}" is not a node or vector type`);
  const root = textSearch(l, t, searchText(l, text, 'SearchBM25'), searchCount(l, k, 'SearchBM25'), pos, 'SearchBM25');
  return { root, ty: { k: 'element', kind: t.kind, type: t.name, single: false }, show: LIST };
}

/**
 * `SearchHybrid<T>(vector, text, k)` (a Trellis extension, the syntax HelixDB's tests
 * sketched): the k best of a vector search and a text search of the vector type T, fused
 * by reciprocal rank (each ranked k deep).
 */
export function lowerSearchHybrid(l: Lowering, type: Name, vector: VectorArg, text: Expr, k: Expr, pos: SourcePos): Lowered {
  const t = elementType(l, 'vector', type.text, type.pos) as NodeType;
  const count = searchCount(l, k, 'SearchHybrid');
  const byVector = hiddenName(l, 'vector');
  l.pre.push({ query: { name: byVector, root: vectorSearch(l, t.name, vectorInput(l, vector, null), count, null) } });
  const byText = hiddenName(l, 'text');
  const texts = textSearch(l, t, searchText(l, text, 'SearchHybrid'), count, pos, 'SearchHybrid');
  l.pre.push({ query: { name: byText, root: texts } });
  const root = op('limit', { input: op('fuse', { variables: [byVector, byText], method: 'rrf' }), count });
  return { root, ty: vectors(t.name, false), show: LIST };
}

/** A reranker's number (k, lambda): a number literal or a numeric parameter. */
function rerankNumber(l: Lowering, e: Expr, what: string): Wire {
  if (e.kind === 'literal' && (typeof e.value === 'bigint' || typeof e.value === 'number')) return { value: literal(e.value, null, e.pos) };
  const value = valueOfType(l, e, isNumberType, `${what} is a number`);
  if (value !== null) return { expr: value };
  throw new CompileError(e.pos, `${what} is a number literal, a numeric parameter or a variable of one number`);
}

const MMR_METRICS: Readonly<Record<string, string>> = { cosine: 'cosine', euclidean: 'euclidean', dotproduct: 'dot_product' };

/** `::RerankRRF` / `::RerankRRF(k: n)` and `::RerankMMR(lambda: x[, distance: "..."])`. */
export function lowerRerank(l: Lowering, state: Lowered, step: Extract<Step, { kind: 'rerankRRF' | 'rerankMMR' }>): Lowered {
  const ty = state.ty;
  if (ty.k !== 'element') throw new CompileError(step.pos, `a reranker reorders nodes, edges or vectors, not ${describeTy(ty)}`);
  const ranked: Lowered = { root: state.root, ty: { ...ty, single: false }, show: LIST };
  if (step.kind === 'rerankRRF') {
    const k = step.k === null ? null : rerankNumber(l, step.k, 'the k of RerankRRF');
    return { ...ranked, root: op('fuse', { input: state.root, ...(k === null ? {} : { k }) }) };
  }
  if (ty.kind !== 'vector') throw new CompileError(step.pos, `RerankMMR compares vectors, not ${describeTy(ty)}`);
  let metric = 'cosine';
  if (step.distance !== null) {
    const d = step.distance;
    const given = d.kind === 'literal' && typeof d.value === 'string' ? MMR_METRICS[d.value.toLowerCase()] : undefined;
    if (given === undefined)
      throw new CompileError(d.pos, 'the distance of RerankMMR is "cosine", "euclidean" or "dotproduct", written as a literal');
    metric = given;
  }
  const lambda = rerankNumber(l, step.lambda, 'the lambda of RerankMMR');
  return { ...ranked, root: op('rerank_mmr', { input: state.root, lambda, property: VECTOR_PROPERTY, metric }) };
}
