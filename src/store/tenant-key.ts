/** How text and vector indexes name a tenant partition. */
import { DateTime, type Value } from '../core/value.js';

/**
 * A tenant value as a partition name: strings as they are, other scalars tagged with
 * their kind so that "5" and 5 stay apart; null when there is no usable tenant value.
 */
export function tenantKey(v: Value | undefined | null): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return `\u0000i:${v}`;
  if (typeof v === 'number') return Number.isInteger(v) ? `\u0000i:${v}` : `\u0000f:${v}`;
  if (typeof v === 'boolean') return `\u0000b:${v}`;
  if (v instanceof DateTime) return `\u0000d:${v.ms}`;
  return null;
}
