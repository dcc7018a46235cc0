/**
 * How a named query of the query language (src/hql) shows its returned values: the
 * response format of a batch compiled from a `.hx` query (DECISIONS D16, D17). The batch
 * carries it (Batch.format), so whichever thread runs the batch, a read worker or the
 * writer, writes the named-query response itself (src/exec/hql-encode.ts).
 */

/** Whole elements as the language shows them: id, label (edges: from_node, to_node), then the declared fields in order. */
export interface HqlElement {
  readonly kind: 'node' | 'edge';
  readonly fields: readonly string[];
}

/** How one returned value is shown. */
export interface HqlShow {
  /** one: the first item or null; list: the items; count: the number. */
  readonly unwrap: 'one' | 'list' | 'count';
  /** A property access (`::{name}`, `::ID`): each object shown as the value of this key. */
  readonly pluck: string | null;
  /**
   * Projected fields holding a nested property access (`posts: _::Out<Wrote>::{title}`):
   * alias to the key whose bare values are shown (the executor gives one-key objects).
   */
  readonly nested: Readonly<Record<string, string>> | null;
  /** The value is a stream of elements, shown whole (read from the store as the response is written). */
  readonly element: HqlElement | null;
  /** GROUP_BY / AGGREGATE_BY (DECISIONS D17), grouped from the projected rows. */
  readonly group: { readonly properties: readonly string[]; readonly aggregate: boolean } | null;
}

export interface HqlReturn extends HqlShow {
  /** The key of the response object. */
  readonly key: string;
  /** The batch entry whose result is shown, or null for a literal. */
  readonly source: string | null;
  readonly literal: string | bigint | number | boolean | null;
}

export interface HqlFormat {
  readonly kind: 'hql';
  /** The response object's keys in order; null for `RETURN NONE` (the body is `null`). */
  readonly returns: readonly HqlReturn[] | null;
}
