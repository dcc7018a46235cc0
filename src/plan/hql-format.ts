/**
 * How a named query of the query language (src/hql) shows its returned values: the
 * response format of a batch compiled from a `.hx` query (DECISIONS D16, D17). The batch
 * carries it (Batch.format), so whichever thread runs the batch, a read worker or the
 * writer, writes the named-query response itself (src/exec/hql-encode.ts).
 */

/**
 * Whole elements as the language shows them: id, label (edges: from_node, to_node; vectors:
 * score, when they come from a search or a reranker), then the declared fields in order.
 */
export interface HqlElement {
  readonly kind: 'node' | 'edge' | 'vector';
  readonly fields: readonly string[];
}

/** GROUP_BY (counts per combination of `properties`) or AGGREGATE_BY (`aggregate`: the rows too). */
export interface HqlGroup {
  readonly properties: readonly string[];
  readonly aggregate: boolean;
}

/**
 * A shortest path (`{nodes, edges, length, weight?}` ids from the executor) shown with its
 * nodes and edges whole, each by the type of its label.
 */
export interface HqlPath {
  readonly types: Readonly<Record<string, HqlElement>>;
}

/** What a nested value is shown as: a property's bare value (its key), a grouping or a path. */
export type HqlNested = string | HqlGroup | HqlPath;

/** How one returned value is shown. */
export interface HqlShow {
  /** one: the first item or null; list: the items; count: the number. */
  readonly unwrap: 'one' | 'list' | 'count';
  /** A property access (`::{name}`, `::ID`): each object shown as the value of this key. */
  readonly pluck: string | null;
  /**
   * Projected fields holding a nested property access (`posts: _::Out<Wrote>::{title}`):
   * alias path to the key whose bare values are shown (the executor gives one-key
   * objects); or a nested grouping (`topics: _::Out<Wrote>::GROUP_BY(topic)`): alias path
   * to the grouping of the projected rows the executor gives; or a nested shortest path
   * (`route: _::ShortestPath<Road>::To(x)`): alias path to the path (or paths) shown whole,
   * null where there is none.
   */
  readonly nested: Readonly<Record<string, HqlNested>> | null;
  /** The value is a stream of elements, shown whole (read from the store as the response is written). */
  readonly element: HqlElement | null;
  /** GROUP_BY / AGGREGATE_BY (DECISIONS D17), grouped from the projected rows. */
  readonly group: HqlGroup | null;
  /**
   * A shortest path (unwrap `one`: none is 404 path_not_found), or the paths from several
   * nodes (unwrap `list`: one per node that has one).
   */
  readonly path: HqlPath | null;
}

/** A value of the response: an entry's result as `show` says, a literal, or an object or array of values. */
export type HqlValue =
  | ({ readonly kind: 'entry'; readonly source: string } & HqlShow)
  | { readonly kind: 'literal'; readonly value: string | bigint | number | boolean | null }
  | { readonly kind: 'object'; readonly fields: readonly HqlField[] }
  | { readonly kind: 'array'; readonly items: readonly HqlValue[] };

export interface HqlField {
  readonly key: string;
  readonly value: HqlValue;
}

export interface HqlFormat {
  readonly kind: 'hql';
  /** The response object's keys in order; null for `RETURN NONE` (the body is `null`). */
  readonly returns: readonly HqlField[] | null;
}
