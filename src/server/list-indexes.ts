/**
 * The indexes of the database as `list_indexes` answers them, read through the service by
 * the server's own start-up work (the project's vector indexes, a schema migration).
 */
import type { PipelineOptions } from '../core/request-options.js';
import { utf8Text, type QueryReply } from './service.js';

/** What list_indexes says of an index, as far as start-up work reads it. */
export interface ListedIndex {
  readonly kind: string;
  readonly label: string;
  readonly property: string;
  readonly state: string;
  readonly dimension?: number;
  readonly metric?: string;
  readonly m?: number;
  readonly ef_construction?: number;
}

/** The indexes, or the failed reply's status and text. */
export async function listIndexes(service: {
  query(body: Uint8Array, options: PipelineOptions): Promise<QueryReply>;
}): Promise<{ indexes: readonly ListedIndex[] } | { status: number; text: string }> {
  const entries = [{ query: { name: 'indexes', root: { list_indexes: {} } } }];
  const body = JSON.stringify({ request_type: 'read', query: { read: { entries, returns: ['indexes'] } } });
  const reply = await service.query(Buffer.from(body), { warm: false, requireWriter: false, awaitDurable: undefined });
  const text = utf8Text(reply.body);
  if (reply.status !== 200) return { status: reply.status, text };
  return { indexes: (JSON.parse(text) as { indexes: ListedIndex[] }).indexes };
}

/** Whether a listed index is the vector index of a type's vectors (nodes holding `data`), in use. */
export function isTypeVectorIndex(index: ListedIndex): boolean {
  return index.kind === 'node_vector' && index.property === 'data' && index.state !== 'dropping';
}
