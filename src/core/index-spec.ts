/**
 * What an index is, as `create_index` and `drop_index` name it (reference v2-wire §4.9):
 * the plan carries it, the store keeps it. An index's identity is its kind, label and
 * property; the other fields are its definition, which a second `create_index` of the
 * same identity must repeat exactly.
 */

/** `inner_product` is a Trellis extension (the reference has the other three). */
export type VectorMetric = 'cosine' | 'euclidean' | 'manhattan' | 'inner_product';
export type IndexDirection = 'asc' | 'desc';

export type IndexSpec =
  | {
      readonly kind: 'node_equality' | 'edge_equality';
      readonly label: string;
      readonly property: string;
      readonly unique: boolean;
    }
  | {
      readonly kind: 'node_range' | 'edge_range';
      readonly label: string;
      readonly property: string;
      readonly direction: IndexDirection;
    }
  | {
      readonly kind: 'node_vector' | 'edge_vector';
      readonly label: string;
      readonly property: string;
      readonly dimension: number;
      readonly metric: VectorMetric;
      readonly tenant_property: string | null;
      /**
       * The default beam of its searches (a Trellis extension; null: the engine's default).
       * Absent from indexes stored before it existed: read it as `ef_search ?? null`.
       */
      readonly ef_search: number | null;
    }
  | {
      readonly kind: 'node_text' | 'edge_text';
      readonly label: string;
      readonly property: string;
      readonly tenant_property: string | null;
    };

export type IndexKind = IndexSpec['kind'];
export type IndexFamily = 'secondary' | 'vector' | 'text';
export type IndexElement = 'node' | 'edge';

export const INDEX_KINDS: readonly IndexKind[] = [
  'node_equality',
  'node_range',
  'edge_equality',
  'edge_range',
  'node_vector',
  'edge_vector',
  'node_text',
  'edge_text',
];

export function familyOf(kind: IndexKind): IndexFamily {
  if (kind.endsWith('_vector')) return 'vector';
  if (kind.endsWith('_text')) return 'text';
  return 'secondary';
}

export function elementOf(kind: IndexKind): IndexElement {
  return kind.startsWith('node_') ? 'node' : 'edge';
}

/** The identity of an index: two specs with the same identity name the same index. */
export function identityOf(spec: Pick<IndexSpec, 'kind' | 'label' | 'property'>): string {
  return `${spec.kind}\u0000${spec.label}\u0000${spec.property}`;
}

/** Whether two specs of one identity define the same index. */
export function sameDefinition(a: IndexSpec, b: IndexSpec): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** The spec's fields in a fixed order (stored specs may come back with keys reordered). */
export function canonical(spec: IndexSpec): IndexSpec {
  switch (spec.kind) {
    case 'node_equality':
    case 'edge_equality':
      return { kind: spec.kind, label: spec.label, property: spec.property, unique: spec.unique };
    case 'node_range':
    case 'edge_range':
      return { kind: spec.kind, label: spec.label, property: spec.property, direction: spec.direction };
    case 'node_vector':
    case 'edge_vector':
      return {
        kind: spec.kind,
        label: spec.label,
        property: spec.property,
        dimension: spec.dimension,
        metric: spec.metric,
        tenant_property: spec.tenant_property,
        ef_search: spec.ef_search ?? null,
      };
    case 'node_text':
    case 'edge_text':
      return { kind: spec.kind, label: spec.label, property: spec.property, tenant_property: spec.tenant_property };
  }
}

/** How messages name an index: `Node text index Doc.body` (the reference's wording). */
export function describeIndex(spec: IndexSpec): string {
  const element = elementOf(spec.kind) === 'node' ? 'Node' : 'Edge';
  const family = familyOf(spec.kind);
  const what = family === 'secondary' ? (spec.kind.endsWith('_range') ? 'range' : 'equality') : family;
  return `${element} ${what} index \`${spec.label}.${spec.property}\``;
}

/** A canonical lowercase, non-nil UUID: the syntax of index operation ids. */
export const OPERATION_ID = /^(?!0{8}-0{4}-0{4}-0{4}-0{12})[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
