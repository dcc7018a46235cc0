/**
 * The variables of patterns: which a pattern introduces, which it refers to, and the rules of
 * each place a pattern stands.
 *
 * Reading (MATCH, pattern comprehensions, pattern predicates):
 *  - a variable already bound is a reference, and must be of the kind its place needs: a
 *    relationship or path variable in a node's place is VariableTypeConflict, and so is a
 *    variable holding a known non-node value (`WITH 1 AS n MATCH (n)`);
 *  - a relationship variable twice in one MATCH: RelationshipUniquenessViolation;
 *  - a path variable (`p = ...`) already bound: VariableAlreadyBound;
 *  - `(n $param)`: InvalidParameterUse (a parameter map cannot be a predicate);
 *  - a pattern predicate (`WHERE (a)-[r]->(b)`) introduces nothing: UndefinedVariable.
 * Writing (CREATE, MERGE):
 *  - a bound node alone (`MATCH (a) CREATE (a)`), or with labels or properties, and any bound
 *    relationship or path variable: VariableAlreadyBound;
 *  - a relationship needs one type (NoSingleRelationshipType), a direction
 *    (RequiresDirectedRelationship; MERGE may leave it undirected) and one hop
 *    (CreatingVarLength); MERGE rejects a parameter map as CREATE does not (InvalidParameterUse);
 *  - several labels on a node to create (`(:A:B)`): out of scope (MultipleLabels).
 */
import type { MapExpr, Name, NodePattern, ParameterExpr, PatternPart, RelationshipPattern } from './ast.js';
import { isList, listOf, mayBe, showTy, type Ty } from './check-types.js';
import { semanticError, type AnalysisState, type Binding, type Scope } from './scope.js';

/** Checks a pattern's property map (or parameter) in a scope. */
export type CheckProps = (props: MapExpr | ParameterExpr, scope: Scope) => void;

const nodeOk = (ty: Ty): boolean => ty === 'node' || ty === 'any' || ty === 'null';

function relationshipOk(ty: Ty, varLength: boolean): boolean {
  if (ty === 'any' || ty === 'null') return true;
  return varLength ? isList(ty) && mayBe(ty.list, ['relationship']) : ty === 'relationship';
}

/** The pattern elements in order: node, relationship, node, ... */
function elements(part: PatternPart): (NodePattern | RelationshipPattern)[] {
  const out: (NodePattern | RelationshipPattern)[] = [];
  part.nodes.forEach((node, i) => {
    out.push(node);
    const rel = part.relationships[i];
    if (rel !== undefined) out.push(rel);
  });
  return out;
}

const isNode = (x: NodePattern | RelationshipPattern): x is NodePattern => 'labels' in x;

function conflict(name: Name, had: Ty, wanted: string, clause: string): never {
  throw semanticError(
    'VariableTypeConflict',
    `variable \`${name.name}\` is ${showTy(had)}, it cannot be used as ${wanted} (in ${clause})`,
    name.span,
  );
}

/**
 * Binds the variables of a reading pattern; returns those it introduces, and those whose
 * type it learns (a value of unknown type used as a node is a node after it). Property maps
 * are checked with every variable of the pattern in scope.
 */
export function bindReadPattern(
  parts: readonly PatternPart[],
  mode: 'match' | 'comprehension' | 'predicate',
  outer: Scope,
  state: AnalysisState,
  checkProps: CheckProps,
): Map<string, Binding> {
  const clause = mode === 'match' ? 'MATCH' : mode === 'predicate' ? 'a pattern predicate' : 'a pattern comprehension';
  const bound = new Map<string, Binding>();
  const relationships = new Set<string>();
  const props: (MapExpr | ParameterExpr)[] = [];
  const lookup = (name: string) => bound.get(name) ?? outer.get(name);
  const undefinedInPredicate = (name: Name): never => {
    throw semanticError(
      'UndefinedVariable',
      `variable \`${name.name}\` is not defined: a pattern predicate cannot introduce variables (use EXISTS or MATCH)`,
      name.span,
    );
  };
  for (const part of parts) {
    for (const element of elements(part)) {
      if (element.properties !== null) {
        if (element.properties.kind === 'parameter') {
          throw semanticError(
            'InvalidParameterUse',
            `a parameter cannot stand for the properties of a pattern in ${clause}: write {key: $param.key, ...}`,
            element.properties.span,
          );
        }
        props.push(element.properties);
      }
      const name = element.variable;
      if (name === null) continue;
      const had = lookup(name.name);
      if (isNode(element)) {
        if (had !== undefined) {
          if (!nodeOk(had.ty)) conflict(name, had.ty, 'a node', clause);
          if (had.ty !== 'node') bound.set(name.name, { ty: 'node', span: had.span });
          state.noteKind(name, 'node');
        } else if (mode === 'predicate') undefinedInPredicate(name);
        else {
          bound.set(name.name, { ty: 'node', span: name.span });
          state.noteKind(name, 'node');
        }
        continue;
      }
      const varLength = element.length !== null;
      if (had !== undefined) {
        if (relationships.has(name.name)) {
          throw semanticError(
            'RelationshipUniquenessViolation',
            `relationship variable \`${name.name}\` is used twice in one pattern: a pattern never matches one relationship twice`,
            name.span,
          );
        }
        if (!relationshipOk(had.ty, varLength)) conflict(name, had.ty, varLength ? 'a list of relationships' : 'a relationship', clause);
        const ty: Ty = varLength ? listOf('relationship') : 'relationship';
        if (had.ty === 'any' || had.ty === 'null') bound.set(name.name, { ty, span: had.span });
        state.noteKind(name, ty);
      } else if (mode === 'predicate') undefinedInPredicate(name);
      else {
        const ty: Ty = varLength ? listOf('relationship') : 'relationship';
        bound.set(name.name, { ty, span: name.span });
        state.noteKind(name, ty);
      }
      relationships.add(name.name);
    }
    if (part.variable !== null) {
      if (lookup(part.variable.name) !== undefined) {
        throw semanticError(
          'VariableAlreadyBound',
          `variable \`${part.variable.name}\` is already bound: it cannot name the path of this pattern (in ${clause})`,
          part.variable.span,
        );
      }
      bound.set(part.variable.name, { ty: 'path', span: part.variable.span });
      state.noteKind(part.variable, 'path');
    }
  }
  const scope = new Map([...outer, ...bound]);
  for (const p of props) checkProps(p, scope);
  return bound;
}

/**
 * Binds the variables of CREATE's pattern list or MERGE's pattern; returns those it
 * introduces (and those whose type it learns). A property map sees the variables bound before
 * its element.
 */
export function bindWritePattern(
  parts: readonly PatternPart[],
  mode: 'create' | 'merge',
  outer: Scope,
  state: AnalysisState,
  checkProps: CheckProps,
): Map<string, Binding> {
  const clause = mode.toUpperCase();
  const bound = new Map<string, Binding>();
  const lookup = (name: string) => bound.get(name) ?? outer.get(name);
  const alreadyBound = (name: Name, why: string): never => {
    throw semanticError('VariableAlreadyBound', `variable \`${name.name}\` is already bound: ${why} (in ${clause})`, name.span);
  };
  for (const part of parts) {
    const alone = part.relationships.length === 0;
    for (const element of elements(part)) {
      if (element.properties !== null) {
        if (element.properties.kind === 'parameter' && mode === 'merge') {
          throw semanticError(
            'InvalidParameterUse',
            'a parameter cannot stand for the properties of a MERGE pattern: write {key: $param.key, ...}',
            element.properties.span,
          );
        }
        checkProps(element.properties, new Map([...outer, ...bound]));
      }
      const name = element.variable;
      if (isNode(element)) {
        if (element.labels.length > 1) {
          state.noteUnsupported(
            'MultipleLabels',
            `a node with several labels (${element.labels.map((l) => ':' + l.name).join('')}) cannot be written: a node has at most one label here`,
            element.span,
          );
        }
        if (name === null) continue;
        const had = lookup(name.name);
        if (had === undefined) {
          bound.set(name.name, { ty: 'node', span: name.span });
          state.noteKind(name, 'node');
          continue;
        }
        if (alone) alreadyBound(name, `${clause} cannot ${mode} a node that exists`);
        if (element.labels.length > 0 || element.properties !== null) {
          alreadyBound(name, `labels or properties cannot be given to a node that exists`);
        }
        if (!nodeOk(had.ty)) conflict(name, had.ty, 'a node', clause);
        if (had.ty !== 'node') bound.set(name.name, { ty: 'node', span: had.span });
        state.noteKind(name, 'node');
        continue;
      }
      if (name !== null && lookup(name.name) !== undefined) alreadyBound(name, `${clause} cannot ${mode} a relationship that exists`);
      checkRelationshipToWrite(element, mode);
      if (name !== null) {
        bound.set(name.name, { ty: 'relationship', span: name.span });
        state.noteKind(name, 'relationship');
      }
    }
    if (part.variable !== null) {
      if (lookup(part.variable.name) !== undefined) alreadyBound(part.variable, 'it cannot name the path of this pattern');
      bound.set(part.variable.name, { ty: 'path', span: part.variable.span });
      state.noteKind(part.variable, 'path');
    }
  }
  return bound;
}

function checkRelationshipToWrite(rel: RelationshipPattern, mode: 'create' | 'merge'): void {
  const clause = mode.toUpperCase();
  if (rel.length !== null) {
    throw semanticError('CreatingVarLength', `${clause} cannot ${mode} a variable-length relationship`, rel.span);
  }
  if (rel.types.length !== 1) {
    throw semanticError(
      'NoSingleRelationshipType',
      `a relationship to ${mode} needs exactly one type (${rel.types.length === 0 ? 'none' : rel.types.map((t) => t.name).join('|')} given)`,
      rel.span,
    );
  }
  if (rel.direction === 'both' || (rel.direction === 'none' && mode === 'create')) {
    throw semanticError(
      'RequiresDirectedRelationship',
      `a relationship to ${mode} needs one direction (-[...]-> or <-[...]-) (in ${clause})`,
      rel.span,
    );
  }
}
