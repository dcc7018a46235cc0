/**
 * What the replication tests share: a deterministic stream of mixed writes (nodes, edges,
 * property updates, deletes, index DDL, vector and text inserts) as /v2/query bodies, the
 * searches whose answers writer and replicas must agree on, and a digest of a database
 * folder over every key of every sub-database, read from outside the process that owns it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { decodePointer, POINTER_PREFIX, segmentFiles } from '../../src/store/vector-segments.js';
import { Rng } from './prng.js';
import { q, ids } from './embedded.js';

const write = (entries: unknown[], returns: string[] = []) => ({ request_type: 'write', query: { write: { entries, returns } } });
const read = (entries: unknown[], returns: string[]) => ({ request_type: 'read', query: { read: { entries, returns } } });
const str = (s: string) => ({ value: { string: s } });
const int = (n: number) => ({ value: { i64: n } });

const WORDS = ['graph', 'vector', 'replica', 'stream', 'writer', 'snapshot', 'index', 'search', 'node', 'edge'];

export const INDEX_DDL = [
  { node_equality: { label: 'User', property: 'name', unique: false } },
  { node_vector: { label: 'Doc', property: 'emb', dimension: 4, metric: 'euclidean' } },
  { node_text: { label: 'Doc', property: 'body' } },
];

/**
 * The index DDL, one write body per index (two create_index entries in one batch were
 * given the same index id, a defect outside replication reported separately).
 */
export function indexRequests(): object[] {
  return INDEX_DDL.map((spec) => write([q('r', { create_index: { spec, if_not_exists: true } })], ['r']));
}

/**
 * `count` write bodies from `seed`: mostly creations, then updates, edges and deletes of
 * ids that may exist (an update of a deleted id changes nothing, which is fine). `base`
 * offsets the ids it guesses, for a stream continued in a later call.
 */
export function mixedWrites(seed: number, count: number, base = 0): object[] {
  const rng = new Rng(seed);
  const out: object[] = [];
  const guess = () => base + Math.floor(rng.float() * (base + out.length + 1));
  for (let i = 0; i < count; i++) {
    const pick = rng.float();
    const text = () => Array.from({ length: 4 }, () => WORDS[Math.floor(rng.float() * WORDS.length)]).join(' ');
    if (pick < 0.3) {
      out.push(
        write([
          q(null, {
            add_n: {
              label: 'User',
              properties: [
                ['name', str(`u${i % 17}`)],
                ['age', int(Math.floor(rng.float() * 90))],
              ],
            },
          }),
        ]),
      );
    } else if (pick < 0.5) {
      const emb = Array.from({ length: 4 }, () => Math.fround(rng.float() * 2 - 1));
      out.push(
        write([
          q(null, {
            add_n: {
              label: 'Doc',
              properties: [
                ['emb', { value: { f32_array: emb } }],
                ['body', str(text())],
              ],
            },
          }),
        ]),
      );
    } else if (pick < 0.65) {
      out.push(
        write([
          q(null, {
            add_e: { input: ids(guess()), label: 'KNOWS', to: { ids: [guess()] }, properties: [['w', { value: { f64: rng.float() } }]] },
          }),
        ]),
      );
    } else if (pick < 0.78) {
      out.push(write([q(null, { set_property: { input: ids(guess()), name: 'age', value: int(Math.floor(rng.float() * 90)) } })]));
    } else if (pick < 0.84) {
      out.push(write([q(null, { set_property: { input: ids(guess()), name: 'body', value: str(text()) } })]));
    } else if (pick < 0.9) {
      out.push(write([q(null, { remove_property: { input: ids(guess()), name: 'age' } })]));
    } else if (pick < 0.96) {
      out.push(write([q(null, { drop: { input: ids(guess()) } })]));
    } else {
      out.push(write([q(null, { drop_edge_by_id: { edges: { ids: [guess()] } } })]));
    }
  }
  return out;
}

/** Reads whose answers must be equal on the writer and on every replica that caught up. */
export function searchRequests(): object[] {
  return [
    read(
      [
        q('n', {
          count: {
            input: { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'User' } } } } } },
          },
        }),
      ],
      ['n'],
    ),
    read(
      [
        q('v', {
          vector_search_nodes: {
            label: 'Doc',
            property: 'emb',
            query_vector: { value: { f32_array: [0.1, -0.2, 0.3, 0.4] } },
            k: { literal: 10 },
          },
        }),
      ],
      ['v'],
    ),
    read([q('t', { text_search_nodes: { label: 'Doc', property: 'body', query_text: str('replica stream'), k: { literal: 10 } } })], ['t']),
    read(
      [
        q('u', {
          value_map: {
            input: { nodes_where: { predicate: { eq: { left: { property: 'name' }, right: { constant: { string: 'u3' } } } } } },
          },
        }),
      ],
      ['u'],
    ),
    read(
      [
        q('e', {
          count: {
            input: { edges_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'KNOWS' } } } } } },
          },
        }),
      ],
      ['e'],
    ),
  ];
}

/** `meta` keys that are each copy's own (src/store/layout.ts LOCAL_META). */
const LOCAL_META = new Set(['commit_seq', 'log_position']);
/** Sub-databases that are each copy's own: the change log. */
const LOCAL_DBS = new Set(['replication_log']);
const SUB_DATABASES = [
  'nodes',
  'node_columns',
  'adjacency',
  'adjacency_lists',
  'edge_blocks',
  'dictionary',
  'meta',
  'indexes',
  'index_entries',
  'text_index',
  'hnsw',
  'vector_queue',
];

/**
 * A SHA-256 per sub-database over every key and value as stored (bytes), local state left
 * out, and the number of keys: two folders with equal digests hold the same data.
 */
export function folderDigest(path: string): Record<string, string> {
  const env = open({ path, maxDbs: 128, readOnly: true });
  try {
    const out: Record<string, string> = {};
    for (const name of SUB_DATABASES) {
      if (LOCAL_DBS.has(name)) continue;
      const db = env.openDB<Buffer, Buffer>(name, { encoding: 'binary', keyEncoding: 'binary' });
      const hash = createHash('sha256');
      let n = 0;
      for (const { key, value } of db.getRange({})) {
        if (name === 'meta' && LOCAL_META.has(key.toString('utf8'))) continue;
        hash.update(`${key.length}:`).update(key).update(`${value.length}:`).update(value);
        n++;
      }
      out[name] = `${n}:${hash.digest('hex').slice(0, 16)}`;
    }
    return out;
  } finally {
    void env.close();
  }
}

/**
 * A write batch that changes nothing (one count): it is answered with the writer's current
 * LSN in X-Trellis-Lsn, background index steps included (an empty batch is refused).
 */
export const LSN_PROBE = write([q('c', { count: { input: { nodes: { reference: 'all' } } } })], ['c']);

/** The writer's current LSN (LSN_PROBE); NaN when the writer does not answer 200. */
export async function writerLsn(url: string): Promise<number> {
  const res = await fetch(`${url}/v2/query`, { method: 'POST', body: JSON.stringify(LSN_PROBE) });
  await res.text();
  return res.status === 200 ? Number(res.headers.get('x-trellis-lsn')) : NaN;
}

/**
 * The vector segment files the pointers of a folder name (read from outside the process
 * that owns it), with the SHA-256 of each (null: not in the folder).
 */
export function namedSegments(path: string): Map<string, string | null> {
  const env = open({ path, maxDbs: 128, readOnly: true });
  try {
    const db = env.openDB<Buffer, Buffer>('vector_queue', { encoding: 'binary', keyEncoding: 'binary' });
    const out = new Map<string, string | null>();
    const start = Buffer.alloc(8);
    start.writeUInt32BE(POINTER_PREFIX, 0);
    const end = Buffer.alloc(8);
    end.writeUInt32BE(POINTER_PREFIX + 1, 0);
    for (const { key, value } of db.getRange({ start, end })) {
      const pointer = decodePointer(value);
      if (pointer.state !== 'segment') continue;
      for (const name of segmentFiles(key.readUInt32BE(4), pointer)) {
        const file = join(path, 'vectors', name);
        out.set(name, existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : null);
      }
    }
    return out;
  } finally {
    void env.close();
  }
}
