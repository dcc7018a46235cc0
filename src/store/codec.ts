/**
 * Value encoding of the store. It is the msgpackr configuration thread messages use
 * (src/core/value-msgpack.ts), so a record read in a worker posts onward without re-encoding
 * surprises: bigint stays bigint, whole numbers stay numbers, typed arrays keep their
 * type and DateTime is an extension. lmdb-js builds its own msgpackr Encoder from these
 * options (the extension registry is global to the msgpackr module, which lmdb shares).
 *
 * msgpackr writes -0 as the integer 0, so every value packed here goes through
 * markNegativeZeros first (packStored; records of the nodes database through the
 * writer, graph.ts). Known msgpackr limits (values the wire cannot carry faithfully
 * anyway): a lone UTF-16 surrogate is replaced, and an object key "__proto__" is renamed.
 */
import { Packr } from 'msgpackr';
import { markNegativeZeros, PACKR_OPTIONS, registerValueExtensions } from '../core/value-msgpack.js';

registerValueExtensions();

/** Options for lmdb's `encoder`: merged by lmdb-js into the msgpackr Encoder it creates. */
export function storeEncoderOptions(): Record<string, unknown> {
  return { ...PACKR_OPTIONS, copyBuffers: true };
}

/**
 * The codec of values inside binary chunks (edge properties, generic columns). Bytes
 * values are copied out, because chunks are often read from buffers lmdb-js reuses.
 */
export const storePackr = new Packr({ ...PACKR_OPTIONS, copyBuffers: true });

/** storePackr's bytes of `value`, -0.0 kept. */
export function packStored(value: unknown): Buffer {
  return storePackr.pack(markNegativeZeros(value));
}
