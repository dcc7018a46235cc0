/**
 * Answers as graphs: every node, relationship and path in an answer becomes the nodes and
 * edges the graph view draws. Pure (no DOM), so the tests run it under Node.
 *
 * Shapes (docs/cypher.md, docs/queries.md "Response"):
 * - Cypher `{"columns", "rows"}`: cells hold `{"$type": "node"|"relationship"|"path"}`
 *   objects anywhere (in lists and maps too); ids are decimal strings.
 * - `/v2/query` and named queries: an object of arrays. An object with `$id` is an
 *   element: an edge when it has `$from` and `$to` (`edge_properties`, a `value_map` of
 *   edges), else a node (`value_map`, or `{"$id": n}` alone: identity only). A row
 *   envelope `{"current", "bindings", "path"}` names elements as `{"node": id}` and
 *   `{"edge": id}`; a path alternates them, which gives an edge its endpoints.
 *
 * What an answer names without saying what it is (a node by id only, an edge without its
 * endpoints) is marked `partial`/listed in `unplaced`, for the page to look up.
 */

export interface GraphNode {
  readonly id: string;
  labels: string[];
  properties: Record<string, unknown>;
  /** Only the id is known: the page may fetch the labels and properties. */
  partial: boolean;
}

export interface GraphEdge {
  readonly id: string;
  source: string;
  target: string;
  type: string;
  properties: Record<string, unknown>;
  partial: boolean;
}

export interface GraphData {
  readonly nodes: Map<string, GraphNode>;
  readonly edges: Map<string, GraphEdge>;
  /** Edges named by id alone, whose endpoints the answer does not give. */
  readonly unplaced: Set<string>;
}

export function emptyGraph(): GraphData {
  return { nodes: new Map(), edges: new Map(), unplaced: new Set() };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Adds a node, or fills in what a partial one lacked. */
function putNode(g: GraphData, node: GraphNode): void {
  const had = g.nodes.get(node.id);
  if (had === undefined) g.nodes.set(node.id, node);
  else if (had.partial && !node.partial) {
    had.labels = node.labels;
    had.properties = node.properties;
    had.partial = false;
  }
}

function placeholder(g: GraphData, id: string): void {
  if (!g.nodes.has(id)) g.nodes.set(id, { id, labels: [], properties: {}, partial: true });
}

function putEdge(g: GraphData, edge: GraphEdge): void {
  const had = g.edges.get(edge.id);
  if (had === undefined || (had.partial && !edge.partial)) g.edges.set(edge.id, edge);
  g.unplaced.delete(edge.id);
  placeholder(g, edge.source);
  placeholder(g, edge.target);
}

// ---- Cypher

function cypherNode(g: GraphData, v: Record<string, unknown>): void {
  putNode(g, {
    id: String(v.id),
    labels: Array.isArray(v.labels) ? v.labels.map(String) : [],
    properties: isObject(v.properties) ? v.properties : {},
    partial: false,
  });
}

function cypherRelationship(g: GraphData, v: Record<string, unknown>): void {
  putEdge(g, {
    id: String(v.id),
    source: String(v.start),
    target: String(v.end),
    type: String(v.type ?? ''),
    properties: isObject(v.properties) ? v.properties : {},
    partial: false,
  });
}

/** Every element in a Cypher value, at any depth. */
export function collectCypherValue(g: GraphData, v: unknown): void {
  if (Array.isArray(v)) {
    for (const item of v) collectCypherValue(g, item);
    return;
  }
  if (!isObject(v)) return;
  switch (v.$type) {
    case 'node':
      cypherNode(g, v);
      return;
    case 'relationship':
      cypherRelationship(g, v);
      return;
    case 'path':
      // Nodes first, so the relationships find their endpoints complete.
      if (Array.isArray(v.nodes)) for (const n of v.nodes) if (isObject(n)) cypherNode(g, n);
      if (Array.isArray(v.relationships)) for (const r of v.relationships) if (isObject(r)) cypherRelationship(g, r);
      return;
    case 'integer':
    case 'float':
      return;
    case 'map':
      collectCypherValue(g, v.value);
      return;
  }
  for (const key in v) collectCypherValue(g, v[key]);
}

// ---- /v2/query

const RESERVED = new Set(['$id', '$label', '$from', '$to', '$distance', '$score']);

function propertiesOf(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in v) if (!RESERVED.has(key)) out[key] = v[key];
  // Search hits carry their rank: shown with the properties, marked as not stored.
  if (v.$distance !== undefined) out['$distance'] = v.$distance;
  if (v.$score !== undefined) out['$score'] = v.$score;
  return out;
}

function isRef(v: unknown): v is { node: unknown } | { edge: unknown } {
  if (!isObject(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 1 && (keys[0] === 'node' || keys[0] === 'edge');
}

function isEnvelope(v: Record<string, unknown>): boolean {
  if (!('current' in v)) return false;
  for (const key in v) if (key !== 'current' && key !== 'bindings' && key !== 'path' && key !== 'sack') return false;
  return true;
}

function refNode(g: GraphData, ref: unknown): string | undefined {
  if (!isObject(ref) || ref.node === undefined) return undefined;
  const id = String(ref.node);
  placeholder(g, id);
  return id;
}

function refEdge(g: GraphData, ref: unknown): void {
  if (isObject(ref) && ref.edge !== undefined) {
    const id = String(ref.edge);
    if (!g.edges.has(id)) g.unplaced.add(id);
  }
}

/** A `path` of a row envelope: node, edge, node, ... gives each edge its endpoints, in the order walked. */
function envelopePath(g: GraphData, path: unknown[]): void {
  for (let i = 0; i < path.length; i++) {
    const step = path[i];
    if (isObject(step) && step.node !== undefined) {
      refNode(g, step);
      continue;
    }
    if (!isObject(step) || step.edge === undefined) continue;
    const before = path[i - 1];
    const after = path[i + 1];
    const id = String(step.edge);
    if (isObject(before) && before.node !== undefined && isObject(after) && after.node !== undefined) {
      if (!g.edges.has(id))
        putEdge(g, { id, source: String(before.node), target: String(after.node), type: '', properties: {}, partial: true });
    } else {
      refEdge(g, step);
    }
  }
}

/** Every element in a `/v2/query` value, at any depth. */
export function collectQueryValue(g: GraphData, v: unknown): void {
  if (Array.isArray(v)) {
    for (const item of v) collectQueryValue(g, item);
    return;
  }
  if (!isObject(v)) return;
  if ('$id' in v) {
    const id = String(v.$id);
    const identityOnly = Object.keys(v).length === 1;
    if (v.$from !== undefined && v.$to !== undefined) {
      putEdge(g, {
        id,
        source: String(v.$from),
        target: String(v.$to),
        type: typeof v.$label === 'string' ? v.$label : '',
        properties: propertiesOf(v),
        partial: false,
      });
    } else {
      putNode(g, {
        id,
        labels: typeof v.$label === 'string' ? [v.$label] : [],
        properties: propertiesOf(v),
        partial: identityOnly,
      });
    }
    return;
  }
  if (isEnvelope(v)) {
    if (isRef(v.current)) {
      refNode(g, v.current);
      refEdge(g, v.current);
    }
    if (isObject(v.bindings)) {
      for (const key in v.bindings) {
        refNode(g, v.bindings[key]);
        refEdge(g, v.bindings[key]);
      }
    }
    if (Array.isArray(v.path)) envelopePath(g, v.path);
    return;
  }
  for (const key in v) collectQueryValue(g, v[key]);
}

// ---- named queries

const NAMED_RESERVED = new Set(['id', 'label', 'from_node', 'to_node']);

/**
 * Every element in a named query's answer (src/hql/response.ts): an element is shown as
 * `{"id", "label", ...fields}`, an edge with `from_node` and `to_node` too.
 */
export function collectNamedValue(g: GraphData, v: unknown): void {
  if (Array.isArray(v)) {
    for (const item of v) collectNamedValue(g, item);
    return;
  }
  if (!isObject(v)) return;
  if (typeof v.id === 'number' && 'label' in v) {
    const properties: Record<string, unknown> = {};
    for (const key in v) if (!NAMED_RESERVED.has(key)) properties[key] = v[key];
    const label = typeof v.label === 'string' ? v.label : '';
    if (v.from_node != null && v.to_node != null) {
      putEdge(g, { id: String(v.id), source: String(v.from_node), target: String(v.to_node), type: label, properties, partial: false });
    } else {
      putNode(g, { id: String(v.id), labels: label === '' ? [] : [label], properties, partial: false });
    }
    return;
  }
  for (const key in v) collectNamedValue(g, v[key]);
}

/** Whether an answer is a Cypher table. */
export function isCypherAnswer(answer: unknown): answer is { columns: string[]; rows: unknown[][] } {
  return isObject(answer) && Array.isArray(answer.columns) && Array.isArray(answer.rows) && Object.keys(answer).length === 2;
}

/** Which route answered: a Cypher statement, a `/v2/query` body, or a named query. */
export type AnswerKind = 'cypher' | 'query' | 'named';

/** The graph of an answer of that route; JSON with no elements gives an empty graph. */
export function graphOfAnswer(answer: unknown, kind: AnswerKind): GraphData {
  const g = emptyGraph();
  if (kind === 'cypher') collectCypherValue(g, isCypherAnswer(answer) ? answer.rows : answer);
  else if (kind === 'query') collectQueryValue(g, answer);
  else collectNamedValue(g, answer);
  return g;
}

/** The caption of a node: the chosen property when it has one, else a usual name property, else its label and id. */
export function captionOf(node: GraphNode, property: string | undefined): string {
  const p = node.properties;
  if (property !== undefined && property !== '' && p[property] != null) return String(p[property]);
  for (const key of ['name', 'title', 'label', 'id']) if (typeof p[key] === 'string' || typeof p[key] === 'number') return String(p[key]);
  return node.labels.length > 0 ? `${node.labels[0]} ${node.id}` : node.id;
}
