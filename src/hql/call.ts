/**
 * What a call of a named query is given besides its declared parameters (compile.ts
 * CallNeeds): the vectors of its Embed() texts (computed by the main thread before the
 * call is sent, src/server/embedding.ts), its scalar FOR loops as arrays of objects, and
 * the vector indexes its writes need, made in the call's own transaction (an index of a
 * type with no vector yet is active at once; its dimension is the first vector's).
 *
 * A value of a FOR loop lives in each element of the loop's array: `loops` names the
 * arrays from the top-level parameter down (each a field of the enclosing loop's element).
 */
import { GraphError } from '../core/errors.js';
import type { Entry } from '../plan/batch.js';
import type { CompiledQuery } from './compile.js';
import type { ParamValue } from './params.js';

type Values = Record<string, ParamValue>;
type Mutable = Record<string, unknown>;

/** Calls `f` with each object the values of `loops` are fields of: the parameters, or each element of the innermost loop. */
function eachHolder(values: Values, loops: readonly string[], f: (holder: Mutable) => void): void {
  const walk = (holder: Mutable, depth: number): void => {
    if (depth === loops.length) return f(holder);
    const list = holder[loops[depth]!];
    if (!Array.isArray(list)) return;
    for (const item of list) if (typeof item === 'object' && item !== null && !Array.isArray(item)) walk(item as Mutable, depth + 1);
  };
  walk(values as Mutable, 0);
}

/** The call's values with copies of the objects on the way (the checked values may be shared). */
function copied(values: Values): Values {
  return structuredClone(values);
}

/** The texts a call's Embed() sites embed, in a fixed order (the order the vectors come back in). */
export function embedTexts(query: CompiledQuery, values: Values): string[] {
  const texts: string[] = [];
  for (const site of query.needs.embeds) {
    eachHolder(values, site.loops, (holder) => {
      const text = 'literal' in site.text ? site.text.literal : holder[site.text.name];
      if (typeof text !== 'string')
        throw new GraphError(
          'invalid_parameter',
          `Embed() takes a String; parameter "${'name' in site.text ? site.text.name : ''}" is not one`,
        );
      texts.push(text);
    });
  }
  return texts;
}

/** The values with each Embed() site's vector set where its batch reads it (the vectors in embedTexts' order). */
export function withEmbeddings(query: CompiledQuery, values: Values, vectors: readonly (readonly number[])[]): Values {
  const out = copied(values);
  let i = 0;
  for (const site of query.needs.embeds) {
    eachHolder(out, site.loops, (holder) => {
      const v = vectors[i++];
      if (v === undefined) throw new GraphError('internal_error', 'fewer embeddings than Embed() texts');
      holder[site.param] = [...v];
    });
  }
  return out;
}

/** The values with each scalar FOR loop's array given as objects `{x: value}`. */
export function withScalarLoops(query: CompiledQuery, values: Values): Values {
  if (query.needs.scalarLoops.length === 0) return values;
  const out = copied(values);
  for (const loop of query.needs.scalarLoops) {
    eachHolder(out, loop.loops, (holder) => {
      const list = holder[loop.param];
      holder[loop.hidden] = Array.isArray(list) ? list.map((v: unknown) => ({ [loop.as]: v })) : [];
    });
  }
  return out;
}

/**
 * `create_index` entries (if not exists) for the vector types the call writes, each of the
 * dimension of the first vector it writes there and of the project's build parameters
 * (`m`, `ef_construction`): put before the batch, they make the index in the call's
 * transaction when it does not exist yet. An index that exists with other build parameters
 * is kept as it was built (`any_build_parameters`; the server notes it at start-up). An
 * empty vector is refused.
 */
export function vectorIndexEntries(query: CompiledQuery, values: Values): Entry[] {
  const dims = new Map<string, number>();
  for (const w of query.needs.vectorWrites) {
    if ('dimension' in w.from) {
      if (!dims.has(w.type)) dims.set(w.type, w.from.dimension);
      continue;
    }
    const name = w.from.name;
    let found: number | null = null;
    eachHolder(values, w.from.loops, (holder) => {
      const v = holder[name];
      // An empty vector has no direction: nothing could find it (a missing optional one writes no vector).
      if (Array.isArray(v) && v.length === 0)
        throw new GraphError('invalid_parameter', `parameter "${name}" is an empty vector; a vector holds at least one number`);
      if (found === null && Array.isArray(v)) found = v.length;
    });
    if (found !== null && !dims.has(w.type)) dims.set(w.type, found);
  }
  return [...dims].map(([label, dimension], i) => ({
    kind: 'query',
    name: null,
    condition: null,
    path: `$.vector_index[${i}]`,
    root: {
      op: 'create_index',
      path: `$.vector_index[${i}]`,
      spec: {
        kind: 'node_vector',
        label,
        property: 'data',
        dimension,
        metric: 'cosine',
        tenant_property: null,
        ...query.needs.vectorIndex,
      },
      if_not_exists: true,
      any_build_parameters: true,
    } as unknown as Extract<Entry, { kind: 'query' }>['root'],
  }));
}
