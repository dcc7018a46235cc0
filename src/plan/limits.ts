/**
 * Documented limits that keep one request from exhausting memory or hanging the server
 * (docs/queries.md "Limits"). Exceeding one is 400 `limit_exceeded`.
 */
export const LIMITS = {
  /** Default execution budget of one query, ms (configurable: --query-timeout-ms). */
  defaultQueryTimeoutMs: 30_000,
  /**
   * Operations nested inside one another (input chains plus sub-traversals). JSON nesting
   * (255 levels, src/core/json.ts) allows about 125 chained operations, so this one is reachable.
   */
  maxPlanDepth: 100,
  /** Entries of a batch, for_each bodies included. */
  maxEntries: 10_000,
  /** Operations, predicates and expressions of one request together. */
  maxPlanParts: 100_000,
  /** Branches of one union or coalesce. */
  maxBranches: 1_000,
  /** repeat max_depth and times, and shortest_path max_depth. */
  maxRepeatDepth: 10_000,
  /** Rows or items one operation may hold in memory (sorting, variables, results). */
  maxRowsInMemory: 5_000_000,
  /** Iterations of all for_each loops of a request together. */
  maxLoopIterations: 1_000_000,
  /** UTF-8 bytes of a label or a stored property name (both are index keys). */
  maxLabelBytes: 512,
  /** The widest beam (ef) of a vector search or of an index's `ef_search` (a Trellis extension). */
  maxSearchEf: 10_000,
  /** Characters of one response body (256 Mi). */
  maxResponseChars: 256 * 1024 * 1024,
} as const;
