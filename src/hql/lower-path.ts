/**
 * Shortest paths (reference §4.2): `ShortestPath<E>` and `ShortestPathBFS<E>` (fewest
 * hops), `ShortestPathDijkstras<E>(weight)` and `ShortestPathAStar<E>(weight, "h")`
 * (least total weight), from the node they follow `::To(x)`, or from `::From(x)` to it.
 * BFS lowers to /v2/query's `shortest_path` with `"result": "path"`, the weighted ones to
 * `weighted_shortest_path`; the weight is an expression over the edge (`_::{p}`), its ends
 * (`_::FromN::{p}`, `_::ToN::{p}`), numbers, parameters and math functions. From one node
 * at the top of a statement the step is one path; from several nodes, or from the element
 * of a nested traversal (a projected value, EXISTS), the operation takes those nodes as
 * its input (its `"input"` end), one path per node.
 */
import type { Expr, IdArg, Step } from './ast.js';
import { elementType, hiddenName, idReference, kindOfType, outerScope, shows, type Lowered, type Lowering } from './lower-context.js';
import { literal, mathCall } from './lower-value.js';
import { isNumberType, type EdgeType, type NodeType } from './schema.js';
import { CompileError, describeTy } from './types.js';
import type { HqlElement } from '../plan/hql-format.js';
import { LIMITS } from '../plan/limits.js';
import { op, type Wire } from './wire-build.js';

export function lowerPath(l: Lowering, state: Lowered, step: Extract<Step, { kind: 'path' }>): Lowered {
  const ty = state.ty;
  if (ty.k !== 'element' || ty.kind === 'edge')
    throw new CompileError(step.pos, `${step.algorithm} starts from nodes (N<T>, a variable of nodes, _), not from ${describeTy(ty)}`);
  if (step.to === null && step.from === null) throw new CompileError(step.pos, `${step.algorithm} needs ::To(node) or ::From(node)`);
  if (step.to !== null && step.from !== null) throw new CompileError(step.pos, `${step.algorithm} takes ::To or ::From, not both`);
  const edge = step.edge === null ? null : (elementType(l, 'edge', step.edge.text, step.edge.pos) as EdgeType);
  // The nodes the step follows are one end; ::To(x) names the other (they are the source), ::From(x) the source.
  const other = endRef(l, (step.to ?? step.from)!);
  let ends: Record<string, unknown>;
  if (ty.single && l.expressionLevel === 0) {
    // One node at the top of a statement: one path between two nodes, the first held in a hidden variable.
    const here = hiddenName(l, 'end');
    l.pre.push({ query: { name: here, root: state.root } });
    ends = step.to !== null ? { source: { var: here }, target: other } : { source: other, target: { var: here } };
  } else {
    // Several nodes, or the element of a nested traversal: one path per node, each node the "input" end.
    ends = step.to !== null ? { input: state.root, source: 'input', target: other } : { input: state.root, source: other, target: 'input' };
  }
  const common = { ...ends, ...(edge === null ? {} : { label: edge.name }), direction: 'out' };
  let root: Wire;
  if (step.weight === null) {
    root = op('shortest_path', { ...common, max_depth: LIMITS.maxRepeatDepth, result: 'path' });
  } else {
    if (edge === null) throw new CompileError(step.pos, `${step.algorithm} needs its edge type, <Edge>, to weigh the edges`);
    const weight = weightExpr(l, step.weight, edge);
    if (step.heuristic !== null) {
      // Checked like a field the path's nodes may hold: a number.
      const endTypes = [l.schema.nodes.get(edge.from)!, l.schema.nodes.get(edge.to)!];
      if (!endTypes.some((t) => isNumberType(t.fields.get(step.heuristic!)?.type)))
        throw new CompileError(step.pos, `the heuristic "${step.heuristic}" is not a number field of ${edge.from} or ${edge.to}`);
    }
    root = op('weighted_shortest_path', { ...common, weight, ...(step.heuristic === null ? {} : { heuristic: step.heuristic }) });
  }
  // One path (none: 404 at the top, null inside a projection), or a list of paths, one per node that has one.
  return {
    root,
    ty: { k: 'shaped', single: ty.single, what: ty.single ? 'a path' : 'paths' },
    show: shows({ unwrap: ty.single ? 'one' : 'list', path: { types: pathTypes(l, edge) } }),
  };
}

/**
 * `::To(x)` / `::From(x)`: an ID parameter, a literal id, a variable of one node or one id,
 * or the item of an enclosing projection (`|u|{... ::To(u)}`), read as the element the
 * traversal expressions between its scope and here started from.
 */
function endRef(l: Lowering, arg: IdArg): Wire {
  if (arg.kind === 'name' && !l.scope.has(arg.name.text)) {
    const frame = outerScope(l, arg.name.text);
    if (frame !== undefined) {
      if (frame.el.kind === 'edge') throw new CompileError(arg.name.pos, `a path ends at a node; "${arg.name.text}" is an edge`);
      const depth = l.expressionLevel - frame.level;
      // A path step always runs in a traversal of its own inside a projection: at least one level in.
      if (depth < 1) throw new CompileError(arg.name.pos, `"${arg.name.text}" is the element this path starts from`);
      return { outer: { depth } };
    }
  }
  const ref = idReference(l, arg, 'node');
  if (arg.kind === 'name') {
    const v = l.scope.get(arg.name.text)!;
    if ((v.ty.k === 'element' || v.ty.k === 'shaped') && !v.ty.single)
      throw new CompileError(arg.name.pos, `a path ends at one node; "${arg.name.text}" holds ${describeTy(v.ty)}`);
  }
  return ref;
}

/** How the path's nodes and edges are shown, by label: the edge type's (or every type's, without one). */
function pathTypes(l: Lowering, edge: EdgeType | null): Record<string, HqlElement> {
  const types: Record<string, HqlElement> = {};
  const nodes = edge === null ? [...l.schema.nodes.values()] : [l.schema.nodes.get(edge.from)!, l.schema.nodes.get(edge.to)!];
  for (const t of nodes) types[t.name] = { kind: kindOfType(l, t.name), fields: [...t.fields.keys()] };
  for (const e of edge === null ? [...l.schema.edges.values()] : [edge]) types[e.name] = { kind: 'edge', fields: [...e.fields.keys()] };
  return types;
}

/** An edge's weight: a number, a parameter, a property of the edge or of an end, or a math function of these. */
function weightExpr(l: Lowering, e: Expr, edge: EdgeType): Wire {
  switch (e.kind) {
    case 'literal':
      if (typeof e.value === 'bigint' || typeof e.value === 'number') return { constant: literal(e.value, null, e.pos) };
      break;
    case 'math':
      return mathCall(e, (arg) => weightExpr(l, arg, edge));
    case 'traversal': {
      const src = e.source;
      if (src.kind === 'var' && e.steps.length === 0) {
        const v = l.scope.get(src.name.text);
        if (v?.ty.k === 'param' && isNumberType(v.ty.type)) return { param: src.name.text };
        throw new CompileError(e.pos, `a weight is a number: "${src.name.text}" is ${v === undefined ? 'not defined' : describeTy(v.ty)}`);
      }
      if (src.kind !== 'anon') break;
      // _::{p}, _::FromN::{p}, _::ToN::{p}
      const steps = e.steps;
      const last = steps[steps.length - 1];
      const only = last?.kind === 'project' && last.fields.length === 1 && last.fields[0]!.value === null ? last.fields[0]!.name : null;
      if (only === null || steps.length > 2) break;
      const end = steps.length === 2 ? steps[0]! : null;
      if (end !== null && (end.kind !== 'endpoint' || (end.which !== 'FromN' && end.which !== 'ToN'))) break;
      const holder: EdgeType | NodeType =
        end === null ? edge : l.schema.nodes.get(end.kind === 'endpoint' && end.which === 'FromN' ? edge.from : edge.to)!;
      const field = holder.fields.get(only.text);
      if (field === undefined || !isNumberType(field.type))
        throw new CompileError(
          only.pos,
          `"${only.text}" is not a number field of ${holder.kind} type ${holder.name}; a weight reads numbers`,
        );
      const prefix = end === null ? '' : end.kind === 'endpoint' && end.which === 'FromN' ? '$from.' : '$to.';
      return { property: `${prefix}${only.text}` };
    }
    default:
      break;
  }
  throw new CompileError(
    e.pos,
    'a weight is a number, a numeric parameter, _::{property} of the edge, _::FromN::{property} or _::ToN::{property} of an end, or a math function of these (ADD, MUL, POW...)',
  );
}
