/**
 * A value as a delta against its previous version (the change log's patches,
 * change-log.ts). Most write batches rewrite a few large values to change a few bytes of
 * each: a column chunk of 1024 slots gains one value (its header counts change, a slot is
 * set, a string chunk's dictionary grows by one word and everything after the insertion
 * moves), an adjacency block gains one pair. A delta says how to build the new value from
 * the old one:
 *
 *   [u32 new length][u32 op count], then per op
 *   - copy:    [u8 1][u32 length][u32 offset in the old value]
 *   - literal: [u8 0][u32 length][bytes]
 *
 * in order, covering the new value exactly. The encoder is greedy: it follows the old value
 * at the current shift (new offset less old offset) and, where that stops matching, looks
 * for the shift that matches again among the ones such edits make: no shift, the length
 * difference, and small steps around the current one (an inserted slot or dictionary
 * entry). What it cannot match goes as literal bytes. It gives up (the caller records the
 * value whole) once the delta would pass the caller's budget.
 */

import { ByteMismatch } from './byte-mismatch.js';

const COPY = 1;
const LITERAL = 0;
const OP_HEADER = 1 + 4;
const COPY_OP = OP_HEADER + 4;
/** Bytes that must match at a shift before a copy is taken (a copy op costs 9 bytes). */
const MIN_MATCH = 12;
/** Changed bytes in place up to this long are found by looking ahead at the same shift. */
const SUBSTITUTION = 24;
/** How far around the current shift a new one is looked for (bytes each way). */
const SHIFT_STEPS = 16;

/** This thread's staging of a value pair for the searches of the longest matches (made at the first delta). */
let staging: ByteMismatch | null = null;

function matches(prev: Uint8Array, next: Uint8Array, pos: number, shift: number, prevLength: number): boolean {
  const src = pos - shift;
  if (src < 0 || src + MIN_MATCH > prevLength || pos + MIN_MATCH > next.length) return false;
  for (let k = 0; k < MIN_MATCH; k++) if (prev[src + k] !== next[pos + k]) return false;
  return true;
}

/** Where, within SUBSTITUTION bytes after `pos`, `next` matches `prev` again at `shift`; -1 if nowhere. */
function resumeAt(prev: Uint8Array, next: Uint8Array, pos: number, shift: number, prevLength: number): number {
  for (let k = 1; k <= SUBSTITUTION; k++) if (matches(prev, next, pos + k, shift, prevLength)) return pos + k;
  return -1;
}

/** Another shift than `shift` (which the caller found not matching) at which `next` from `pos` matches `prev`, or NaN. */
function findShift(prev: Uint8Array, next: Uint8Array, pos: number, shift: number, prevLength: number): number {
  if (shift !== 0 && matches(prev, next, pos, 0, prevLength)) return 0;
  const grown = next.length - prevLength;
  if (grown !== shift && grown !== 0 && matches(prev, next, pos, grown, prevLength)) return grown;
  for (let step = 1; step <= SHIFT_STEPS; step++) {
    if (matches(prev, next, pos, shift + step, prevLength)) return shift + step;
    if (matches(prev, next, pos, shift - step, prevLength)) return shift - step;
  }
  return NaN;
}

/**
 * Writes the delta from `prev` (its first `prevLength` bytes: lmdb-js's shared read buffer
 * is longer than its value) to `next` into `out` at `at`; returns where it ends, or -1 when
 * it would pass `limit` (an offset in `out`, which has room up to it).
 */
export function encodeDelta(prev: Uint8Array, prevLength: number, next: Uint8Array, out: Buffer, at: number, limit: number): number {
  const n = next.length;
  const staged = (staging ??= new ByteMismatch());
  staged.stage(prev, prevLength, next);
  const head = at;
  at += 8;
  let ops = 0;
  let shift = 0;
  let pos = 0;
  let literalFrom = 0;
  const literal = (end: number): boolean => {
    const length = end - literalFrom;
    if (length === 0) return true;
    if (at + OP_HEADER + length > limit) return false;
    out[at] = LITERAL;
    out.writeUInt32LE(length, at + 1);
    out.set(next.subarray(literalFrom, end), at + OP_HEADER);
    at += OP_HEADER + length;
    ops++;
    return true;
  };
  // Fewer than MIN_MATCH bytes left match nothing: they go as the last literal at once (a
  // value grown at its end would otherwise try every shift at each of its new bytes).
  while (pos + MIN_MATCH <= n) {
    let found = shift;
    if (!matches(prev, next, pos, shift, prevLength)) {
      // Bytes changed in place (a count, a version, a slot): the same shift matches again
      // a few bytes on. Else look for another shift here, and else take the byte as literal.
      const resume = resumeAt(prev, next, pos, shift, prevLength);
      if (resume > pos) {
        pos = resume;
        continue;
      }
      found = findShift(prev, next, pos, shift, prevLength);
      if (Number.isNaN(found)) {
        pos++;
        continue;
      }
    }
    const src = pos - found;
    const end = pos + MIN_MATCH + staged.matchLength(src + MIN_MATCH, pos + MIN_MATCH, Math.min(n - pos, prevLength - src) - MIN_MATCH);
    if (!literal(pos) || at + COPY_OP > limit) return -1;
    out[at] = COPY;
    out.writeUInt32LE(end - pos, at + 1);
    out.writeUInt32LE(src, at + OP_HEADER);
    at += COPY_OP;
    ops++;
    shift = found;
    pos = end;
    literalFrom = end;
  }
  if (!literal(n)) return -1;
  out.writeUInt32LE(n, head);
  out.writeUInt32LE(ops, head + 4);
  return at;
}

/** The value a delta makes of `prev`; throws (naming `where`) when they do not fit together. */
export function applyDelta(prev: Uint8Array, delta: Uint8Array, where: string): Buffer {
  const bad = (why: string) => new Error(`${where}: ${why}`);
  const d = Buffer.from(delta.buffer, delta.byteOffset, delta.byteLength);
  if (d.length < 8) throw bad('the delta is truncated');
  const length = d.readUInt32LE(0);
  const ops = d.readUInt32LE(4);
  const out = Buffer.allocUnsafe(length);
  let pos = 0;
  let at = 8;
  for (let i = 0; i < ops; i++) {
    if (at + OP_HEADER > d.length) throw bad('the delta is truncated');
    const kind = d[at];
    const size = d.readUInt32LE(at + 1);
    if (pos + size > length) throw bad('the delta writes past the new length');
    if (kind === COPY) {
      if (at + COPY_OP > d.length) throw bad('the delta is truncated');
      const src = d.readUInt32LE(at + OP_HEADER);
      if (src + size > prev.length) throw bad(`the delta copies bytes ${src}..${src + size} of a value of ${prev.length}`);
      out.set(prev.subarray(src, src + size), pos);
      at += COPY_OP;
    } else if (kind === LITERAL) {
      if (at + OP_HEADER + size > d.length) throw bad('the delta is truncated');
      out.set(d.subarray(at + OP_HEADER, at + OP_HEADER + size), pos);
      at += OP_HEADER + size;
    } else {
      throw bad(`the delta has an op of kind ${kind}`);
    }
    pos += size;
  }
  if (at !== d.length || pos !== length) throw bad('the delta does not cover the new value exactly');
  return out;
}
