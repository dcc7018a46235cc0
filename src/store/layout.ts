/**
 * Sub-database names and key shapes. Keys use lmdb's default ordered-binary encoding:
 * numbers order numerically, a key that is a prefix of another sorts first, and array
 * elements are joined by a 0 byte, so ["A", ...] entries all sort before ["AB", ...].
 */

export const FORMAT_VERSION = 1;

export const DB = {
  nodes: 'nodes',
  edges: 'edges',
  out: 'out',
  in: 'in',
  nodeLabels: 'node_labels',
  edgeLabels: 'edge_labels',
  meta: 'meta',
} as const;

export const META = {
  version: 'format_version',
  nextNode: 'next_node',
  nextEdge: 'next_edge',
  nodeCount: 'node_count',
  edgeCount: 'edge_count',
} as const;

/**
 * An upper bound for "anything after this prefix": within an array key every later
 * element is a number (first byte 0x10..0x1f), and any string starting with U+FFFF
 * encodes to bytes >= 0xEF, so [prefix..., HIGH] is above every [prefix..., n, ...].
 */
export const HIGH = '\uffff';

/** Node record value: [label, props]. Edge record value: [label, from, to, props]. */
export type StoredNode = [string, Record<string, unknown>];
export type StoredEdge = [string, number, number, Record<string, unknown>];

/** Adjacency key: [node, label, other, edge] in both the `out` and the `in` database. */
export type AdjacencyKey = [number, string, number, number];

/** Label index key: [label, id]. */
export type LabelKey = [string, number];
