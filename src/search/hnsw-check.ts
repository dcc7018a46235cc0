/**
 * The structural invariant of an HNSW index (hnsw.ts), checked over its whole storage:
 * tests run it after every sequence of inserts and removes, and a database can run it
 * to verify a stored index.
 *
 * - a record has one neighbour list and one inbound list per level 0..level;
 * - every link x→y at level l points to a stored y of level ≥ l, not to x itself, once,
 *   and x is in y.inbound[l];
 * - every inbound entry z of y at level l matches a link z→y at level l;
 * - a list holds at most m links (m0 at level 0), when limits are given;
 * - the entry point is stored, at its recorded level, and that level is the greatest;
 *   there is no entry point exactly when the index is empty.
 */
import type { HnswStorage } from './hnsw.js';

/** Every broken rule found, as sentences; empty when the index is sound. */
export function hnswProblems(storage: HnswStorage, limits?: { m: number; m0: number }): string[] {
  const problems: string[] = [];
  let maxLevel = -1;
  let count = 0;
  for (const id of storage.ids()) {
    count++;
    const r = storage.get(id);
    if (r === undefined) {
      problems.push(`ids() lists ${id} but it is not stored`);
      continue;
    }
    maxLevel = Math.max(maxLevel, r.level);
    if (r.neighbours.length !== r.level + 1 || r.inbound.length !== r.level + 1) {
      problems.push(`${id} has level ${r.level} but ${r.neighbours.length} neighbour and ${r.inbound.length} inbound lists`);
    }
    for (let l = 0; l < r.neighbours.length; l++) {
      const links = r.neighbours[l]!;
      if (new Set(links).size !== links.length) problems.push(`${id} links to an element twice at level ${l}`);
      const max = limits === undefined ? Infinity : l === 0 ? limits.m0 : limits.m;
      if (links.length > max) problems.push(`${id} has ${links.length} links at level ${l}, more than ${max}`);
      for (const y of links) {
        if (y === id) {
          problems.push(`${id} links to itself at level ${l}`);
          continue;
        }
        const yr = storage.get(y);
        if (yr === undefined) problems.push(`${id}→${y} at level ${l}: ${y} is not stored`);
        else if (yr.level < l) problems.push(`${id}→${y} at level ${l}: ${y} has level ${yr.level}`);
        else if (!yr.inbound[l]!.includes(id)) problems.push(`${id}→${y} at level ${l}: ${y}.inbound lacks ${id}`);
      }
    }
    for (let l = 0; l < r.inbound.length; l++) {
      const from = r.inbound[l]!;
      if (new Set(from).size !== from.length) problems.push(`${id} has an inbound entry twice at level ${l}`);
      for (const z of from) {
        const zr = storage.get(z);
        if (zr === undefined) problems.push(`${id}.inbound[${l}] holds ${z}, which is not stored`);
        else if (!(zr.neighbours[l] ?? []).includes(id)) problems.push(`${id}.inbound[${l}] holds ${z}, which has no link to it`);
      }
    }
  }
  const entry = storage.entry();
  if (count === 0) {
    if (entry !== undefined) problems.push(`the index is empty but its entry point is ${entry.id}`);
  } else if (entry === undefined) {
    problems.push(`the index holds ${count} elements but has no entry point`);
  } else {
    const er = storage.get(entry.id);
    if (er === undefined) problems.push(`the entry point ${entry.id} is not stored`);
    else if (er.level !== entry.level) problems.push(`the entry point ${entry.id} is recorded at level ${entry.level} but has ${er.level}`);
    else if (er.level !== maxLevel) problems.push(`the entry point ${entry.id} has level ${er.level}, below the greatest ${maxLevel}`);
  }
  return problems;
}
