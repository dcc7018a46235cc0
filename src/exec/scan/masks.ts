/**
 * Predicate masks: the conjuncts of a scan that only compare stored properties (or the
 * label or id) with values known before the scan (constants, parameters), compiled into
 * loops over a block's column chunks that write 1 for every slot that passes. The rest
 * (dotted paths, arithmetic, comparisons between properties) are evaluated on records.
 */
import type { Predicate } from '../../plan/expr.js';
import { bit, chunkValue } from '../../store/index.js';
import { SAFE_I64, type Value } from '../../core/value.js';
import { compareForPredicate, valueEquals } from '../compare.js';
import type { Exec } from '../context.js';
import { evalPredicate } from '../eval.js';
import { SLOTS, type ScanBlock } from './label-view.js';
import { NODE, startRow } from '../row.js';
import { FLIP, isPlainProperty, known, type CompareOp } from './conjuncts.js';

/**
 * Writes 1 into `out[slot]` for every slot below the block's size where the predicate
 * holds, else 0 (slots past the size hold no node and are never read).
 */
type MaskFn = (block: ScanBlock, out: Uint8Array) => void;

export interface Compiled {
  /** The stored properties the mask reads, each once. */
  readonly properties: readonly string[];
  readonly mask: MaskFn;
}

/** A comparison of a double with a known number, as a tight loop over a chunk. */
interface NumberCompare {
  readonly op: CompareOp;
  readonly c: number;
}

/** out[i] = values[i] op c for the n slots (absent slots are fixed by the caller). */
function compareNumbers(values: Float64Array, n: number, { op, c }: NumberCompare, out: Uint8Array): void {
  switch (op) {
    case 'eq':
      for (let i = 0; i < n; i++) out[i] = values[i] === c ? 1 : 0;
      return;
    case 'neq':
      for (let i = 0; i < n; i++) out[i] = values[i] !== c ? 1 : 0;
      return;
    case 'gt':
      for (let i = 0; i < n; i++) out[i] = values[i]! > c ? 1 : 0;
      return;
    case 'gte':
      for (let i = 0; i < n; i++) out[i] = values[i]! >= c ? 1 : 0;
      return;
    case 'lt':
      for (let i = 0; i < n; i++) out[i] = values[i]! < c ? 1 : 0;
      return;
    case 'lte':
      for (let i = 0; i < n; i++) out[i] = values[i]! <= c ? 1 : 0;
      return;
  }
}

/**
 * Fills `out` with test(value of each slot). Strings are tested once per distinct value of
 * the chunk, numbers compared in a tight loop when the test is a numeric comparison, and
 * anything else value by value.
 */
function slotTest(property: string, test: (v: Value | undefined) => boolean, numbers?: NumberCompare): Compiled {
  return {
    properties: [property],
    mask(view, out) {
      const chunk = view.chunk(property);
      const size = view.size;
      const absent = test(undefined) ? 1 : 0;
      if (chunk === null) {
        out.fill(absent, 0, size);
        return;
      }
      const n = chunk.n;
      if (chunk.kind === 'str') {
        const byCode = Uint8Array.from(chunk.dict, (s) => (test(s) ? 1 : 0));
        const codes = chunk.codes;
        for (let i = 0; i < n; i++) out[i] = byCode[codes[i]!]!;
      } else if (chunk.kind === 'num' && numbers !== undefined) {
        compareNumbers(chunk.values, n, numbers, out);
      } else {
        for (let i = 0; i < n; i++) out[i] = test(chunkValue(chunk, i)) ? 1 : 0;
      }
      if (!chunk.dense) for (let i = 0; i < n; i++) if (!bit(chunk.present, i)) out[i] = absent;
      out.fill(absent, n, size);
    },
  };
}

const constant = (holds: boolean): Compiled => ({ properties: [], mask: (v, out) => void out.fill(holds ? 1 : 0, 0, v.size) });

/** The predicate semantics of eval.ts on one value (a missing property reads as null). */
function compareTest(op: CompareOp, c: Value): (v: Value | undefined) => boolean {
  if (op === 'eq') return (v) => valueEquals(v ?? null, c);
  if (op === 'neq') return (v) => !valueEquals(v ?? null, c);
  return (v) => {
    const r = compareForPredicate(v ?? null, c);
    return r !== null && (op === 'gt' ? r > 0 : op === 'gte' ? r >= 0 : op === 'lt' ? r < 0 : r <= 0);
  };
}

/** The comparison as one on doubles, when `c` is a number exactly representable as one. */
function numberCompare(op: CompareOp, c: Value): NumberCompare | undefined {
  if (typeof c === 'number') return Number.isNaN(c) ? undefined : { op, c };
  if (typeof c === 'bigint' && c >= -SAFE_I64 && c <= SAFE_I64) return { op, c: Number(c) };
  return undefined;
}

function compileCompare(x: Exec, p: Extract<Predicate, { p: 'compare' }>): Compiled | null {
  let property: string;
  let op: CompareOp = p.op;
  let c: { value: Value } | null;
  if (p.left.e === 'property' && (c = known(x, p.right)) !== null) property = p.left.name;
  else if (p.right.e === 'property' && (c = known(x, p.left)) !== null) {
    property = p.right.name;
    op = FLIP[op];
  } else return null;
  const value = c.value;
  if (property === '$label') return op === 'eq' || op === 'neq' ? compileLabel(x, op, value) : null;
  if (property === '$id') {
    const numbers = numberCompare(op, value);
    if (numbers === undefined) return null;
    let stored: Float64Array | undefined;
    return {
      properties: [],
      mask(view, out) {
        const { ids, base, size } = view;
        if (ids === null) {
          stored ??= new Float64Array(SLOTS);
          for (let i = 0; i < SLOTS; i++) stored[i] = base + i;
        }
        compareNumbers(ids ?? stored!, size, numbers, out);
      },
    };
  }
  if (!isPlainProperty(property)) return null;
  return slotTest(property, compareTest(op, value), numberCompare(op, value));
}

export function compileLabel(x: Exec, op: 'eq' | 'neq', value: Value): Compiled {
  // A node without a label (D22) is stored with '' and reads as null (eval.ts labelValue), so
  // null picks those nodes and '' picks none, as on the row path.
  const labelId = value === null ? x.store.labelId('') : typeof value === 'string' && value !== '' ? x.store.labelId(value) : undefined;
  const match = op === 'eq' ? 1 : 0;
  return {
    properties: [],
    mask(view, out) {
      const { labels, uniform, size } = view;
      // Most blocks hold one label: then the answer is the same for every slot.
      if (uniform !== 0) out.fill(uniform === labelId ? match : 1 - match, 0, size);
      else for (let i = 0; i < size; i++) out[i] = labels[i] === labelId ? match : 1 - match;
    },
  };
}

function compileStringTest(x: Exec, p: Extract<Predicate, { p: 'starts_with' | 'ends_with' | 'contains' }>): Compiled | null {
  const arg = known(x, p.arg);
  if (p.value.e !== 'property' || !isPlainProperty(p.value.name) || arg === null) return null;
  const s = arg.value;
  const holds = (v: Value | undefined) =>
    typeof v === 'string' &&
    typeof s === 'string' &&
    (p.p === 'starts_with' ? v.startsWith(s) : p.p === 'ends_with' ? v.endsWith(s) : v.includes(s));
  return slotTest(p.value.name, holds);
}

function compileKey(x: Exec, p: Extract<Predicate, { p: 'has_key' | 'is_null' | 'is_not_null' }>): Compiled | null {
  if (p.property === '$label' && p.p !== 'has_key') return compileLabel(x, p.p === 'is_null' ? 'eq' : 'neq', null);
  if (p.property === '$id' || p.property === '$label') return constant(p.p !== 'is_null');
  if (!isPlainProperty(p.property)) return null;
  if (p.p === 'has_key') return slotTest(p.property, (v) => v !== undefined);
  if (p.p === 'is_null') return slotTest(p.property, (v) => (v ?? null) === null);
  return slotTest(p.property, (v) => (v ?? null) !== null);
}

/**
 * Spare masks. A 1024-byte typed array lives outside the JS heap, and allocating one costs
 * more than a scan of a small gathered block, so scans take masks from here and give them
 * back (a mask a throw leaves out is merely garbage).
 */
const spareMasks: Uint8Array[] = [];
export const takeMask = (): Uint8Array => spareMasks.pop() ?? new Uint8Array(SLOTS);
export const giveMask = (mask: Uint8Array): void => void spareMasks.push(mask);

/** Masks are 0/1 bytes; combining them four slots at a time through 32-bit views. */
export const WORDS = SLOTS / 4;
export const words = (mask: Uint8Array) => new Uint32Array(mask.buffer, mask.byteOffset, WORDS);

export function combine(parts: Compiled[], how: 'and' | 'or'): Compiled {
  const properties = union(parts.map((c) => c.properties));
  return {
    properties,
    mask(view, out) {
      parts[0]!.mask(view, out);
      const scratch = takeMask();
      const outWords = words(out);
      const scratchWords = words(scratch);
      const used = (view.size + 3) >> 2;
      for (let k = 1; k < parts.length; k++) {
        parts[k]!.mask(view, scratch);
        if (how === 'and') for (let i = 0; i < used; i++) outWords[i]! &= scratchWords[i]!;
        else for (let i = 0; i < used; i++) outWords[i]! |= scratchWords[i]!;
      }
      giveMask(scratch);
    },
  };
}

/** A column form of the predicate, or null when it needs records. */
export function compile(x: Exec, p: Predicate): Compiled | null {
  switch (p.p) {
    case 'compare':
      return compileCompare(x, p);
    case 'between': {
      const lo = compile(x, { p: 'compare', op: 'gte', left: p.value, right: p.min, path: p.path });
      const hi = compile(x, { p: 'compare', op: 'lte', left: p.value, right: p.max, path: p.path });
      return lo && hi && combine([lo, hi], 'and');
    }
    case 'has_key':
    case 'is_null':
    case 'is_not_null':
      return compileKey(x, p);
    case 'starts_with':
    case 'ends_with':
    case 'contains':
      return compileStringTest(x, p);
    case 'is_in': {
      const list = known(x, p.values);
      if (p.value.e !== 'property' || !isPlainProperty(p.value.name) || list === null) return null;
      const row = startRow(NODE, 0, false);
      const probe = (v: Value | undefined) =>
        evalPredicate(x, row, {
          ...p,
          value: { e: 'constant', value: v ?? null, path: p.path },
          values: { e: 'constant', value: list.value, path: p.path },
        });
      return slotTest(p.value.name, probe);
    }
    case 'and':
    case 'or': {
      const parts = p.predicates.map((q) => compile(x, q));
      return parts.every((c): c is Compiled => c !== null) ? combine(parts, p.p) : null;
    }
    case 'not': {
      const inner = compile(x, p.predicate);
      return (
        inner && {
          properties: inner.properties,
          mask: (view, out) => {
            inner.mask(view, out);
            for (let i = 0; i < view.size; i++) out[i] = 1 - out[i]!;
          },
        }
      );
    }
  }
}

/** The names of the lists, each once, in order of first appearance (lists are short). */
export function union(lists: readonly (readonly string[])[]): readonly string[] {
  const [first, ...rest] = lists;
  let out: string[] | null = null;
  for (const list of rest) {
    for (const name of list) {
      if ((out ?? first!).includes(name)) continue;
      (out ??= [...first!]).push(name);
    }
  }
  return out ?? first ?? [];
}
