/**
 * msgpackr settings shared by storage and thread messages, so a value written by one
 * thread reads back identically in another: bigint stays bigint (i64), numbers stay
 * numbers (f64), typed arrays keep their type, DateTime is an extension type, and the
 * float -0.0 stays negative (markNegativeZeros).
 */
import { addExtension } from 'msgpackr';
import { DateTime } from './value.js';

/** msgpack extension type number of DateTime (epoch ms as a float64). */
export const DATE_TIME_EXT = 0x54;

/**
 * Type number under which the -0.0 marker is registered. Nothing is ever written with it:
 * the marker packs as a plain msgpack float64, which every reader reads back as -0.
 */
const NEGATIVE_ZERO_EXT = 0x55;

/** Stands for -0.0 in a value about to be packed (markNegativeZeros). */
class NegativeZero {}
const NEGATIVE_ZERO = new NegativeZero();

let registered = false;

/** Registers the DateTime extension with msgpackr (global, idempotent). */
export function registerValueExtensions(): void {
  if (registered) return;
  registered = true;
  addExtension({
    Class: DateTime,
    type: DATE_TIME_EXT,
    pack: (d: DateTime) => {
      const buf = Buffer.allocUnsafe(8);
      buf.writeDoubleBE(d.ms);
      return buf;
    },
    // Thread messages arrive as plain Uint8Arrays (no Buffer methods), so read through a view.
    unpack: (buf: Uint8Array) => new DateTime(new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getFloat64(0)),
  });
  const negativeZero: InPlaceExtension = {
    Class: NegativeZero,
    type: NEGATIVE_ZERO_EXT,
    // Written in place as float64 -0.0 (0xcb, then the sign bit alone), not as extension data.
    pack: (_, allocateForWrite) => {
      const { target, position } = allocateForWrite(9);
      target.fill(0, position, position + 9);
      target[position] = 0xcb;
      target[position + 1] = 0x80;
    },
    unpack: () => -0,
  };
  addExtension(negativeZero as unknown as Parameters<typeof addExtension>[0]);
}

/**
 * msgpackr's form of an extension that writes its own bytes (its typings know only the form
 * that returns extension data): `pack` asks for room and fills it.
 */
interface InPlaceExtension {
  readonly Class: new () => unknown;
  readonly type: number;
  pack(value: unknown, allocateForWrite: (size: number) => { target: Uint8Array; position: number }): void;
  unpack(): unknown;
}

/**
 * `value` ready for msgpackr, which writes a number equal to an integer as an integer, so
 * -0.0 would read back as 0: every -0 inside (through arrays and plain objects) is swapped
 * for a marker that packs as float64 -0.0. Only the arrays and objects on the way to a -0
 * are copied, and `value` itself comes back when it holds none (nearly always). Typed
 * arrays keep -0 as they are; other class instances are left alone.
 */
export function markNegativeZeros<T>(value: T): T {
  return mark(value) as T;
}

/** Whether `x` is a leaf that stays as it is (the test before a call, for speed). */
const isPlainLeaf = (x: unknown) => (typeof x === 'number' ? x !== 0 || 1 / x > 0 : typeof x !== 'object' || x === null);

function mark(v: unknown): unknown {
  if (typeof v === 'number') return v === 0 && 1 / v < 0 ? NEGATIVE_ZERO : v;
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      // A leaf stays (a copy already holds it); comparing would take NaN for a change.
      if (isPlainLeaf(x)) continue;
      const m = mark(x);
      if (m !== x) out ??= v.slice();
      if (out !== null) out[i] = m;
    }
    return out ?? v;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  let out: Record<string, unknown> | null = null;
  for (const key in v) {
    const x = (v as Record<string, unknown>)[key];
    if (isPlainLeaf(x)) continue;
    const m = mark(x);
    if (m === x) continue;
    // Spread keeps an own "__proto__" key as data, as the original had it.
    out ??= { ...(v as Record<string, unknown>) };
    Object.defineProperty(out, key, { value: m, enumerable: true, writable: true, configurable: true });
  }
  return out ?? v;
}

export const PACKR_OPTIONS = { useRecords: false, int64AsType: 'bigint', moreTypes: true } as const;
