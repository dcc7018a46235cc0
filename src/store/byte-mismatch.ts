/**
 * Where two byte ranges first differ, in a few lines of WebAssembly (the change log's
 * deltas, value-delta.ts). Finding it in JavaScript costs either a byte or word loop
 * (about 2 ns a word) or a halving over native range comparisons (about 0.17 µs a call,
 * seven calls per difference in an 8 KiB value): about 5 µs a value, and a one-node batch
 * patches two. Here both values are copied once into the module's memory (a memcpy) and
 * each search is one call comparing 16 bytes a step.
 *
 * The module, as text:
 *
 *   (memory (export "memory") 1)
 *   (func (export "mismatch") (param $a i32) (param $b i32) (param $n i32) (result i32)
 *     (local $i i32)
 *     (block (loop                                  ;; 16 bytes a step
 *       (br_if 1 (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $n)))
 *       (br_if 1 (v128.any_true (v128.xor (v128.load (i32.add (local.get $a) (local.get $i)))
 *                                         (v128.load (i32.add (local.get $b) (local.get $i))))))
 *       (local.set $i (i32.add (local.get $i) (i32.const 16)))
 *       (br 0)))
 *     (block (loop                                  ;; then 8 bytes a step
 *       (br_if 1 (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
 *       (br_if 1 (i64.ne (i64.load (i32.add (local.get $a) (local.get $i)))
 *                        (i64.load (i32.add (local.get $b) (local.get $i)))))
 *       (local.set $i (i32.add (local.get $i) (i32.const 8)))
 *       (br 0)))
 *     (block (loop                                  ;; then byte by byte
 *       (br_if 1 (i32.gt_u (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
 *       (br_if 1 (i32.ne (i32.load8_u (i32.add (local.get $a) (local.get $i)))
 *                        (i32.load8_u (i32.add (local.get $b) (local.get $i)))))
 *       (local.set $i (i32.add (local.get $i) (i32.const 1)))
 *       (br 0)))
 *     (local.get $i))
 */

/** What this file uses of the WebAssembly API (the project's TypeScript libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { readonly exports: Record<string, unknown> };
};

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

function name(text: string): number[] {
  return [...uleb(text.length), ...Buffer.from(text, 'latin1')];
}

const [A, B, N, I] = [0, 1, 2, 3];
const get = (local: number) => [0x20, local];
const set = (local: number) => [0x21, local];
const i32 = (value: number) => [0x41, value];
const ADD = 0x6a;
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const END = 0x0b;
const BR_IF_OUT = [0x0d, 1];
const BR_LOOP = [0x0c, 0];

/**
 * One loop of the search: while `$i + step <= $n` and the `step` bytes at `$a + $i` and
 * `$b + $i` are equal (`load` reads them, `differ` tells two loads apart), `$i += step`.
 */
// prettier-ignore
const scan = (step: number, load: number[], differ: number[]): number[] => [
  ...BLOCK,
  ...LOOP,
  ...get(I), ...i32(step), ADD, ...get(N), 0x4b /* i32.gt_u */, ...BR_IF_OUT,
  ...get(A), ...get(I), ADD, ...load,
  ...get(B), ...get(I), ADD, ...load,
  ...differ, ...BR_IF_OUT,
  ...get(I), ...i32(step), ADD, ...set(I),
  ...BR_LOOP,
  END,
  END,
];

// prettier-ignore
const body = [
  ...[1, 1, 0x7f], // one local: i32 $i
  ...scan(16, [0xfd, 0x00, 0, 0] /* v128.load */, [0xfd, 0x51 /* v128.xor */, 0xfd, 0x53 /* v128.any_true */]),
  ...scan(8, [0x29, 0, 0] /* i64.load */, [0x52] /* i64.ne */),
  ...scan(1, [0x2d, 0, 0] /* i32.load8_u */, [0x47] /* i32.ne */),
  ...get(I),
  END,
];

const MODULE = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, [1, 0x60, 3, 0x7f, 0x7f, 0x7f, 1, 0x7f]), // type: (i32, i32, i32) -> i32
  ...section(3, [1, 0]), // one function of that type
  ...section(5, [1, 0, 1]), // memory: one page at first, grown on demand
  ...section(7, [2, ...name('mismatch'), 0, 0, ...name('memory'), 2, 0]),
  ...section(10, [1, ...uleb(body.length), ...body]),
]);

const PAGE = 65536;

/**
 * Two values staged side by side in the module's memory: `mismatch` compares ranges of
 * them. One per thread (the writer's); `stage` overwrites the previous pair.
 */
export class ByteMismatch {
  private readonly memory: WasmMemory;
  private readonly find: (a: number, b: number, n: number) => number;
  private bytes: Uint8Array;
  /** Where the second value starts in memory (the first starts at 0). */
  private second = 0;

  constructor() {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(MODULE));
    this.memory = instance.exports.memory as WasmMemory;
    this.find = instance.exports.mismatch as (a: number, b: number, n: number) => number;
    this.bytes = new Uint8Array(this.memory.buffer);
  }

  /**
   * Copies `first` (its first `firstLength` bytes) and `second` into memory. Always by a
   * subarray: lmdb-js's shared read buffer reports its value's length as `length` but
   * copies as the whole buffer.
   */
  stage(first: Uint8Array, firstLength: number, second: Uint8Array): void {
    const at = (firstLength + 7) & ~7;
    const need = at + second.length;
    if (need > this.bytes.length) {
      this.memory.grow(Math.ceil((need - this.bytes.length) / PAGE));
      this.bytes = new Uint8Array(this.memory.buffer);
    }
    this.bytes.set(first.subarray(0, firstLength), 0);
    this.bytes.set(second, at);
    this.second = at;
  }

  /** How many bytes from `first[from]` equal those from `second[to]`, at most `max` (both ranges in bounds). */
  matchLength(from: number, to: number, max: number): number {
    return this.find(from, this.second + to, max);
  }
}
