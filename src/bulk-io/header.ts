/**
 * neo4j-admin's CSV header syntax, so files made for `neo4j-admin database import` load as
 * they are (docs/import-export.md, "Headers"). Each field is `<name>:<type>`:
 *
 * - `uid:ID(User)` the node's key: the id space `User` (default: one global space), kept as
 *   property `uid` (no name: used for edges only, not kept);
 * - `:START_ID(User)`, `:END_ID(User)` an edge's ends, by key in that id space;
 * - `:LABEL` the node's label, `:TYPE` the edge's; `:IGNORE` a column skipped;
 * - `age:int` a property of a type (int long short byte float double boolean string char
 *   date datetime localdatetime, and `json`, Trellis's own: a tagged value of the v2 wire
 *   for what the others cannot hold); `[]` after a type makes an array (`tags:string[]`,
 *   a vector `embedding:float[]`). No type: string.
 */

export const SCALAR_TYPES = [
  'int',
  'long',
  'short',
  'byte',
  'float',
  'double',
  'boolean',
  'string',
  'char',
  'date',
  'datetime',
  'localdatetime',
  'json',
] as const;
export type ScalarType = (typeof SCALAR_TYPES)[number];

export interface ValueType {
  readonly scalar: ScalarType;
  readonly array: boolean;
}

/** How key columns (ID, START_ID, END_ID) are read: as text, or as integers (neo4j's --id-type). */
export type IdType = 'string' | 'integer';

export type Field =
  | { readonly role: 'property'; readonly name: string; readonly type: ValueType }
  /** A node's key; `name` '' when it is not kept as a property. */
  | { readonly role: 'id'; readonly name: string; readonly space: string; readonly type: ValueType }
  | { readonly role: 'start' | 'end'; readonly space: string; readonly type: ValueType }
  | { readonly role: 'label' | 'type' | 'ignore' };

/** The id space of `:ID` without a name in parentheses. */
export const GLOBAL_SPACE = '';

export class HeaderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HeaderError';
  }
}

const STRING: ValueType = { scalar: 'string', array: false };

/** The key type of an id column: integer ids are `long`. */
export function idValueType(idType: IdType): ValueType {
  return idType === 'integer' ? { scalar: 'long', array: false } : STRING;
}

/** A type name: `long`, `float[]`... (case-insensitive, as neo4j-admin reads them). */
export function parseValueType(text: string): ValueType | null {
  const t = text.trim().toLowerCase();
  const array = t.endsWith('[]');
  const scalar = array ? t.slice(0, -2) : t;
  return (SCALAR_TYPES as readonly string[]).includes(scalar) ? { scalar: scalar as ScalarType, array } : null;
}

export function typeName(type: ValueType): string {
  return type.array ? `${type.scalar}[]` : type.scalar;
}

const NEO4J_ONLY = ['point', 'time', 'localtime', 'duration'];

/**
 * One header field of a node (`element` 'node') or edge file. `idType` is the type of key
 * columns; a field's own type after the role (`uid:ID(User):long`... is not neo4j's syntax
 * and is refused).
 */
export function parseField(text: string, element: 'node' | 'edge', idType: IdType): Field {
  const colon = text.lastIndexOf(':');
  const name = colon < 0 ? text : text.slice(0, colon);
  const kind = colon < 0 ? '' : text.slice(colon + 1).trim();
  const where = `header field "${text}"`;
  if (colon < 0 || kind === '') {
    if (name.trim() === '') throw new HeaderError(`${where}: a property needs a name`);
    return { role: 'property', name: name.trim(), type: STRING };
  }
  const role = /^(ID|START_ID|END_ID)\s*(?:\(([^)]*)\))?$/i.exec(kind);
  if (role !== null) {
    const which = role[1]!.toUpperCase();
    const space = (role[2] ?? GLOBAL_SPACE).trim();
    const type = idValueType(idType);
    if (which === 'ID') {
      if (element !== 'node')
        throw new HeaderError(`${where}: ID belongs in a node file; an edge file names its ends with :START_ID and :END_ID`);
      return { role: 'id', name: name.trim(), space, type };
    }
    if (element !== 'edge') throw new HeaderError(`${where}: ${which} belongs in an edge file`);
    return { role: which === 'START_ID' ? 'start' : 'end', space, type };
  }
  switch (kind.toUpperCase()) {
    case 'LABEL':
      if (element !== 'node') throw new HeaderError(`${where}: LABEL belongs in a node file (an edge has a TYPE)`);
      return { role: 'label' };
    case 'TYPE':
      if (element !== 'edge') throw new HeaderError(`${where}: TYPE belongs in an edge file (a node has a LABEL)`);
      return { role: 'type' };
    case 'IGNORE':
      return { role: 'ignore' };
  }
  const type = parseValueType(kind);
  if (type === null) {
    const base = kind
      .toLowerCase()
      .replace(/\[\]$/, '')
      .replace(/\{.*\}$/, '');
    const why = NEO4J_ONLY.includes(base) ? `Trellis has no ${base} type` : `unknown type "${kind}"`;
    throw new HeaderError(`${where}: ${why}; the types are ${SCALAR_TYPES.join(', ')}, each also as an array (type[])`);
  }
  if (name.trim() === '') throw new HeaderError(`${where}: a property needs a name before the colon`);
  return { role: 'property', name: name.trim(), type };
}

/**
 * A whole header: its fields, checked together. A node file has at most one ID and one
 * LABEL; an edge file exactly one START_ID and one END_ID, at most one TYPE; no property
 * twice.
 */
export function parseHeader(fields: readonly string[], element: 'node' | 'edge', idType: IdType): Field[] {
  const parsed = fields.map((f) => parseField(f, element, idType));
  const count = (role: Field['role']) => parsed.filter((f) => f.role === role).length;
  const once = (role: Field['role'], label: string) => {
    if (count(role) > 1) throw new HeaderError(`the header has ${count(role)} ${label} fields; at most one is allowed`);
  };
  once('id', ':ID');
  once('label', ':LABEL');
  once('type', ':TYPE');
  if (element === 'edge') {
    for (const [role, label] of [
      ['start', ':START_ID'],
      ['end', ':END_ID'],
    ] as const) {
      if (count(role) !== 1) throw new HeaderError(`an edge header needs exactly one ${label} field, this one has ${count(role)}`);
    }
  }
  const names = new Set<string>();
  for (const f of parsed) {
    const name = f.role === 'property' || f.role === 'id' ? f.name : '';
    if (name === '') continue;
    if (names.has(name)) throw new HeaderError(`the header names property "${name}" twice`);
    names.add(name);
  }
  return parsed;
}
