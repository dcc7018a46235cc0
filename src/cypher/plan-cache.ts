/**
 * Compiled statements by query text, per thread: a statement's plan does not depend on its
 * parameter values, so one compile serves every call of a parameterised query. The cache
 * is a small LRU bounded twice, by entries and by the characters of the texts it keeps (a
 * plan is about as large as its text), and texts longer than a statement anyone repeats
 * are compiled every time. Only successful compiles are kept: a query that fails is
 * compiled again, which costs the same as the first failure.
 *
 * A cached CompiledCypher is shared by every request of that text: plans are plain data
 * that nothing changes once built (plan/table.ts).
 */
import { compileCypher, type CompiledCypher } from './compile.js';

export interface PlanCacheLimits {
  /** Statements kept at most. */
  readonly entries: number;
  /** Characters of query text kept at most, summed over the entries. */
  readonly chars: number;
  /** Texts longer than this are never kept. */
  readonly maxTextChars: number;
}

export const PLAN_CACHE_LIMITS: PlanCacheLimits = { entries: 512, chars: 4 * 1024 * 1024, maxTextChars: 64 * 1024 };

/** An LRU of compiled statements; a Map keeps insertion order, so its first key is the least recently used. */
export class PlanCache {
  private readonly map = new Map<string, CompiledCypher>();
  private chars = 0;
  private hitCount = 0;
  private missCount = 0;

  constructor(
    private readonly compile: (text: string) => CompiledCypher,
    readonly limits: PlanCacheLimits = PLAN_CACHE_LIMITS,
  ) {}

  get(text: string): CompiledCypher {
    const cached = this.map.get(text);
    if (cached !== undefined) {
      this.hitCount++;
      this.map.delete(text);
      this.map.set(text, cached);
      return cached;
    }
    this.missCount++;
    const compiled = this.compile(text);
    this.set(text, compiled);
    return compiled;
  }

  /** Keeps `compiled` as the statement of `text` (what `get` does after compiling; tests seed the cache with it). */
  set(text: string, compiled: CompiledCypher): void {
    if (text.length > this.limits.maxTextChars || this.limits.entries <= 0) return;
    const old = this.map.get(text);
    if (old !== undefined) this.map.delete(text);
    else this.chars += text.length;
    this.map.set(text, compiled);
    while (this.map.size > this.limits.entries || this.chars > this.limits.chars) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
      this.chars -= oldest.length;
    }
  }

  /** What the cache holds and has answered (for tests and diagnostics). */
  stats(): { readonly entries: number; readonly chars: number; readonly hits: number; readonly misses: number } {
    return { entries: this.map.size, chars: this.chars, hits: this.hitCount, misses: this.missCount };
  }

  clear(): void {
    this.map.clear();
    this.chars = 0;
  }
}

/** This thread's cache. */
const threadCache = new PlanCache(compileCypher);

/** A statement compiled, from this thread's cache when its text was compiled before. */
export function compileCached(text: string): CompiledCypher {
  return threadCache.get(text);
}

/** This thread's cache, for tests and diagnostics. */
export function planCache(): PlanCache {
  return threadCache;
}
