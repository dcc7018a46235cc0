/**
 * Where a graph's vectors are, as one snapshot sees them: its pointer record, and the
 * native segment file a pointer names.
 *
 * A graph (a vector index, or one tenant partition of it) is in one of three states, kept
 * in a pointer record in the `vector_queue` sub-database (key `[0xFFFFFFFE][graph u32]`),
 * written in the same transactions as the queue it describes:
 *
 * - `queue`: its vectors are exactly its queued entries (a graph created by writes, before
 *   the builder's first segment);
 * - `scan`: its vectors are the stored properties of the elements it covers, read by a
 *   scan (an index built over stored elements, a graph of an older format, or one whose
 *   segment was lost); queued entries only tell the builder what changed since;
 * - `segment`: its vectors are those of an immutable native file,
 *   `vectors/<graph>-<generation>-<nonce>.usearch` under the data folder (segmentName), less and plus what its remaining queue entries say. The pointer
 *   is committed in the transaction that deletes the entries the file covers, so every
 *   snapshot sees a file and a queue that add up to its own state.
 *
 * A search views (memory-maps) the file of its snapshot's pointer, once per thread and
 * file; files are never changed, only replaced under a new generation and deleted once no
 * snapshot can name them (vector-builder-client.ts).
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { NativeIndex, QUANTIZATIONS, type NativeShape, type Quantization } from './native-vectors.js';

export type GraphState = 'queue' | 'scan' | 'segment';
const STATES: readonly GraphState[] = ['queue', 'scan', 'segment'];

export interface GraphPointer {
  readonly state: GraphState;
  /** Bumped by every change of the pointer: a builder's segment is based on one generation. */
  readonly generation: number;
  /** Random, part of the file name: a file name is never used twice (vector-builder-client.ts). */
  readonly nonce: number;
  /** Elements the state holds: live in the segment, or seen by the build scan (`scan`). */
  readonly count: number;
  /** Deleted elements the segment still holds, skipped by searches (listed in its side file). */
  readonly tombstones: number;
  /**
   * Elements of the segment its graph cannot reach (vector-builder.ts): searches rank them
   * exactly, from their vectors in the side file.
   */
  readonly orphans: number;
  /** The segment's quantization, its file's size, and the SHA-256 of its file then its side file (`segment` only). */
  readonly quantization: Quantization;
  readonly size: number;
  readonly checksum: Uint8Array | null;
  /**
   * An inner-product segment's M (0 for every other graph, and for an inner-product segment
   * of the older form): its vectors x are searched as euclidean ones with one more
   * component, sqrt(M² − |x|²), M at least the longest of them (vector-index.ts nativeShape).
   */
  readonly longest: number;
  /**
   * Whether the builder's reach sweep (vector-builder.ts sweep) had checked every element
   * after the last add when it published this segment: a segment without it is swept
   * again when the builder starts. False in pointers written before the sweep existed.
   */
  readonly swept: boolean;
}

/** The key prefix of pointer records (graph ids stay below it; vector-index.ts lists the others). */
export const POINTER_PREFIX = 0xfffffffe;

export function pointerKey(graph: number): Buffer {
  const key = Buffer.allocUnsafe(8);
  key.writeUInt32BE(POINTER_PREFIX, 0);
  key.writeUInt32BE(graph, 4);
  return key;
}

const FORMAT = 1;
/** A pointer written before `longest` existed ends after the orphans, and reads as longest 0. */
const OLD_SIZE = 80;
const SIZE = 88;
/** A pointer written before `swept` existed ends after `longest`, and reads as not swept. */
const SWEPT_SIZE = 89;

/**
 * u8 format, u8 state, u8 quantization, u8 has-checksum, u32 nonce, f64 generation,
 * f64 count, f64 file size, 32 bytes SHA-256, f64 tombstones, f64 orphans, f64 longest,
 * u8 swept.
 */
export function encodePointer(p: GraphPointer): Buffer {
  const raw = Buffer.alloc(SWEPT_SIZE);
  raw[0] = FORMAT;
  raw[1] = STATES.indexOf(p.state);
  raw[2] = QUANTIZATIONS.indexOf(p.quantization);
  raw[3] = p.checksum === null ? 0 : 1;
  raw.writeUInt32LE(p.nonce >>> 0, 4);
  raw.writeDoubleLE(p.generation, 8);
  raw.writeDoubleLE(p.count, 16);
  raw.writeDoubleLE(p.size, 24);
  // A checksum that crossed threads arrives as a plain Uint8Array.
  if (p.checksum !== null) raw.set(p.checksum, 32);
  raw.writeDoubleLE(p.tombstones, 64);
  raw.writeDoubleLE(p.orphans, 72);
  raw.writeDoubleLE(p.longest, 80);
  raw[88] = p.swept ? 1 : 0;
  return raw;
}

export function decodePointer(raw: Uint8Array): GraphPointer {
  const b = Buffer.from(raw.buffer, raw.byteOffset, raw.length);
  if (b[0] !== FORMAT || b.length < OLD_SIZE) throw new Error(`vector graph pointer of unknown format ${b[0]}`);
  return {
    state: STATES[b[1]!]!,
    quantization: QUANTIZATIONS[b[2]!]!,
    generation: b.readDoubleLE(8),
    nonce: b.readUInt32LE(4),
    count: b.readDoubleLE(16),
    size: b.readDoubleLE(24),
    checksum: b[3] === 1 ? Buffer.from(b.subarray(32, 64)) : null,
    tombstones: b.readDoubleLE(64),
    orphans: b.readDoubleLE(72),
    longest: b.length >= SIZE ? b.readDoubleLE(80) : 0,
    swept: b.length >= SWEPT_SIZE && b[88] === 1,
  };
}

/** The folder of segment files, under the data folder. */
export const segmentDir = (dataPath: string): string => join(dataPath, 'vectors');

export const segmentName = (graph: number, p: Pick<GraphPointer, 'generation' | 'nonce'>): string =>
  `${graph}-${p.generation}-${p.nonce.toString(16).padStart(8, '0')}.usearch`;

/**
 * A segment's side file: its tombstones (f64 ids, ascending), then its orphans (f64 ids,
 * ascending) and their vectors (f32, as stored, in the same order). Absent when both are
 * empty.
 */
export const sideName = (segment: string): string => segment.replace(/\.usearch$/, '.side');

/** Whether a file name is a segment's or its side file's (the builder's temporary files are not). */
export const isSegmentName = (name: string): boolean => /^\d+-\d+-[0-9a-f]{8}\.(usearch|side)$/.test(name);

/** The files of a pointer's segment (the side file only when it has tombstones or orphans). */
export function segmentFiles(graph: number, p: GraphPointer): string[] {
  const name = segmentName(graph, p);
  return p.tombstones + p.orphans > 0 ? [name, sideName(name)] : [name];
}

const sideSize = (p: GraphPointer, dimension: number): number => 8 * (p.tombstones + p.orphans) + 4 * p.orphans * dimension;

/** The sizes of a pointer's segment files, in segmentFiles' order. */
export function segmentSizes(p: GraphPointer, dimension: number): number[] {
  return p.tombstones + p.orphans > 0 ? [p.size, sideSize(p, dimension)] : [p.size];
}

/** What a side file holds. */
export interface SideEntries {
  readonly tombstones: Float64Array;
  readonly orphans: Float64Array;
  /** The orphans' vectors, as stored. */
  readonly vectors: Float32Array[];
}

export function encodeSide(tombstones: Iterable<number>, orphans: ReadonlyMap<number, Float32Array>, dimension: number): Uint8Array {
  const dead = Float64Array.from(tombstones).sort();
  const ids = Float64Array.from(orphans.keys()).sort();
  const out = new Uint8Array(8 * (dead.length + ids.length) + 4 * ids.length * dimension);
  out.set(new Uint8Array(dead.buffer), 0);
  out.set(new Uint8Array(ids.buffer), 8 * dead.length);
  const vectors = new Float32Array(ids.length * dimension);
  ids.forEach((id, i) => vectors.set(orphans.get(id)!, i * dimension));
  out.set(new Uint8Array(vectors.buffer), 8 * (dead.length + ids.length));
  return out;
}

export function readSide(path: string, p: GraphPointer, dimension: number): SideEntries {
  if (p.tombstones + p.orphans === 0) return { tombstones: new Float64Array(0), orphans: new Float64Array(0), vectors: [] };
  const bytes = readFileSync(path);
  // A copy, aligned for the typed arrays.
  const copy = new Uint8Array(sideSize(p, dimension));
  copy.set(bytes.subarray(0, copy.length));
  const tombstones = new Float64Array(copy.buffer, 0, p.tombstones);
  const orphans = new Float64Array(copy.buffer, 8 * p.tombstones, p.orphans);
  const at = 8 * (p.tombstones + p.orphans);
  const vectors = Array.from(orphans, (_, i) => new Float32Array(copy.buffer, at + 4 * i * dimension, dimension));
  return { tombstones, orphans, vectors };
}

/** SHA-256 of files one after another, read in 1 MiB pieces. */
export function fileChecksum(paths: readonly string[]): Buffer {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(1 << 20);
  for (const path of paths) {
    const fd = openSync(path, 'r');
    try {
      for (;;) {
        const n = readSync(fd, chunk, 0, chunk.length, null);
        if (n === 0) break;
        hash.update(chunk.subarray(0, n));
      }
    } finally {
      closeSync(fd);
    }
  }
  return hash.digest();
}

/** Whether an ascending list holds `id` (binary search). */
export function listed(sorted: Float64Array, id: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * Why a segment file cannot serve its pointer, or null. Readers check the size (a missing,
 * truncated or foreign file); the builder, which reads the whole file anyway to load it,
 * checks the SHA-256 too (`full`).
 */
export function segmentProblem(dir: string, graph: number, pointer: GraphPointer, dimension: number, full: boolean): string | null {
  const paths = segmentFiles(graph, pointer).map((name) => join(dir, name));
  const sizes = segmentSizes(pointer, dimension);
  for (let i = 0; i < paths.length; i++) {
    let size: number;
    try {
      size = statSync(paths[i]!).size;
    } catch (err) {
      return `cannot read ${paths[i]}: ${(err as Error).message}`;
    }
    if (size !== sizes[i]) return `${paths[i]} has ${size} bytes, its pointer says ${sizes[i]}`;
  }
  if (full && pointer.checksum !== null && !fileChecksum(paths).equals(pointer.checksum)) return `${paths[0]} does not match its checksum`;
  return null;
}

/** A mapped segment, its tombstones and its orphans. */
export interface SegmentView extends SideEntries {
  readonly index: NativeIndex;
}

/**
 * The segments this thread has mapped, one per graph: the newest generation it was asked
 * for. A thread answers one request at a time, so when a request names a newer generation
 * no search of this thread still uses the older view, which is dropped (usearch unmaps it
 * when it is collected). A file that cannot be viewed is remembered as such: searches of
 * that graph fall back to an exact scan until a new generation replaces it. A file not
 * there yet is looked for again at every search (a replica fetches its writer's segments
 * after it has applied their pointers, replication/segments.ts): searches are exact until
 * it arrives.
 */
export class SegmentViews {
  private readonly views = new Map<number, { generation: number; view: SegmentView | null }>();
  /** Segments found absent and said so (one message per file). */
  private readonly absent = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * The view of a graph's segment at this pointer: `shape` as the native index holds it,
   * `dimension` the stored vectors' (the side file's; an inner-product segment's native
   * vectors have one more component).
   */
  get(graph: number, pointer: GraphPointer, shape: Omit<NativeShape, 'quantization'>, dimension: number): SegmentView | null {
    const cached = this.views.get(graph);
    if (cached !== undefined && cached.generation === pointer.generation) return cached.view;
    const name = segmentName(graph, pointer);
    const path = join(this.dir, name);
    if (!existsSync(path)) {
      if (!this.absent.has(name)) {
        this.absent.add(name);
        this.log(`vector segment ${path} is not there (yet); searching graph ${graph} exactly until it is`);
      }
      return null;
    }
    this.absent.delete(name);
    let view: SegmentView | null = null;
    const problem = segmentProblem(this.dir, graph, pointer, dimension, false);
    if (problem === null) {
      try {
        const index = new NativeIndex({ ...shape, quantization: pointer.quantization });
        index.view(path);
        view = { index, ...readSide(join(this.dir, sideName(name)), pointer, dimension) };
      } catch (err) {
        this.log(
          `vector segment ${path} cannot be mapped (${(err as Error).message}); searching graph ${graph} exactly until it is rebuilt`,
        );
      }
    } else {
      this.log(`vector segment unusable: ${problem}; searching graph ${graph} exactly until it is rebuilt`);
    }
    this.views.set(graph, { generation: pointer.generation, view });
    return view;
  }
}

export type { Quantization };
