/**
 * The schema view: labels and relationship types with their counts, the properties of
 * each label and relationship type with the kinds of values seen in a sample, the indexes
 * with their build status, and a small graph of labels joined by the types between them.
 * Read with four requests: three Cypher statements and `list_indexes` on /v2/query.
 */
import { cypher, numberKinds, post } from './api.js';
import { h } from './dom.js';
import type { Styles } from './styles.js';

export interface LabelInfo {
  readonly label: string;
  readonly count: number;
  /** Property name to the kinds of values seen (string, integer, float, boolean, list, ...). */
  readonly properties: Map<string, Set<string>>;
}

export interface Schema {
  readonly labels: LabelInfo[];
  readonly types: LabelInfo[];
  /** (from label, type, to label) with the number of relationships. */
  readonly links: { from: string; type: string; to: string; count: number }[];
  readonly indexes: Record<string, unknown>[];
  readonly indexError: string | null;
  readonly nodeCount: number;
}

const SAMPLE = 2000;

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) {
    const inner = [...new Set(v.map(kindOf))];
    return `list<${inner.join('|') || 'any'}>`;
  }
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.$number === 'string') return o.$number;
    if (o.$type === 'integer' || o.$type === 'float') return String(o.$type);
    return 'map';
  }
  return typeof v === 'boolean' ? 'boolean' : typeof v === 'string' ? 'string' : typeof v;
}

function labelName(labels: unknown): string {
  return Array.isArray(labels) && labels.length > 0 ? String(labels[0]) : '';
}

function addProperties(into: Map<string, Set<string>>, properties: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(properties)) {
    let kinds = into.get(key);
    if (kinds === undefined) into.set(key, (kinds = new Set()));
    kinds.add(kindOf(value));
  }
}

export async function readSchema(): Promise<Schema> {
  const [labelRows, linkRows, nodeSample, relSample, indexes] = await Promise.all([
    cypher('MATCH (n) RETURN labels(n) AS labels, count(*) AS count'),
    cypher('MATCH (a)-[r]->(b) RETURN labels(a) AS from, type(r) AS type, labels(b) AS to, count(*) AS count'),
    post('/v2/cypher', JSON.stringify({ query: `MATCH (n) RETURN n LIMIT ${SAMPLE}` })),
    post('/v2/cypher', JSON.stringify({ query: `MATCH ()-[r]->() RETURN r LIMIT ${SAMPLE}` })),
    post(
      '/v2/query',
      JSON.stringify({
        request_type: 'read',
        query: { read: { entries: [{ query: { name: 'indexes', root: { list_indexes: {} } } }], returns: ['indexes'] } },
      }),
    ).then(
      (a) => ({ list: (JSON.parse(a.text) as { indexes: Record<string, unknown>[] }).indexes, error: null }),
      (err: Error) => ({ list: [] as Record<string, unknown>[], error: err.message }),
    ),
  ]);
  const labels = new Map<string, LabelInfo>();
  let nodeCount = 0;
  for (const [l, count] of labelRows.rows) {
    const label = labelName(l);
    labels.set(label, { label, count: Number(count), properties: new Map() });
    nodeCount += Number(count);
  }
  for (const [node] of (numberKinds(nodeSample.text) as { rows: [{ labels: string[]; properties: Record<string, unknown> }][] }).rows) {
    const info = labels.get(labelName(node.labels));
    if (info !== undefined) addProperties(info.properties, node.properties);
  }
  const types = new Map<string, LabelInfo>();
  const links: Schema['links'] = [];
  for (const [from, type, to, count] of linkRows.rows) {
    const name = String(type);
    links.push({ from: labelName(from), type: name, to: labelName(to), count: Number(count) });
    const info = types.get(name);
    types.set(name, { label: name, count: (info?.count ?? 0) + Number(count), properties: info?.properties ?? new Map() });
  }
  for (const [rel] of (numberKinds(relSample.text) as { rows: [{ type: string; properties: Record<string, unknown> }][] }).rows) {
    const info = types.get(rel.type);
    if (info !== undefined) addProperties(info.properties, rel.properties);
  }
  const byName = (a: LabelInfo, b: LabelInfo) => a.label.localeCompare(b.label);
  return {
    labels: [...labels.values()].sort(byName),
    types: [...types.values()].sort(byName),
    links,
    indexes: indexes.list,
    indexError: indexes.error,
    nodeCount,
  };
}

function propertyTable(title: string, infos: LabelInfo[], prefix: string): HTMLElement {
  const rows = infos.flatMap((info) => {
    const props = [...info.properties.entries()].sort(([a], [b]) => a.localeCompare(b));
    const head = h(
      'td',
      { rowspan: Math.max(1, props.length) },
      `${prefix}${info.label || '(no label)'}`,
      h('br'),
      h('span', { class: 'muted' }, `${info.count.toLocaleString('en')}`),
    );
    if (props.length === 0) return [h('tr', {}, head, h('td', { class: 'muted' }, 'no properties seen'), h('td'))];
    return props.map(([name, kinds], i) =>
      h('tr', {}, i === 0 ? head : null, h('td', {}, name), h('td', {}, [...kinds].sort().join(', '))),
    );
  });
  return h(
    'div',
    {},
    h('h3', {}, title),
    h(
      'table',
      { class: 'schema-table' },
      h('tr', {}, h('th', {}, 'name · count'), h('th', {}, 'property'), h('th', {}, 'kinds seen')),
      ...rows,
    ),
  );
}

function indexTable(schema: Schema): HTMLElement {
  if (schema.indexError !== null) return h('p', { class: 'error' }, `indexes: ${schema.indexError}`);
  if (schema.indexes.length === 0)
    return h('p', { class: 'muted' }, 'No indexes. Create them with create_index on /v2/query (docs/queries.md, Indexes).');
  return h(
    'table',
    { class: 'schema-table', 'data-testid': 'schema-indexes' },
    h('tr', {}, ...['kind', 'label', 'property', 'state', 'build status', 'progress'].map((c) => h('th', {}, c))),
    ...schema.indexes.map((ix) => {
      const op = (ix.operation ?? {}) as Record<string, unknown>;
      const progress = (op.progress ?? {}) as Record<string, unknown>;
      return h(
        'tr',
        {},
        h('td', {}, String(ix.kind)),
        h('td', {}, String(ix.label)),
        h('td', {}, String(ix.property)),
        h('td', {}, String(ix.state)),
        h(
          'td',
          {},
          `${String(op.status ?? '')}${op.blocker_code !== undefined ? ` (${String(op.blocker_code)}: ${String(op.message)})` : ''}`,
        ),
        h('td', {}, progress.entities !== undefined ? `${String(progress.entities)} elements` : ''),
      );
    }),
  );
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** Labels on a circle, types as arrows between them (a loop for a type within one label). */
function labelGraph(schema: Schema, styles: Styles): SVGElement {
  const width = 640;
  const height = 320;
  const root = svg('svg', { class: 'label-graph', viewBox: `0 0 ${width} ${height}`, 'data-testid': 'schema-graph' });
  const defs = svg('defs', {});
  const marker = svg('marker', {
    id: 'arrow',
    viewBox: '0 0 10 10',
    refX: 10,
    refY: 5,
    markerWidth: 6,
    markerHeight: 6,
    orient: 'auto-start-reverse',
  });
  marker.append(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#94a3b8' }));
  defs.append(marker);
  root.append(defs);
  const labels = schema.labels;
  const at = new Map<string, { x: number; y: number }>();
  labels.forEach((l, i) => {
    const angle = (2 * Math.PI * i) / Math.max(labels.length, 1) - Math.PI / 2;
    const r = labels.length === 1 ? 0 : 120;
    at.set(l.label, { x: width / 2 + r * Math.cos(angle), y: height / 2 + r * Math.sin(angle) });
  });
  const radius = 24;
  for (const link of schema.links) {
    const a = at.get(link.from);
    const b = at.get(link.to);
    if (a === undefined || b === undefined) continue;
    if (link.from === link.to) {
      root.append(
        svg('path', {
          d: `M ${a.x - 10} ${a.y - radius} C ${a.x - 40} ${a.y - 80}, ${a.x + 40} ${a.y - 80}, ${a.x + 10} ${a.y - radius}`,
          fill: 'none',
          stroke: '#94a3b8',
          'marker-end': 'url(#arrow)',
        }),
      );
      root.append(svg('text', { x: a.x, y: a.y - 66, 'text-anchor': 'middle', fill: '#475569' }, `${link.type} (${link.count})`));
      continue;
    }
    const d = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const ux = (b.x - a.x) / d;
    const uy = (b.y - a.y) / d;
    root.append(
      svg('line', {
        x1: a.x + ux * radius,
        y1: a.y + uy * radius,
        x2: b.x - ux * radius,
        y2: b.y - uy * radius,
        stroke: '#94a3b8',
        'marker-end': 'url(#arrow)',
      }),
    );
    root.append(
      svg('text', { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 4, 'text-anchor': 'middle', fill: '#475569' }, `${link.type} (${link.count})`),
    );
  }
  for (const l of labels) {
    const p = at.get(l.label)!;
    root.append(svg('circle', { cx: p.x, cy: p.y, r: radius, fill: styles.of(l.label).color }));
    root.append(svg('text', { x: p.x, y: p.y + 4, 'text-anchor': 'middle', fill: '#fff' }, l.label || '(none)'));
    root.append(svg('text', { x: p.x, y: p.y + radius + 13, 'text-anchor': 'middle', fill: '#475569' }, l.count.toLocaleString('en')));
  }
  return root;
}

export function renderSchema(target: HTMLElement, schema: Schema, styles: Styles): void {
  target.replaceChildren(
    h(
      'p',
      {},
      `${schema.nodeCount.toLocaleString('en')} nodes in ${schema.labels.length} labels; ${schema.types.reduce((n, t) => n + t.count, 0).toLocaleString('en')} relationships in ${schema.types.length} types. Properties and kinds from a sample of up to ${SAMPLE} elements of each.`,
    ),
    labelGraph(schema, styles),
    propertyTable('Labels', schema.labels, ':'),
    propertyTable('Relationship types', schema.types, ':'),
    h('h3', {}, 'Indexes'),
    indexTable(schema),
  );
}
