/**
 * Row scans: a scan's rows, lazily, and its count without making rows. The blocks come
 * from a secondary index's candidates (index-scan.ts), the request's gathered view of the
 * pinned label (label-view.ts) or the stored blocks, each with the mask of the compiled
 * conjuncts (masks.ts); the residual conjuncts are evaluated on the records that pass.
 * The results, row order included, are those of the generic executors: the conformance
 * and model tests run through here.
 */
import type { Expr, Predicate } from '../../plan/expr.js';
import { walkExprs } from '../../plan/expr-walk.js';
import { Derived, type Exec } from '../context.js';
import { evalPredicate } from '../eval.js';
import { SLOTS, type LabelView, type ScanBlock } from './label-view.js';
import { NODE, startRow, type Row } from '../row.js';
import { indexedCandidates } from './index-scan.js';
import { IdSet } from './id-set.js';
import { conjunctsOf, pinnedLabel } from './conjuncts.js';
import type { ScanSpec } from './recognise.js';
import { combine, compile, compileLabel, giveMask, takeMask, union, words, type Compiled } from './masks.js';

/** A scan ready to run: the label a conjunct pins it to, and its other conjuncts. */
export interface Prepared {
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
  // A variable's value, like a parameter's, differs between runs of the same plan.
  const note = (e: Expr) => (params ||= e.e === 'param' || e.e === 'variable');
  for (const p of rest) walkExprs(p, note, () => {});
  return { label: pin < 0 ? null : pinnedLabel(conjuncts[pin]!), rest, params };
});

/**
 * The conjuncts of a scan, compiled where possible. In a read request, a scan whose
 * conjuncts read no parameter compiles the same at every run (one snapshot, one plan), so
 * it is compiled once.
 */
export function prepare(x: Exec, spec: ScanSpec): Prepared {
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
export function scanProperties(scan: Prepared, extra: readonly string[]): readonly string[] {
  return scan.compiled === null ? extra : union([scan.compiled.properties, extra]);
}

/** The gathered nodes of the scan's label, when this read request has them (label-view.ts). */
export function viewOf(x: Exec, scan: Prepared, properties: readonly string[]): LabelView | null {
  return scan.label === null || x.scans === null ? null : x.scans.view(scan.label, properties);
}

/**
 * The scan's blocks with the mask of the compiled conjuncts (null: every node passes),
 * ascending: the gathered blocks of `view`, or without one the stored blocks, with the
 * pinned label as one more test. The mask is valid until the next block.
 */
export function* candidates(
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

export const passes = (x: Exec, row: Row, residual: readonly Predicate[]) => residual.every((p) => evalPredicate(x, row, p));

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

/**
 * The ids of the scan's nodes, ascending, without making a row per node (only for the
 * nodes a residual conjunct must be evaluated on): the candidate set of a `_within`
 * search over a scan (search.ts).
 */
export function scanIds(x: Exec, spec: ScanSpec): IdSet {
  const out = new IdSet();
  const indexed = indexedCandidates(x, 'node', spec.predicates);
  if (indexed !== null) {
    for (const row of indexedRows(x, spec, indexed)) out.push(row.id);
    return out.done();
  }
  const scan = prepare(x, spec);
  const { residual } = scan;
  const properties = scanProperties(scan, []);
  for (const { block, mask } of candidates(x, scan, properties, viewOf(x, scan, properties))) {
    const { labels, base, ids, size } = block;
    if (ids === null && residual.length === 0) {
      out.pushSlots(base, size, labels, mask);
      continue;
    }
    for (let i = 0; i < size; i++) {
      if (labels[i] === 0 || (mask !== null && mask[i] === 0)) continue;
      const id = ids === null ? base + i : ids[i]!;
      if (residual.length === 0 || passes(x, startRow(NODE, id, false), residual)) out.push(id);
    }
  }
  return out.done();
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
