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
      /**
       * The graph's links per element above level 0 (level 0 keeps twice as many): HNSW's M
       * (a Trellis extension, as HelixDB's `vector_config.m`). Absent from indexes stored
       * before it existed: the catalogue reads them as HNSW_BUILD.m.default (canonical).
       */
      readonly m: number;
      /** The beam of an insertion: HNSW's ef_construction. Absent from older specs as `m` is. */
      readonly ef_construction: number;
    }
  | {
      readonly kind: 'node_text' | 'edge_text';
      readonly label: string;
      readonly property: string;
      readonly tenant_property: string | null;
    };

export type IndexKind = IndexSpec['kind'];

/**
 * The build parameters of a vector index (its graph's shape), their defaults (HelixDB's,
 * which every index had before they could be set) and their bounds: M from 2 (usearch
 * refuses less) to 128, ef_construction from M (a smaller beam cannot fill an element's
 * links) to 4,096.
 */
export const HNSW_BUILD = {
  m: { default: 16, min: 2, max: 128 },
  efConstruction: { default: 128, max: 4096 },
} as const;

/** A vector index's build parameters, as its spec names them. */
export interface HnswBuildParameters {
  readonly m: number;
  readonly ef_construction: number;
}

export const DEFAULT_HNSW_BUILD: HnswBuildParameters = { m: HNSW_BUILD.m.default, ef_construction: HNSW_BUILD.efConstruction.default };

/**
 * What is wrong with a vector index's build parameters, naming the field as `names` spells
 * it (`m` and `ef_construction` in a spec, `vector_config.m` in config.hx.json); null when
 * nothing is. Both are integers (the caller checked); `m` is the index's, given or default.
 */
export function buildParametersProblem(m: number, efConstruction: number, names: { m: string; efConstruction: string }): string | null {
  const { m: M, efConstruction: EF } = HNSW_BUILD;
  if (m < M.min || m > M.max) return `${names.m} must be an integer from ${M.min} to ${M.max}, got ${m}`;
  if (efConstruction < m || efConstruction > EF.max)
    return `${names.efConstruction} must be an integer from ${names.m} (${m}) to ${EF.max}, got ${efConstruction}`;
  return null;
}
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

/**
 * Whether two specs of one identity define the same index; `build` false leaves a vector
 * index's build parameters (`m`, `ef_construction`) out of the comparison.
 */
export function sameDefinition(a: IndexSpec, b: IndexSpec, build = true): boolean {
  const key = (spec: IndexSpec): string => {
    const c = canonical(spec);
    if (build || !('m' in c)) return JSON.stringify(c);
    const { m: _m, ef_construction: _ef, ...rest } = c;
    return JSON.stringify(rest);
  };
  return key(a) === key(b);
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
        m: (spec.m as number | undefined) ?? DEFAULT_HNSW_BUILD.m,
        ef_construction: (spec.ef_construction as number | undefined) ?? DEFAULT_HNSW_BUILD.ef_construction,
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
