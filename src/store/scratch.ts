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

let scratchBuffer = withViews(Buffer.from(new ArrayBuffer(64 * 1024)));

function withViews(bytes: Buffer): Scratch {
  return {
    bytes,
    doubles: new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8),
    words: new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4),
  };
}

/** The buffer, at least `size` bytes long, with f64 and u32 views of it (platform byte order). */
export function scratch(size: number): Scratch {
  if (size > scratchBuffer.bytes.length)
    scratchBuffer = withViews(Buffer.from(new ArrayBuffer(Math.max(size, scratchBuffer.bytes.length * 2))));
  return scratchBuffer;
}
