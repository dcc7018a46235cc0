/**
 * API keys: the gateway stores only their SHA-256 digests. A presented key is hashed and
 * compared with every stored digest in constant time (timingSafeEqual, no early exit), so
 * neither the comparison nor the number of matching leading bytes shows in the timing.
 * Keys are random 256-bit strings (`trellis gateway key`), so one fast hash suffices:
 * there is no password to guess slowly.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyConfig } from './config.js';

export function digestOf(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** A new key and the digest to put in the configuration. */
export function newKey(): { key: string; sha256: string } {
  const key = `trk_${randomBytes(32).toString('base64url')}`;
  return { key, sha256: digestOf(key).toString('hex') };
}

export class KeyRing {
  private readonly digests: readonly { digest: Buffer; key: KeyConfig }[];

  constructor(keys: readonly KeyConfig[]) {
    this.digests = keys.map((key) => ({ digest: Buffer.from(key.sha256, 'hex'), key }));
  }

  /** The configured key whose digest matches, or undefined. */
  find(presented: string): KeyConfig | undefined {
    const digest = digestOf(presented);
    let found: KeyConfig | undefined;
    for (const entry of this.digests) {
      // Every digest is compared, whatever matched before.
      if (timingSafeEqual(entry.digest, digest)) found = entry.key;
    }
    return found;
  }
}

/** RFC 6750's b64token: what may follow `Bearer `. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of an `Authorization: Bearer <token>` header, or undefined when it is missing or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}
