/**
 * The vector builder: a thread of the writable store (vector-builder-client.ts starts it)
 * that turns each native graph's queue into segments (docs/architecture.md, "The vector
 * engine"). It reads the database through a read-only store of its own, never writes it:
 * a finished segment goes to the writer as a request to commit its pointer, which the
 * writer refuses if the graph changed state meanwhile.
 *
 * Per graph it keeps a mutable usearch index in memory, started from the graph's state:
 * empty (`queue`), the segment file (`segment`, its checksum verified), or the stored
 * vectors read by a scan (`scan`, or a segment whose file is lost or corrupt). It applies
 * the queued entries in sequence order (for each element: remove, then add the newest
 * vector), in chunks, with both cores for large ones, and publishes: saves the index to a
 * temporary file, flushes it to disk, renames it to its final name and asks for the
 * commit. A publish rewrites the whole index, so it waits for at least PUBLISH_FACTOR
 * times what the last one cost: saving stays a bounded share of the work however large
 * the index grows, while a graph that is caught up is published within MIN_PUBLISH_MS.
 *
 * A scan reads the elements of an index in chunks, each in a snapshot of its own; the
 * queue entries from the first snapshot's sequence on are then applied too, which covers
 * every change the later snapshots saw or missed (applying an entry twice changes nothing).
 */
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { elementOf } from '../core/index-spec.js';
import { messageOf } from '../core/errors.js';
import { squaredNorm } from '../search/vector-math.js';
import { tenantKey } from './tenant-key.js';
import { NativeIndex, type Quantization } from './native-vectors.js';
import {
  longestFor,
  nativeShape,
  nativeVector,
  tooLong,
  vectorValues,
  type NativeGraph,
  type SegmentCommit,
  type VectorSpec,
} from './vector-index.js';
import {
  encodeSide,
  fileChecksum,
  readSide,
  segmentDir,
  segmentName,
  segmentProblem,
  sideName,
  type GraphPointer,
} from './vector-segments.js';
import { LINK } from './vector-queue.js';
import { syncFile } from './sync-file.js';
import type { GraphReadView } from './graph.js';
import type { VectorIndexes } from './vector-index.js';

/** Queue entries applied per snapshot. */
const APPLY_CHUNK = 4096;
/** Elements a scan reads per snapshot. */
const SCAN_CHUNK = 8192;
/** Vectors added per native call, between two looks at the thread's messages. */
const ADD_CHUNK = 4096;
/**
 * An added element must be among the REACH nearest of its own vector, or it is added once
 * more; one still not found is an orphan, ranked exactly by every search. usearch 2.25
 * leaves about one element in a thousand unreachable on clustered data (hnswlib none on
 * the same data): searches could never return them.
 */
const REACH = 16;
/**
 * The beam and count of the sweep's reach check (sweep): an element not among the
 * SWEEP_REACH nearest of its own vector, found with a beam as wide, is an orphan. Wider
 * than REACH, as an element's reach is judged for searches of about the default beam:
 * in a finished graph of 100k x 128 clustered, 2,376 elements failed a check of 16,
 * 902 of 32, 346 of 64 and 170 of 128 (a pass of 100k checks took 3.3, 5.0, 7.3 and 12.4
 * s on two threads); the check at add time stays at REACH, the cheap first look.
 */
const SWEEP_REACH = 64;
/**
 * Elements the sweep checks per element added, while adds go on: a pass then ends after
 * the graph has grown about 1 / SWEEP_SHARE times over, and an idle builder finishes it.
 * At 1 (as many checked as added) a build of 1M x 128 took 801 s until the queue was
 * empty, against 411 s without the sweep; the check of 64 costs about half an add.
 */
const SWEEP_SHARE = 0.25;
/** Elements a sweep checks for reach per round while the builder has nothing else to do. */
const SWEEP_CHUNK = 4096;
/** A publish waits at least this many times what the last one of its graph cost. */
const PUBLISH_FACTOR = 4;
/** ... and at least this long after the last one (ms). */
const MIN_PUBLISH_MS = 20;
/** After a failure, the builder rests this long before trying again (ms). */
const RETRY_MS = 1000;

/**
 * How a segment stores components: f16 for cosine, whose normalised components are within
 * [-1, 1] (docs/architecture.md: it kept recall and halved the files), f32 for the others,
 * whose components may be far beyond f16's range (65,504).
 */
export const quantizationOf = (spec: VectorSpec): Quantization => (spec.metric === 'cosine' ? 'f16' : 'f32');

/**
 * A graph is rebuilt from the stored vectors once this share of its elements was removed
 * or replaced since it was built (at least CHURN_MIN): usearch leaves links to a removed
 * element's slot in place, and a graph that lost many elements guides searches worse.
 */
const CHURN_SHARE = 0.25;
const CHURN_MIN = 1000;

/** What the builder reads: fresh snapshots of the database (open.ts openVectorSource). */
export interface VectorSource {
  read<T>(fn: (r: GraphReadView, v: VectorIndexes) => T): T;
  close(): Promise<void>;
}

export interface BuilderSettings {
  readonly path: string;
  /** Threads for large adds (the machine's cores). */
  readonly threads: number;
}

/** Messages the store sends the builder. */
export type ToBuilder =
  | { readonly type: 'wake' }
  | { readonly type: 'committed'; readonly graph: number; readonly generation: number }
  | { readonly type: 'refused'; readonly graph: number; readonly generation: number }
  | { readonly type: 'close' };

/** Messages the builder sends the store. */
export type FromBuilder = { readonly type: 'publish'; readonly commit: SegmentCommit } | { readonly type: 'log'; readonly message: string };

/** A graph as the builder holds it. */
interface GraphBuild {
  readonly graph: number;
  readonly def: NativeGraph['def'];
  readonly tenant: string | null;
  readonly index: NativeIndex;
  /** An inner-product graph's M (vector-index.ts nativeShape): 0 for every other graph and for one of the older form. */
  readonly longest: number;
  /** The pointer generation the index started from (or the last one it published). */
  base: number;
  /** The next queue sequence number to apply. */
  next: number;
  /** Deleted elements the index still holds (native-vectors.ts says why). */
  readonly tombstones: Set<number>;
  /** Elements the index cannot reach, with their stored vectors (REACH says why). */
  readonly orphans: Map<number, Float32Array>;
  /**
   * The sweep that checks every element's reach again (sweep): the element id it goes on
   * from, or null when no pass is under way; and whether elements were added since the
   * last pass started (one more pass is due).
   */
  sweepFrom: number | null;
  sweepDue: boolean;
  /** Whether this pass changed the orphans: published when it ends (or with the adds' next publish). */
  sweepChanged: boolean;
  /** Elements deleted or moved since the index was built from scratch. */
  churn: number;
  /** Entries applied, and elements scanned, since the last publish. */
  unpublished: number;
  scanned: number;
  busyMs: number;
  lastPublishAt: number;
  lastPublishCost: number;
  /** A publish waiting for the writer's answer. */
  pending: { generation: number; files: string[]; swept: boolean } | null;
  /** Whether the segment the index is based on says it was swept (GraphPointer.swept). */
  sweptPublished: boolean;
}

/** A graph as one snapshot shows it. */
interface GraphView extends NativeGraph {
  readonly pointer: GraphPointer | undefined;
  /** Its queue's next sequence number, and whether entries are queued. */
  readonly next: number;
  readonly queued: number;
}

const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class VectorBuilder {
  private readonly graphs = new Map<number, GraphBuild>();
  private readonly dir: string;
  private closing = false;
  private woken = false;
  private wake: (() => void) | null = null;
  /** Graphs whose segment file was checked since the builder started, and those found unusable. */
  private readonly verified = new Set<number>();
  private readonly broken = new Set<number>();
  /** Graphs to build again from the stored vectors (too much churn). */
  private readonly rebuild = new Set<number>();

  constructor(
    private readonly source: VectorSource,
    private readonly settings: BuilderSettings,
    private readonly send: (message: FromBuilder) => void,
  ) {
    this.dir = segmentDir(settings.path);
  }

  receive(message: ToBuilder): void {
    switch (message.type) {
      case 'wake':
        break;
      case 'committed': {
        const g = this.graphs.get(message.graph);
        if (g?.pending?.generation === message.generation) this.settle(g, true);
        break;
      }
      case 'refused': {
        const g = this.graphs.get(message.graph);
        if (g?.pending?.generation === message.generation) this.settle(g, false);
        break;
      }
      case 'close':
        this.closing = true;
        break;
    }
    this.woken = true;
    this.wake?.();
  }

  /** The writer answered a publish: the index is now based on it, or starts over. */
  private settle(g: GraphBuild, committed: boolean): void {
    const pending = g.pending!;
    g.pending = null;
    if (committed) {
      g.base = pending.generation;
      g.sweptPublished = pending.swept;
      return;
    }
    for (const file of pending.files) rmSync(file, { force: true });
    this.graphs.delete(g.graph);
  }

  async run(): Promise<void> {
    while (!this.closing) {
      this.woken = false;
      let wait: number;
      try {
        wait = await this.round();
      } catch (err) {
        this.send({ type: 'log', message: `vector builder: ${messageOf(err)}; retrying in ${RETRY_MS} ms` });
        this.graphs.clear();
        wait = RETRY_MS;
      }
      if (this.closing) break;
      if (this.woken) continue;
      await new Promise<void>((resolve) => {
        const timer = wait === Infinity ? null : setTimeout(resolve, wait);
        this.wake = () => {
          if (timer !== null) clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    await this.source.close();
  }

  /** One pass over every graph; answers how long to wait before the next (Infinity: until woken). */
  private async round(): Promise<number> {
    const views = this.source.read((_r, v) =>
      v.nativeGraphs().map((g): GraphView => {
        const state = v.queue.state(g.graph);
        return { ...g, pointer: v.queue.pointer(g.graph), next: state?.next ?? 0, queued: state?.entries ?? 0 };
      }),
    );
    const live = new Set(views.map((v) => v.graph));
    for (const [graph, g] of this.graphs) if (!live.has(graph) && g.pending === null) this.graphs.delete(graph);
    let wait = Infinity;
    const scans = new Map<number, GraphView[]>();
    for (const view of views) {
      if (this.closing) return Infinity;
      const g = this.current(view);
      if (g === null) {
        if (this.needsScan(view)) scans.set(view.def.id, [...(scans.get(view.def.id) ?? []), view]);
        continue;
      }
      if (view.queued > 0 || g.next < view.next) await this.apply(g);
      if (
        this.rebuild.has(g.graph) ||
        (g.pending === null && g.churn > Math.max(CHURN_MIN, CHURN_SHARE * (g.index.size - g.tombstones.size)))
      ) {
        this.graphs.delete(g.graph);
        this.rebuild.add(g.graph);
        scans.set(view.def.id, [...(scans.get(view.def.id) ?? []), view]);
        continue;
      }
      // Idle: the reach sweep goes on by itself until its pass ends (sweep).
      if (view.queued === 0 && (await this.sweep(g, SWEEP_CHUNK))) wait = 0;
      wait = Math.min(wait, this.maybePublish(g));
    }
    for (const group of scans.values()) {
      if (this.closing) return Infinity;
      await this.scan(group);
      wait = 0;
    }
    return wait;
  }

  /**
   * The build of a graph, made current with its pointer: kept while the pointer is the
   * one it is based on (or the one it is publishing), started anew from a `queue` or
   * `segment` pointer; null when the graph needs a scan or has nothing to build.
   */
  private current(view: GraphView): GraphBuild | null {
    const p = view.pointer;
    const g = this.graphs.get(view.graph) ?? null;
    if (g !== null && g.pending !== null && p?.generation === g.pending.generation) this.settle(g, true);
    if (this.rebuild.has(view.graph)) return null;
    if (g !== null && (g.base === (p?.generation ?? 0) || g.pending !== null)) return g;
    if (g !== null) this.graphs.delete(view.graph);
    if (p === undefined || p.state === 'scan') return null;
    if (p.state === 'queue') {
      if (view.queued === 0) return null;
      const spec = view.def.spec as VectorSpec;
      const longest = this.longestOf(view);
      return this.start(
        view,
        p.generation,
        new NativeIndex({ ...nativeShape(spec, longest), quantization: quantizationOf(spec) }),
        longest,
      );
    }
    const path = join(this.dir, segmentName(view.graph, p));
    const full = view.queued > 0 || !this.verified.has(view.graph);
    if (full) {
      this.verified.add(view.graph);
      const problem = segmentProblem(this.dir, view.graph, p, (view.def.spec as VectorSpec).dimension, true);
      if (problem !== null) {
        this.send({ type: 'log', message: `vector segment unusable, rebuilding it from the stored vectors: ${problem}` });
        this.broken.add(view.graph);
        return null;
      }
    }
    // Nothing queued: held only to sweep a segment published before a pass ended (a close cut it short).
    if (view.queued === 0 && p.swept) return null;
    const spec = view.def.spec as VectorSpec;
    const index = new NativeIndex({ ...nativeShape(spec, p.longest), quantization: p.quantization });
    index.load(path);
    const loaded = this.start(view, p.generation, index, p.longest);
    loaded.sweptPublished = p.swept;
    loaded.sweepDue = !p.swept;
    const side = readSide(join(this.dir, sideName(segmentName(view.graph, p))), p, spec.dimension);
    for (const id of side.tombstones) loaded.tombstones.add(id);
    side.orphans.forEach((id, i) => loaded.orphans.set(id, side.vectors[i]!));
    return loaded;
  }

  /** Whether a graph without a build needs a scan: a `scan` pointer, or a segment found unusable. */
  private needsScan(view: GraphView): boolean {
    const p = view.pointer;
    if (p === undefined || p.state === 'scan' || this.rebuild.has(view.graph)) return true;
    return p.state === 'segment' && this.broken.has(view.graph);
  }

  /**
   * The M a new graph of an inner-product index is built with (vector-index.ts nativeShape),
   * from the longest of the copies it keeps, with headroom; 0 (the older form) for other
   * metrics and for a graph of an older database that keeps no copies.
   */
  private longestOf(view: NativeGraph): number {
    const spec = view.def.spec as VectorSpec;
    if (spec.metric !== 'inner_product') return 0;
    return this.source.read((_r, v) => {
      if (!v.queue.hasCopies(view.graph)) return 0;
      let longest = 0;
      for (const { vector } of v.queue.copies(view.graph, spec.dimension)) longest = Math.max(longest, squaredNorm(vector));
      return longestFor(Math.sqrt(longest));
    });
  }

  private start(view: NativeGraph, base: number, index: NativeIndex, longest: number): GraphBuild {
    const g: GraphBuild = {
      graph: view.graph,
      def: view.def,
      tenant: view.tenant,
      index,
      longest,
      base,
      next: 0,
      tombstones: new Set(),
      orphans: new Map(),
      sweepFrom: null,
      sweepDue: false,
      sweepChanged: false,
      sweptPublished: false,
      churn: 0,
      unpublished: 0,
      scanned: 0,
      busyMs: 0,
      lastPublishAt: 0,
      lastPublishCost: 0,
      pending: null,
    };
    this.graphs.set(view.graph, g);
    return g;
  }

  /** Applies the graph's queued entries from its position on, a chunk per snapshot. */
  private async apply(g: GraphBuild): Promise<void> {
    for (;;) {
      const started = performance.now();
      const chunk = this.source.read((_r, v) => [...v.queue.entries(g.graph, g.next, APPLY_CHUNK)]);
      if (chunk.length === 0) return;
      // The newest entry of each element decides. A deleted one becomes a tombstone; a
      // linked one that the index holds is removed and added again with its new vector,
      // which takes its slot back (no saved index may hold a free slot).
      const newest = new Map<number, Float32Array | null>();
      for (const { entry } of chunk) newest.set(entry.id, entry.op === LINK ? entry.vector : null);
      // A vector longer than a lifted graph's M cannot enter it: the graph is built again
      // from the stored vectors with a larger one (run), before anything of the chunk
      // changes it. While a publish is pending, that waits for its answer.
      if (tooLong(g.def.spec as VectorSpec, g.longest, newest.values())) {
        if (g.pending === null) this.rebuild.add(g.graph);
        return;
      }
      const touched = [...newest.keys()];
      const present = g.index.contains(touched);
      const moved: number[] = [];
      const ids: number[] = [];
      const vectors: Float32Array[] = [];
      touched.forEach((id, i) => {
        const v = newest.get(id)!;
        g.orphans.delete(id);
        if (v === null) {
          if (present[i]) g.tombstones.add(id);
          return;
        }
        if (present[i]) moved.push(id);
        g.tombstones.delete(id);
        ids.push(id);
        vectors.push(v);
      });
      g.index.remove(moved);
      await this.addAll(g, ids, vectors);
      g.churn += moved.length + touched.length - ids.length;
      g.next = chunk[chunk.length - 1]!.seq + 1;
      g.unpublished += chunk.length;
      g.busyMs += performance.now() - started;
      if (chunk.length < APPLY_CHUNK || this.closing) return;
    }
  }

  /**
   * Adds elements (none of them in the index) in chunks, with every core, looking at
   * messages in between; those the index cannot reach are added again, and become orphans
   * if it still cannot. The threads are always the same, so the index keeps a context for
   * each (usearch fails a call with more threads than it reserved).
   */
  private async addAll(g: GraphBuild, ids: readonly number[], vectors: readonly Float32Array[]): Promise<void> {
    const spec = g.def.spec as VectorSpec;
    // The native vectors' (a lifted inner product's have one more component).
    const dimension = g.index.shape.dimension;
    const threads = this.settings.threads;
    const flatten = (list: readonly number[], at: (i: number) => Float32Array) => {
      const flat = new Float32Array(list.length * dimension);
      for (let i = 0; i < list.length; i++) flat.set(nativeVector(spec, g.longest, at(i)), i * dimension);
      return flat;
    };
    for (let from = 0; from < ids.length; from += ADD_CHUNK) {
      const chunk = ids.slice(from, Math.min(ids.length, from + ADD_CHUNK));
      const flat = flatten(chunk, (i) => vectors[from + i]!);
      g.index.add(chunk, flat, threads);
      let lost = g.index.unreachable(chunk, flat, REACH, threads);
      if (lost.length > 0) {
        const again = lost.map((i) => chunk[i]!);
        const againFlat = flatten(again, (i) => vectors[from + lost[i]!]!);
        g.index.remove(again);
        g.index.add(again, againFlat, threads);
        lost = g.index.unreachable(again, againFlat, REACH, threads).map((i) => lost[i]!);
      }
      for (const i of lost) g.orphans.set(chunk[i]!, vectors[from + i]!);
      if (from + ADD_CHUNK < ids.length) await breathe();
    }
    if (ids.length > 0) g.sweepDue = true;
    await this.sweep(g, Math.ceil(ids.length * SWEEP_SHARE));
  }

  /**
   * Checks the reach of up to `budget` elements of the graph, going on from where its
   * sweep stopped (or starting a pass when one is due). An element the index held and
   * reached when it was added can be cut off later: adding an element prunes links of its
   * neighbours, and the last link to an element can go (measured at 12k x 128 clustered:
   * 2 to 5 elements no search found by their own vector, none of them orphans). Each
   * element the index holds is checked (SWEEP_REACH); one it cannot reach becomes
   * an orphan, an orphan it reaches again is one no longer. A pass over every element
   * starts whenever elements were added since the last pass started, and runs beside the
   * adds (SWEEP_SHARE) and when the builder is idle, so a pass always ends after the last
   * add; a segment published before that says so (GraphPointer.swept), and a builder
   * that finds one at start sweeps it (current). The vectors are the graph's copies: an element moved
   * since (its new vector still queued) may be misjudged, which is harmless, as every
   * snapshot that sees the segment ranks its queued vector instead, and applying the move
   * settles it (apply). True while a pass is under way or due (there is more to check).
   */
  private async sweep(g: GraphBuild, budget: number): Promise<boolean> {
    if (budget <= 0) return false;
    if (g.sweepFrom === null) {
      if (!g.sweepDue) return false;
      g.sweepFrom = 0;
      g.sweepDue = false;
    }
    const spec = g.def.spec as VectorSpec;
    const from = g.sweepFrom;
    const copies = this.source.read((_r, v) =>
      v.queue.hasCopies(g.graph) ? [...v.queue.copies(g.graph, spec.dimension, from, budget)] : [],
    );
    g.sweepFrom = copies.length < budget ? null : copies[copies.length - 1]!.id + 1;
    const held = g.index.contains(copies.map((c) => c.id));
    const checked = copies.filter((c, i) => held[i] && !g.tombstones.has(c.id));
    if (checked.length > 0) this.checkReach(g, checked);
    // A publish rewrites the whole index: the pass's changes go out once, as it ends (and
    // an unchanged index once, to record that it was swept).
    if (g.sweepFrom === null && (g.sweepChanged || !g.sweptPublished)) {
      g.sweepChanged = false;
      g.unpublished++;
    }
    await breathe();
    return g.sweepFrom !== null || g.sweepDue;
  }

  /** Elements the index holds, with their vectors as stored: those it cannot reach become orphans, those it reaches are not. */
  private checkReach(g: GraphBuild, checked: readonly { id: number; vector: Float32Array }[]): void {
    const spec = g.def.spec as VectorSpec;
    const dimension = g.index.shape.dimension;
    const flat = new Float32Array(checked.length * dimension);
    checked.forEach((c, i) => flat.set(nativeVector(spec, g.longest, c.vector), i * dimension));
    const lost = new Set(
      g.index.unreachable(
        checked.map((c) => c.id),
        flat,
        SWEEP_REACH,
        this.settings.threads,
      ),
    );
    checked.forEach((c, i) => {
      if (lost.has(i) === g.orphans.has(c.id)) return;
      if (lost.has(i)) g.orphans.set(c.id, c.vector);
      else g.orphans.delete(c.id);
      g.sweepChanged = true;
    });
  }

  /**
   * Builds the graphs of one index that need a scan, from the stored vectors: every
   * element of the label, in chunks of snapshots; then the queue from the first
   * snapshot's position on is applied by the ordinary rounds.
   */
  private async scan(group: GraphView[]): Promise<void> {
    const def = group[0]!.def;
    const spec = def.spec as VectorSpec;
    const started = performance.now();
    const builds = new Map<string | null, GraphBuild>();
    for (const view of group) {
      const longest = this.longestOf(view);
      const g = this.start(
        view,
        view.pointer?.generation ?? 0,
        new NativeIndex({ ...nativeShape(spec, longest), quantization: quantizationOf(spec) }),
        longest,
      );
      g.next = view.next;
      this.broken.delete(view.graph);
      this.rebuild.delete(view.graph);
      builds.set(view.tenant, g);
    }
    const kind = elementOf(spec.kind);
    let from = 0;
    let done = false;
    while (!done && !this.closing) {
      const batch = new Map<GraphBuild, { ids: number[]; vectors: Float32Array[] }>();
      // The stored vectors, as they are: the builder normalises what the index gets, and orphans keep them.
      this.source.read((r) => {
        let n = 0;
        for (const id of kind === 'node' ? r.nodeIdsByLabel(spec.label, from) : r.edgeIdsByLabel(spec.label, from)) {
          if (n++ === SCAN_CHUNK) {
            from = id;
            return;
          }
          const element = kind === 'node' ? r.getNode(id) : r.getEdge(id);
          const values = element === undefined ? null : vectorValues(element.props[spec.property]);
          if (values === null || values.length !== spec.dimension) continue;
          const g = builds.get(spec.tenant_property === null ? null : tenantKey(element!.props[spec.tenant_property]));
          if (g === undefined) continue;
          let b = batch.get(g);
          if (b === undefined) batch.set(g, (b = { ids: [], vectors: [] }));
          b.ids.push(id);
          b.vectors.push(values instanceof Float32Array ? values : Float32Array.from(values));
        }
        done = true;
      });
      for (const [g, b] of batch) {
        // Stored after its M was taken: the next round scans it again with a larger one.
        if (tooLong(spec, g.longest, b.vectors)) {
          this.graphs.delete(g.graph);
          this.rebuild.add(g.graph);
          builds.delete(g.tenant);
          continue;
        }
        await this.addAll(g, b.ids, b.vectors);
        g.scanned += b.ids.length;
      }
      await breathe();
    }
    const ms = performance.now() - started;
    for (const g of builds.values()) {
      g.busyMs += ms / builds.size;
      // Published as soon as the queue since the scan is applied, even if empty.
      g.unpublished += 1;
    }
  }

  /** Publishes a graph when it is due; answers in how many ms it will be (Infinity: nothing to publish). */
  private maybePublish(g: GraphBuild): number {
    if (g.unpublished === 0 || g.pending !== null) return Infinity;
    const due = g.lastPublishAt + Math.max(MIN_PUBLISH_MS, PUBLISH_FACTOR * g.lastPublishCost) - performance.now();
    if (due > 0) return due;
    this.publish(g);
    return Infinity;
  }

  /** Saves the index as a new segment file (flushed, then renamed) and asks the writer to commit it. */
  private publish(g: GraphBuild): void {
    const started = performance.now();
    mkdirSync(this.dir, { recursive: true });
    const pointer: GraphPointer = {
      state: 'segment',
      generation: g.base + 1,
      nonce: randomInt(2 ** 32),
      count: g.index.size - g.tombstones.size,
      tombstones: g.tombstones.size,
      orphans: g.orphans.size,
      quantization: g.index.shape.quantization,
      size: 0,
      checksum: null,
      longest: g.longest,
      swept: g.sweepFrom === null && !g.sweepDue,
    };
    const name = segmentName(g.graph, pointer);
    const path = join(this.dir, name);
    const files = [path];
    g.index.save(`${path}.tmp`);
    if (g.tombstones.size + g.orphans.size > 0) {
      const side = join(this.dir, sideName(name));
      writeFileSync(`${side}.tmp`, encodeSide(g.tombstones, g.orphans, (g.def.spec as VectorSpec).dimension));
      files.push(side);
    }
    const temporaries = files.map((f) => `${f}.tmp`);
    for (const f of temporaries) syncFile(f);
    const checksum = fileChecksum(temporaries);
    const size = statSync(temporaries[0]!).size;
    files.forEach((f, i) => renameSync(temporaries[i]!, f));
    syncFile(this.dir);
    const commit: SegmentCommit = {
      index: g.def.id,
      graph: g.graph,
      base: g.base,
      pointer: { ...pointer, size, checksum },
      watermark: g.next,
      scanned: g.scanned,
      busyMs: g.busyMs,
    };
    g.pending = { generation: pointer.generation, files, swept: pointer.swept };
    g.unpublished = 0;
    g.scanned = 0;
    g.busyMs = 0;
    g.lastPublishAt = performance.now();
    g.lastPublishCost = g.lastPublishAt - started;
    this.send({ type: 'publish', commit });
  }
}
