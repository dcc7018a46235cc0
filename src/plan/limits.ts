/**
 * Documented limits that keep one request from exhausting memory or hanging the server
 * (docs/queries.md "Limits"). Exceeding one is 400 `limit_exceeded`.
 */
export const LIMITS = {
  /** Operations nested inside one another (input chains plus sub-traversals). */
  maxPlanDepth: 512,
  /** repeat max_depth and times, and shortest_path max_depth. */
  maxRepeatDepth: 10_000,
  /** Rows or items one operation may hold in memory (sorting, variables, results). */
  maxRowsInMemory: 5_000_000,
  /** Iterations of all for_each loops of a request together. */
  maxLoopIterations: 1_000_000,
} as const;
