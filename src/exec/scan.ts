/**
 * Node scans answered from property columns (src/store/columns.ts). A scan is a node
 * source with filters on it: `nodes` all, `nodes_where`, and `where`/`has`/`has_label`/
 * `has_key` over a scan. Its predicates are split into conjuncts; the ones that only
 * compare stored properties (or the label or id) with values known before the scan
 * (constants, parameters) are compiled into per-block loops over the columns, and the
 * rest (dotted paths, arithmetic, comparisons between properties) are evaluated on the
 * records of the rows that pass. The results, row order included, are those of the
 * generic executors: the conformance and model tests run through here.
 *
 * `count` over a scan counts without making rows, and `limit`/`range` over `order_by` over
 * a scan keep a bounded heap of the best rows instead of sorting all of them.
 */
import type { Expr, Order, Predicate } from '../plan/expr.js';
import type { PlanNode } from '../plan/ops.js';
import { walkExprs } from '../plan/exprs.js';
import { bit, chunkValue, type ColumnChunk, type NumChunk, type StrChunk } from '../store/columns.js';
import { SAFE_I64, type Value } from '../core/value.js';
import { compareForPredicate, compareStrings, totalOrder, valueEquals } from './compare.js';
import { Derived, type Exec } from './context.js';
import { evalPredicate } from './eval.js';
import { SLOTS, type LabelView, type ScanBlock } from './label-view.js';
import { NODE, startRow, type Row } from './row.js';
import { indexedCandidates } from './index-scan.js';
import { conjunctsOf, FLIP, isPlainProperty, known, pinnedLabel, type CompareOp } from './conjuncts.js';

/** A node scan found in the plan: every node, filtered by all of `predicates`. */
export interface ScanSpec {
  readonly predicates: readonly Predicate[];
}

/** Scans found in plan nodes: a plan never changes, so a request finds each once. */
const SCANS = new Derived<PlanNode, ScanSpec | null>((node) => findScan(node));

/** Recognises a scan rooted at `node`, or null. */
export function scanOf(x: Exec, node: PlanNode): ScanSpec | null {
  return x.derive(SCANS, node);
}

function findScan(node: PlanNode): ScanSpec | null {
  switch (node.op) {
    case 'nodes':
      return node.reference.kind === 'all' ? { predicates: [] } : null;
    case 'nodes_where':
      return { predicates: [node.predicate] };
    case 'where':
      return extend(node.input, node.predicate);
    case 'has':
      return extend(node.input, hasPredicate(node));
    case 'has_label':
      return extend(node.input, {
        p: 'compare',
        op: 'eq',
        path: node.path,
        left: { e: 'property', name: '$label', path: `${node.path}.label` },
        right: { e: 'constant', value: node.label, path: `${node.path}.label` },
      });
    case 'has_key':
      return extend(node.input, hasKeyPredicate(node));
    default:
      return null;
  }
}

/** `has(property, value)` as the predicate it means: property == value. */
export function hasPredicate(node: Extract<PlanNode, { op: 'has' }>): Predicate {
  return {
    p: 'compare',
    op: 'eq',
    path: node.path,
    left: { e: 'property', name: node.property, path: `${node.path}.property` },
    right: { e: 'constant', value: node.value, path: `${node.path}.value` },
  };
}

export function hasKeyPredicate(node: Extract<PlanNode, { op: 'has_key' }>): Predicate {
  return { p: 'has_key', property: node.property, path: node.path };
}

function extend(input: PlanNode, predicate: Predicate): ScanSpec | null {
  const inner = findScan(input);
  return inner === null ? null : { predicates: [...inner.predicates, predicate] };
}

/**
 * Writes 1 into `out[slot]` for every slot below the block's size where the predicate
 * holds, else 0 (slots past the size hold no node and are never read).
 */
type MaskFn = (block: ScanBlock, out: Uint8Array) => void;

interface Compiled {
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

function compileLabel(x: Exec, op: 'eq' | 'neq', value: Value): Compiled {
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
const takeMask = (): Uint8Array => spareMasks.pop() ?? new Uint8Array(SLOTS);
const giveMask = (mask: Uint8Array): void => void spareMasks.push(mask);

/** Masks are 0/1 bytes; combining them four slots at a time through 32-bit views. */
const WORDS = SLOTS / 4;
const words = (mask: Uint8Array) => new Uint32Array(mask.buffer, mask.byteOffset, WORDS);

function combine(parts: Compiled[], how: 'and' | 'or'): Compiled {
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
function compile(x: Exec, p: Predicate): Compiled | null {
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

/** A scan ready to run: the label a conjunct pins it to, and its other conjuncts. */
interface Prepared {
  readonly label: string | null;
  /** The other conjuncts that compile to column tests, as one; null when there are none. */
  readonly compiled: Compiled | null;
  /** The conjuncts evaluated on records. */
  readonly residual: readonly Predicate[];
}

/** A scan's conjuncts: the pinned label and the rest. */
interface Conjuncts {
  readonly label: string | null;
  readonly rest: readonly Predicate[];
  /** Whether any of the rest reads a parameter (then they are compiled at every run). */
  readonly params: boolean;
}

/** Conjuncts, split once per scan of the plan and request. */
const CONJUNCTS = new Derived<ScanSpec, Conjuncts>((spec) => {
  const conjuncts = conjunctsOf(spec.predicates);
  const pin = conjuncts.findIndex((p) => pinnedLabel(p) !== null);
  const rest = pin < 0 ? conjuncts : conjuncts.filter((_, i) => i !== pin);
  let params = false;
  const note = (e: Expr) => (params ||= e.e === 'param');
  for (const p of rest) walkExprs(p, note, () => {});
  return { label: pin < 0 ? null : pinnedLabel(conjuncts[pin]!), rest, params };
});

/**
 * The conjuncts of a scan, compiled where possible. In a read request, a scan whose
 * conjuncts read no parameter compiles the same at every run (one snapshot, one plan), so
 * it is compiled once.
 */
function prepare(x: Exec, spec: ScanSpec): Prepared {
  const conjuncts = x.derive(CONJUNCTS, spec);
  if (conjuncts.params || x.scans === null) return compileScan(x, conjuncts);
  return x.scans.preparation(spec, () => compileScan(x, conjuncts));
}

function compileScan(x: Exec, { label, rest }: Conjuncts): Prepared {
  const compiled: Compiled[] = [];
  const residual: Predicate[] = [];
  for (const p of rest) {
    const c = compile(x, p);
    if (c === null) residual.push(p);
    else compiled.push(c);
  }
  return { label, compiled: compiled.length === 0 ? null : compiled.length === 1 ? compiled[0]! : combine(compiled, 'and'), residual };
}

/** The properties a scan reads: those of its compiled conjuncts, then `extra` (sort keys). */
function scanProperties(scan: Prepared, extra: readonly string[]): readonly string[] {
  return scan.compiled === null ? extra : union([scan.compiled.properties, extra]);
}

/** The names of the lists, each once, in order of first appearance (lists are short). */
function union(lists: readonly (readonly string[])[]): readonly string[] {
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

/** The gathered nodes of the scan's label, when this read request has them (label-view.ts). */
function viewOf(x: Exec, scan: Prepared, properties: readonly string[]): LabelView | null {
  return scan.label === null || x.scans === null ? null : x.scans.view(scan.label, properties);
}

/**
 * The scan's blocks with the mask of the compiled conjuncts (null: every node passes),
 * ascending: the gathered blocks of `view`, or without one the stored blocks, with the
 * pinned label as one more test. The mask is valid until the next block.
 */
function* candidates(
  x: Exec,
  scan: Prepared,
  properties: readonly string[],
  view: LabelView | null,
): Generator<{ block: ScanBlock; mask: Uint8Array | null }> {
  const mask = takeMask();
  try {
    yield* blocksOf(x, scan, properties, view, mask);
  } finally {
    giveMask(mask);
  }
}

function* blocksOf(
  x: Exec,
  scan: Prepared,
  properties: readonly string[],
  view: LabelView | null,
  mask: Uint8Array,
): Generator<{ block: ScanBlock; mask: Uint8Array | null }> {
  if (view !== null) {
    const compiled = scan.compiled;
    for (const block of view.blocks) {
      // Reading a gathered block calls no store: count it as a stored block counts.
      x.tick();
      if (compiled !== null) compiled.mask(block, mask);
      yield { block, mask: compiled === null ? null : mask };
    }
  } else {
    const pinned = scan.label === null ? null : compileLabel(x, 'eq', scan.label);
    const compiled = pinned === null ? scan.compiled : scan.compiled === null ? pinned : combine([pinned, scan.compiled], 'and');
    const index = new Map(properties.map((p, i) => [p, i]));
    for (const { base, labels, nodes, uniform, columns } of x.store.nodeColumns(properties)) {
      const block: ScanBlock = { base, ids: null, size: SLOTS, labels, nodes, uniform, chunk: (p) => columns[index.get(p)!] ?? null };
      if (compiled !== null) compiled.mask(block, mask);
      yield { block, mask: compiled === null ? null : mask };
    }
  }
}

const passes = (x: Exec, row: Row, residual: readonly Predicate[]) => residual.every((p) => evalPredicate(x, row, p));

/** The rows of candidates from a secondary index (index-scan.ts) that pass every predicate. */
function* indexedRows(x: Exec, spec: ScanSpec, ids: readonly number[]): Generator<Row> {
  for (const id of ids) {
    const row = startRow(NODE, id, x.trackPath);
    if (x.store.hasNode(id) && passes(x, row, spec.predicates)) yield row;
  }
}

/** The scan's rows, lazily. */
export function* scanRows(x: Exec, spec: ScanSpec): Generator<Row> {
  const indexed = indexedCandidates(x, 'node', spec.predicates);
  if (indexed !== null) {
    yield* indexedRows(x, spec, indexed);
    return;
  }
  const scan = prepare(x, spec);
  const { residual } = scan;
  const properties = scanProperties(scan, []);
  for (const { block, mask } of candidates(x, scan, properties, viewOf(x, scan, properties))) {
    const { labels, base, ids, size } = block;
    for (let i = 0; i < size; i++) {
      if (labels[i] === 0 || (mask !== null && mask[i] === 0)) continue;
      const row = startRow(NODE, ids === null ? base + i : ids[i]!, x.trackPath);
      if (residual.length === 0 || passes(x, row, residual)) yield row;
    }
  }
}

/** How many nodes the scan yields, without making rows when no record is needed. */
export function scanCount(x: Exec, spec: ScanSpec): number {
  const indexed = indexedCandidates(x, 'node', spec.predicates);
  if (indexed !== null) {
    let count = 0;
    for (const _row of indexedRows(x, spec, indexed)) count++;
    return count;
  }
  const scan = prepare(x, spec);
  const { residual } = scan;
  const properties = scanProperties(scan, []);
  let n = 0;
  for (const { block, mask } of candidates(x, scan, properties, viewOf(x, scan, properties))) {
    const { nodes, base, ids, size } = block;
    if (residual.length === 0) {
      // Bytes are 0 or 1, so a word's byte sum (at most 4) is its top byte after imul;
      // slots past the size hold no node.
      const nodeWords = words(nodes);
      const used = (size + 3) >> 2;
      if (mask === null) for (let i = 0; i < used; i++) n += Math.imul(nodeWords[i]!, 0x01010101) >>> 24;
      else {
        const maskWords = words(mask);
        for (let i = 0; i < used; i++) n += Math.imul(nodeWords[i]! & maskWords[i]!, 0x01010101) >>> 24;
      }
      continue;
    }
    for (let i = 0; i < size; i++) {
      if (nodes[i] === 0 || (mask !== null && mask[i] === 0)) continue;
      if (passes(x, startRow(NODE, ids === null ? base + i : ids[i]!, false), residual)) n++;
    }
  }
  return n;
}

/** Pages ending past this many rows are cut from a sorted copy of the keys, not a heap. */
const DEEP_PAGE = 64;

/**
 * Rows [start, end) ordered by one key whose stored values are all numbers, for pages deep
 * enough that a heap of objects would cost more than sorting plain numbers: the keys are
 * gathered into typed arrays, a selection finds the value at the page's end, and only the
 * rows up to it are sorted. The order is order_by's: missing values first ascending and
 * last descending, NaN above every number, ties by id. Null when a chunk is not numeric.
 */
function numericPage(
  x: Exec,
  scan: Prepared,
  view: LabelView | null,
  key: string,
  order: Order,
  start: number,
  end: number,
  path: string,
): Row[] | null {
  const { residual } = scan;
  let values = new Float64Array(64);
  let ids = new Float64Array(64);
  let n = 0;
  const missing: number[] = [];
  const nan: number[] = [];
  for (const { block, mask } of candidates(x, scan, scanProperties(scan, [key]), view)) {
    const chunk = block.chunk(key);
    if (chunk !== null && chunk.kind !== 'num') return null;
    const { nodes, base, ids: slotIds, size } = block;
    for (let i = 0; i < size; i++) {
      if (nodes[i] === 0 || (mask !== null && mask[i] === 0)) continue;
      const id = slotIds === null ? base + i : slotIds[i]!;
      if (residual.length > 0 && !passes(x, startRow(NODE, id, false), residual)) continue;
      if (chunk === null || i >= chunk.n || !(chunk.dense || bit(chunk.present, i))) {
        missing.push(id);
        continue;
      }
      const v = chunk.values[i]!;
      if (v !== v) {
        nan.push(id);
        continue;
      }
      if (n === values.length) {
        const grownValues = new Float64Array(n * 2);
        grownValues.set(values);
        values = grownValues;
        const grownIds = new Float64Array(n * 2);
        grownIds.set(ids);
        ids = grownIds;
      }
      values[n] = v;
      ids[n++] = id;
    }
    if (end === Infinity) x.checkSize(n + missing.length + nan.length, path);
  }
  const desc = order === 'desc';
  // Groups in output order; each group's ids are ascending already.
  const first = desc ? nan : missing;
  const last = desc ? missing : nan;
  const wanted = Math.min(end, first.length + n + last.length);
  const fromNumbers = Math.max(0, Math.min(n, wanted - first.length));
  const order2 = sortedPrefix(values, ids, n, fromNumbers, desc);
  const all = [...first, ...Array.from(order2, (k) => ids[k]!), ...last];
  return all.slice(start, wanted).map((id) => startRow(NODE, id, x.trackPath));
}

/** Indices of the `take` best of the first `n` (value, id) pairs, in order. */
function sortedPrefix(values: Float64Array, ids: Float64Array, n: number, take: number, desc: boolean): Uint32Array {
  if (take === 0) return new Uint32Array(0);
  // The value at the cut: every pair at least as good as it may be in the prefix.
  const copy = values.slice(0, n);
  const cut = select(copy, desc ? n - take : take - 1);
  const chosen: number[] = [];
  for (let k = 0; k < n; k++) if (desc ? values[k]! >= cut : values[k]! <= cut) chosen.push(k);
  chosen.sort((a, b) => (desc ? values[b]! - values[a]! : values[a]! - values[b]!) || ids[a]! - ids[b]!);
  return Uint32Array.from(chosen.slice(0, take));
}

/** The k-th smallest of `a` (0-based); reorders `a` (Hoare's selection). */
function select(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i++] = a[j]!;
        a[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}

/** A sort key's value in a slot; numbers stay doubles (order is all that matters here). */
function keyValue(chunk: ColumnChunk | null, slot: number): Value | undefined {
  if (chunk === null || slot >= chunk.n || !bit(chunk.present, slot)) return undefined;
  if (chunk.kind === 'num') return chunk.values[slot]!;
  return chunkValue(chunk, slot);
}

interface Candidate {
  readonly id: number;
  readonly keys: (Value | undefined)[];
}

/**
 * order_by's order (bound.ts): missing first ascending, last descending; ties by id. With
 * `missingHigh`, Cypher's: a missing key (null) above every value, so last ascending.
 */
function compareCandidates(orders: readonly Order[], missingHigh = false): (a: Candidate, b: Candidate) => number {
  const low = missingHigh ? 1 : -1;
  return (a, b) => {
    for (let i = 0; i < orders.length; i++) {
      const va = a.keys[i];
      const vb = b.keys[i];
      const c = va === undefined || vb === undefined ? (va === vb ? 0 : va === undefined ? low : -low) : totalOrder(va, vb);
      if (c !== 0) return orders[i] === 'desc' ? -c : c;
    }
    return a.id - b.id;
  };
}

/**
 * The slots of a block that are nodes, pass the scan's mask and may still enter the heap:
 * with a numeric first key, a row whose key is strictly worse than the heap's worst cannot.
 * The threshold may have tightened since; the caller compares the survivors exactly.
 */
function contenders(
  { labels, size }: ScanBlock,
  mask: Uint8Array | null,
  numbers: NumChunk | null,
  threshold: number,
  desc: boolean,
  out: Uint8Array,
): Uint8Array {
  if (numbers === null || threshold !== threshold) {
    if (mask === null) for (let i = 0; i < size; i++) out[i] = labels[i] === 0 ? 0 : 1;
    else for (let i = 0; i < size; i++) out[i] = labels[i] === 0 ? 0 : mask[i]!;
    return out;
  }
  const { values, n, present, dense } = numbers;
  for (let i = 0; i < size; i++) {
    let open = labels[i] === 0 ? 0 : mask === null ? 1 : mask[i]!;
    if (open === 1 && i < n) {
      const v = values[i]!;
      if ((desc ? v < threshold : v > threshold) && (dense || bit(present, i))) open = 0;
    }
    out[i] = open;
  }
  return out;
}

/**
 * With a full heap whose worst row is `root`: closes the open slots that sort after it,
 * deciding from the chunks without building the row. Key by key, over the slots still tied
 * with the root (compareKey), then by id for those tied on every key. A key a chunk cannot
 * decide (missing, NaN, another kind than the root's) leaves the slot open for the exact
 * comparison, as does a slot that sorts before the root.
 */
function closeOutranked(
  open: Uint8Array,
  block: ScanBlock,
  chunks: readonly (ColumnChunk | null)[],
  orders: readonly Order[],
  root: Candidate,
  missingHigh: boolean,
): void {
  const { base, ids, size } = block;
  // The open slots, found a word at a time: after a numeric first key's filter few are left.
  const list = openSlots;
  let count = 0;
  const openWords = words(open);
  for (let w = 0; w < (size + 3) >> 2; w++) {
    if (openWords[w] === 0) continue;
    for (let i = w << 2; i < Math.min(size, (w + 1) << 2); i++) if (open[i] === 1) list[count++] = i;
  }
  if (count === 0) return;
  // Per listed slot: 0 tied with the root so far, 1 after it, -1 before it or undecidable.
  const state = rankState;
  state.fill(0, 0, count);
  for (let j = 0; j < chunks.length; j++) {
    const desc = orders[j] === 'desc';
    compareKey(chunks[j] ?? null, root.keys[j], desc, desc === missingHigh, count, state);
  }
  for (let k = 0; k < count; k++) {
    const s = state[k];
    const i = list[k]!;
    if (s === 1 || (s === 0 && (ids === null ? base + i : ids[i]!) > root.id)) open[i] = 0;
  }
}

const openSlots = new Uint16Array(SLOTS);
const rankState = new Int8Array(SLOTS);

/**
 * For the listed slots still tied (state 0): 1 when the slot's key sorts after `value` in
 * this order, 0 when equal, -1 before or undecidable. `value` undefined is a root without
 * the key: where a missing key sorts first (`missingBest`) a slot holding one sorts after
 * it and a slot without one ties; elsewhere the exact comparison decides.
 */
function compareKey(
  chunk: ColumnChunk | null,
  value: Value | undefined,
  desc: boolean,
  missingBest: boolean,
  count: number,
  state: Int8Array,
): void {
  const list = openSlots;
  const after = desc ? -1 : 1;
  if (value === undefined && missingBest) {
    for (let k = 0; k < count; k++) {
      if (state[k] !== 0) continue;
      const i = list[k]!;
      state[k] = chunk !== null && i < chunk.n && (chunk.dense || bit(chunk.present, i)) ? 1 : 0;
    }
  } else if (chunk !== null && chunk.kind === 'num' && typeof value === 'number' && value === value) {
    const { values, n, present, dense } = chunk;
    for (let k = 0; k < count; k++) {
      if (state[k] !== 0) continue;
      const i = list[k]!;
      const v = i < n && (dense || bit(present, i)) ? values[i]! : NaN;
      state[k] = v < value ? -after : v > value ? after : v === value ? 0 : -1;
    }
  } else if (chunk !== null && chunk.kind === 'str' && typeof value === 'string') {
    const { codes, n, present, dense, dict } = chunk;
    // Few slots: compare their strings; many: decide each distinct string once.
    const byCode = count * 8 < dict.length ? null : stringVerdicts(chunk, value, after);
    for (let k = 0; k < count; k++) {
      if (state[k] !== 0) continue;
      const i = list[k]!;
      if (!(i < n && (dense || bit(present, i)))) state[k] = -1;
      else if (byCode !== null) state[k] = byCode[codes[i]!]!;
      else state[k] = after * Math.sign(compareStrings(dict[codes[i]!]!, value));
    }
  } else for (let k = 0; k < count; k++) if (state[k] === 0) state[k] = -1;
}

let verdictTable = new Int8Array(SLOTS);

/** compareKey's verdict for each dictionary entry of a string chunk: two binary searches over its ranks, then one pass. */
function stringVerdicts(chunk: StrChunk, value: string, after: number): Int8Array {
  const { dict } = chunk;
  const { sorted, rank } = dictRanks(chunk);
  const count = (before: (order: number) => boolean) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (before(compareStrings(dict[sorted[mid]!]!, value))) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  // Ranks below `below` sort before `value`; ranks from `through` on sort after it.
  const below = count((order) => order < 0);
  const through = count((order) => order <= 0);
  // One table at a time is in use: a shared one, since a typed array of more than 64 bytes
  // is allocated outside the JS heap, slowly.
  if (verdictTable.length < dict.length) verdictTable = new Int8Array(dict.length);
  const out = verdictTable;
  for (let c = 0; c < dict.length; c++) {
    const r = rank[c]!;
    out[c] = r < below ? -after : r >= through ? after : 0;
  }
  return out;
}

interface DictRanks {
  /** Dictionary indices in string order. */
  readonly sorted: Uint16Array;
  /** Each dictionary index's place in that order. */
  readonly rank: Uint16Array;
}

/** Per decoded string chunk, which a reader keeps while its version holds. */
const DICT_RANKS = new WeakMap<StrChunk, DictRanks>();

function dictRanks(chunk: StrChunk): DictRanks {
  let ranks = DICT_RANKS.get(chunk);
  if (ranks === undefined) {
    const { dict } = chunk;
    const sorted = Uint16Array.from(dict.keys()).sort((a, b) => compareStrings(dict[a]!, dict[b]!));
    const rank = new Uint16Array(dict.length);
    sorted.forEach((c, r) => (rank[c] = r));
    ranks = { sorted, rank };
    DICT_RANKS.set(chunk, ranks);
  }
  return ranks;
}

/**
 * Whether no row of a block can beat a full heap whose worst row is `root`, by the zone of
 * each key in turn (compareZone): every row loses on the first key whose best in the block
 * is worse than the root's, after tying it on the keys before. Bests tying the root on every
 * key leave it to the ids, row by row. Beyond the first key, this is what lets a few-valued
 * first key (a status) skip blocks.
 */
function blockOutclassed(
  chunks: readonly (ColumnChunk | null)[],
  orders: readonly Order[],
  root: Candidate,
  size: number,
  missingHigh: boolean,
): boolean {
  for (let j = 0; j < chunks.length; j++) {
    const desc = orders[j] === 'desc';
    const order = compareZone(chunks[j] ?? null, root.keys[j], size, desc, desc === missingHigh);
    if (order !== 0) return order > 0;
  }
  return false;
}

/**
 * How the block's best row on one key compares with the root's key `worst`, in the key's
 * order: 1 worse, 0 tied, -1 better or undecidable (NaN, another kind, a general chunk).
 * The best is the zone's end (the smallest value ascending, the largest descending), or a
 * missing key where one sorts first (`missingBest`) and some slot lacks it; a block without
 * the chunk holds the key nowhere.
 */
function compareZone(chunk: ColumnChunk | null, worst: Value | undefined, size: number, desc: boolean, missingBest: boolean): number {
  const full = chunk !== null && chunk.dense && chunk.n === size;
  if (worst === undefined) {
    // The root lacks the key: rows holding it sort after it where a missing key is best, before it elsewhere.
    if (chunk === null) return 0;
    return missingBest ? (full ? 1 : 0) : -1;
  }
  if (chunk === null) return missingBest ? -1 : 1;
  if (missingBest && !full) return -1;
  let order: number;
  if (chunk.kind === 'num' && typeof worst === 'number' && worst === worst && !chunk.hasNaN && chunk.min <= chunk.max) {
    const best = desc ? chunk.max : chunk.min;
    order = best < worst ? -1 : best > worst ? 1 : 0;
  } else if (chunk.kind === 'str' && typeof worst === 'string') {
    const { sorted } = dictRanks(chunk);
    if (sorted.length === 0) return -1;
    order = Math.sign(compareStrings(chunk.dict[sorted[desc ? sorted.length - 1 : 0]!]!, worst));
  } else return -1;
  return desc ? -order : order;
}

/** The k-th best present, non-NaN first key among the open slots, or NaN when fewer exist. */
function kthBest(open: Uint8Array, numbers: NumChunk, k: number, desc: boolean): number {
  // The k best so far, worst first: a value displaces the worst when it is better. (An
  // array: a typed one of more than 64 bytes is allocated outside the JS heap, slowly.)
  const best: number[] = [];
  let size = 0;
  const better = (a: number, b: number) => (desc ? a > b : a < b);
  for (let i = 0; i < numbers.n; i++) {
    const v = numbers.values[i]!;
    if (open[i] !== 1 || v !== v || !(numbers.dense || bit(numbers.present, i))) continue;
    if (size < k) {
      let j = size++;
      while (j > 0 && better(best[j - 1]!, v)) {
        best[j] = best[j - 1]!;
        j--;
      }
      best[j] = v;
    } else if (better(v, best[0]!)) {
      let j = 0;
      while (j + 1 < k && better(v, best[j + 1]!)) {
        best[j] = best[j + 1]!;
        j++;
      }
      best[j] = v;
    }
  }
  return size < k ? NaN : best[0]!;
}

/**
 * Whether every node the scan could yield (every node of its pinned label, or every node)
 * that holds one of `names` holds it as a value of one kind for that name: every one a
 * number other than NaN, or every one a string. Then order_by's order by those keys, with
 * missing keys sorted high (scanTopRows' `missingHigh`), is also Cypher's ORDER BY order:
 * numbers compare by value and strings by compareStrings in both, a missing key is null,
 * ties by id; only NaN, another kind or two kinds under one name (order_by puts numbers
 * first, Cypher strings) would sort differently.
 */
export function scanKeysOfOneKind(x: Exec, spec: ScanSpec, names: readonly string[]): boolean {
  const { label } = prepare(x, spec);
  const labelId = label === null ? null : x.store.labelId(label);
  if (labelId === undefined) return true; // no node has the label: nothing to order
  // Every request of a top-k asks this; a reader answers it once per change of the columns.
  const fact = `keys of one kind:${labelId ?? '*'}:${JSON.stringify(names)}`;
  return x.store.columnsFact(fact, () => keysOfOneKind(x, labelId, names));
}

function keysOfOneKind(x: Exec, labelId: number | null, names: readonly string[]): boolean {
  const counts = (l: number) => l !== 0 && (labelId === null || l === labelId);
  const kinds: ('num' | 'str' | undefined)[] = names.map(() => undefined);
  for (const { labels, uniform, columns } of x.store.nodeColumns(names)) {
    if (labelId !== null && uniform !== 0 && uniform !== labelId) continue; // only other labels' nodes
    for (let k = 0; k < columns.length; k++) {
      const chunk = columns[k] ?? null;
      if (chunk === null) continue; // no node of the block holds the key: nulls
      for (let i = 0; i < chunk.n; i++) {
        if (!counts(labels[i]!) || !bit(chunk.present, i)) continue; // a missing key is null
        const kind = slotKind(chunk, i);
        if (kind === null || (kinds[k] ??= kind) !== kind) return false;
        // The usual block: one kind, present in every slot; the first slot decided it.
        if (chunk.kind === kind && chunk.dense && !(kind === 'num' && (chunk as NumChunk).hasNaN)) break;
      }
    }
  }
  return true;
}

/**
 * The kind of a present key for scanKeysOfOneKind: 'num' (an integer or a float other than
 * NaN), 'str', or null for anything else. A general chunk (a block whose nodes hold several
 * kinds under the name) is read value by value.
 */
function slotKind(chunk: ColumnChunk, slot: number): 'num' | 'str' | null {
  if (chunk.kind === 'num') return Number.isNaN(chunk.values[slot]) ? null : 'num';
  if (chunk.kind === 'str') return 'str';
  const v = chunk.values[slot];
  if (typeof v === 'string') return 'str';
  return typeof v === 'bigint' || (typeof v === 'number' && !Number.isNaN(v)) ? 'num' : null;
}

/**
 * Rows [start, end) of the scan sorted by `keys`, keeping only the best `end` in a heap
 * (`end` may be Infinity: the whole scan sorted, within the in-memory row limit, reported
 * at `path`); null when a key is not a plain property (the generic sort handles it).
 */
export function scanTopRows(
  x: Exec,
  spec: ScanSpec,
  keys: readonly (readonly [string, Order])[],
  start: number,
  end: number,
  path: string,
  /** Sort a missing key above every value (Cypher's nulls) rather than below (order_by's). */
  missingHigh = false,
): Row[] | null {
  const { names, key } = x.derive(SORTS, keys);
  if (names === null) return null;
  if (end <= start) return [];
  const scan = prepare(x, spec);
  const { residual } = scan;
  const properties = scanProperties(scan, names);
  const view = viewOf(x, scan, properties);
  // The view's order and the deep-page copy sort missing keys as order_by does.
  if (view !== null && residual.length === 0 && !missingHigh) return walkOrder(x, scan, view, keys, key, start, end, path);
  if (end > DEEP_PAGE && keys.length === 1 && !missingHigh) {
    const page = numericPage(x, scan, view, keys[0]![0], keys[0]![1], start, end, path);
    if (page !== null) return page;
  }
  const orders = keys.map(([, o]) => o);
  const cmp = compareCandidates(orders, missingHigh);
  // A max-heap under cmp: the root is the worst of the best `end` so far.
  const heap: Candidate[] = [];
  const worse = (i: number, j: number) => cmp(heap[i]!, heap[j]!) > 0;
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j]!, heap[i]!]);
  const up = (i: number) => {
    while (i > 0 && worse(i, (i - 1) >> 1)) {
      swap(i, (i - 1) >> 1);
      i = (i - 1) >> 1;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(l, m)) m = l;
      if (r < heap.length && worse(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  const desc = keys[0]![1] === 'desc';
  const scratch = takeMask();
  for (const { block, mask } of candidates(x, scan, properties, view)) {
    const { base, ids, size } = block;
    const chunks = names.map((k) => block.chunk(k));
    const first = chunks[0] ?? null;
    // Once the heap is full most rows lose on the first key alone: a block whose zones say
    // none can win is passed over, and in the others the keys are decided from the chunks
    // before a row's keys are built. Every block is judged against the heap's worst row as
    // the block starts (it only tightens while the block runs; survivors compare exactly).
    const root = heap.length === end ? heap[0]! : null;
    if (root !== null && blockOutclassed(chunks, orders, root, size, missingHigh)) continue;
    const worst = root?.keys[0];
    const threshold = typeof worst === 'number' ? worst : NaN;
    const numbers = first !== null && first.kind === 'num' ? first : null;
    let open = contenders(block, mask, numbers, threshold, desc, scratch);
    // Until the heap is full there is no threshold; the block's own k-th best first key is
    // one (k rows at least as good exist, when no record predicate can still drop them),
    // so the first block is not read row by row.
    if (root === null && numbers !== null && residual.length === 0 && end <= SLOTS) {
      const own = kthBest(open, numbers, end, desc);
      if (own === own) open = contenders(block, mask, numbers, own, desc, scratch);
    }
    if (root !== null) closeOutranked(open, block, chunks, orders, root, missingHigh);
    // Four slots at a time: once the heap is full, most blocks leave none open.
    const openWords = words(open);
    for (let i = 0; i < size; i++) {
      if ((i & 3) === 0 && openWords[i >> 2] === 0) {
        i += 3;
        continue;
      }
      if (open[i] === 0) continue;
      const candidate: Candidate = { id: ids === null ? base + i : ids[i]!, keys: chunks.map((c) => keyValue(c, i)) };
      if (heap.length === end && cmp(candidate, heap[0]!) >= 0) continue;
      if (residual.length > 0 && !passes(x, startRow(NODE, candidate.id, false), residual)) continue;
      if (heap.length < end) {
        if (heap.push(candidate) % 65536 === 0) x.checkSize(heap.length, path);
        up(heap.length - 1);
      } else {
        heap[0] = candidate;
        down(0);
      }
    }
  }
  giveMask(scratch);
  return heap
    .sort(cmp)
    .slice(start)
    .map((c) => startRow(NODE, c.id, x.trackPath));
}

/**
 * Rows [start, end) of a scan over a label view with no record predicate: the view's
 * order by `keys` (made once per request and view) walked from the front, keeping the
 * rows that pass the compiled conjuncts, so a sorted page costs no comparison at all.
 */
function walkOrder(
  x: Exec,
  scan: Prepared,
  view: LabelView,
  keys: readonly (readonly [string, Order])[],
  key: string,
  start: number,
  end: number,
  path: string,
): Row[] {
  const { blocks } = view;
  const order = view.order(key, () => orderOf(blocks, keys));
  const compiled = scan.compiled;
  // Each block's mask, made when the walk first reaches the block.
  const masks: (Uint8Array | undefined)[] = [];
  const rows: Row[] = [];
  let skipped = 0;
  for (let k = 0; k < order.length && rows.length < end - start; k++) {
    // The walk calls no store: every 1024 rows count as a stored block counts.
    if ((k & (SLOTS - 1)) === 0) x.tick();
    const at = order[k]!;
    const b = (at / SLOTS) | 0;
    const slot = at % SLOTS;
    const block = blocks[b]!;
    if (compiled !== null) {
      let mask = masks[b];
      if (mask === undefined) {
        mask = masks[b] = takeMask();
        compiled.mask(block, mask);
      }
      if (mask[slot] === 0) continue;
    }
    if (skipped < start) {
      skipped++;
      continue;
    }
    if (rows.push(startRow(NODE, block.ids![slot]!, x.trackPath)) % 65536 === 0) x.checkSize(rows.length, path);
  }
  for (const mask of masks) if (mask !== undefined) giveMask(mask);
  return rows;
}

/** What a sort's keys come to: their names (null when one is not a plain property) and their text. */
interface SortOf {
  readonly names: readonly string[] | null;
  readonly key: string;
}

/** Per keys array (each sort of a plan has one: bound.ts), made once per request. */
const SORTS = new Derived<readonly (readonly [string, Order])[], SortOf>((keys) => ({
  names: keys.every(([k]) => isPlainProperty(k)) ? keys.map(([k]) => k) : null,
  key: JSON.stringify(keys),
}));

/** The nodes of gathered blocks in order_by's order by `keys`, as block * SLOTS + slot. */
function orderOf(blocks: readonly ScanBlock[], keys: readonly (readonly [string, Order])[]): Uint32Array {
  const all: (Candidate & { at: number })[] = [];
  blocks.forEach((block, b) => {
    const chunks = keys.map(([k]) => block.chunk(k));
    for (let i = 0; i < block.size; i++) all.push({ id: block.ids![i]!, keys: chunks.map((c) => keyValue(c, i)), at: b * SLOTS + i });
  });
  all.sort(compareCandidates(keys.map(([, o]) => o)));
  return Uint32Array.from(all, (c) => c.at);
}
