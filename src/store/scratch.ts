/**
 * One aligned buffer for building a value to put, grown on demand: lmdb-js copies a value
 * during the put, so the store's encoders (adjacency blocks and lists, edge blocks) reuse
 * it instead of allocating per value. One value at a time: build it, put it, then the next.
 */
interface Scratch {
  readonly bytes: Buffer;
  readonly doubles: Float64Array;
  readonly words: Uint32Array;
}

function withViews(bytes: Buffer): Scratch {
  return {
    bytes,
    doubles: new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8),
    words: new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4),
  };
}

/**
 * A buffer of its own, grown on demand: the function answers it at least `size` bytes long,
 * with f64 and u32 views of it (platform byte order). For a value read while another is
 * built in `scratch` (adjacency-blocks.ts copies the old block into one).
 */
export function scratchBuffer(initialBytes: number): (size: number) => Scratch {
  let buffer = withViews(Buffer.from(new ArrayBuffer(initialBytes)));
  return (size) => {
    if (size > buffer.bytes.length) buffer = withViews(Buffer.from(new ArrayBuffer(Math.max(size, buffer.bytes.length * 2))));
    return buffer;
  };
}

/** The shared buffer for building a value to put. */
export const scratch: (size: number) => Scratch = scratchBuffer(64 * 1024);
