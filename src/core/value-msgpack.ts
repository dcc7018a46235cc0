/**
 * msgpackr settings shared by storage and thread messages, so a value written by one
 * thread reads back identically in another: bigint stays bigint (i64), numbers stay
 * numbers (f64), typed arrays keep their type, DateTime is an extension type.
 */
import { addExtension } from 'msgpackr';
import { DateTime } from './value.js';

/** msgpack extension type number of DateTime (epoch ms as a float64). */
export const DATE_TIME_EXT = 0x54;

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
}

export const PACKR_OPTIONS = { useRecords: false, int64AsType: 'bigint', moreTypes: true } as const;
