/**
 * Checks a query against the schema and lowers it to a /v2/query batch (reference
 * helixql-v1.md §3 to §5; DECISIONS D15 to D17). One pass does both: the static type of
 * every traversal decides which operations it becomes, so checking and lowering cannot
 * drift apart. The batch runs on the same decoder, validator and executors as any
 * /v2/query request: there is no second executor.
 *
 * Each statement is compiled on its own; an error in one is reported and the next is
 * still checked, so a file shows all its mistakes at once.
 */
import {
  PRIMITIVE_TYPES,
  type Expr,
  type FieldValue,
  type IdArg,
  type LiteralValue,
  type ParamDef,
  type ProjectionStep,
  type QueryDef,
  type Statement,
  type Step,
  type TypeExpr,
} from './ast.js';
import type { SourcePos } from './lexer.js';
import {
  integerRange,
  isFloatType,
  literalProblem,
  parseDateLiteral,
  type EdgeType,
  type NodeType,
  type Problem,
  type Schema,
} from './schema.js';
import { CompileError, describeTy, typeText, type ElementKind, type Presentation, type ReturnShape, type Ty } from './types.js';
import { and, compare, constant, CONTEXT, ID_EXPR, labelIs, not, op, or, param, projectItem, property, type Wire } from './wire-build.js';

export interface CompiledQuery {
  readonly name: string;
  readonly mcp: boolean;
  readonly params: readonly ParamDef[];
  readonly write: boolean;
  /** The batch entries and returned names of the /v2/query request. */
  readonly entries: readonly Wire[];
  readonly returnNames: readonly string[];
  /** `parameter_types` of the request, one per declared parameter. */
  readonly parameterTypes: Readonly<Record<string, unknown>>;
  /** How the response is built; null for `RETURN NONE` (the body is `null`). */
  readonly returns: readonly ReturnShape[] | null;
}

/** Names the checker refuses as variable, parameter or field names (reference §1, E105). */
const RESERVED_NAMES = new Set<string>(['true', 'false', 'NONE', 'Uuid', '_', ...PRIMITIVE_TYPES]);

const LIST: Presentation = { unwrap: 'list', pluck: null, nested: null, element: null, group: null };
const ONE: Presentation = { unwrap: 'one', pluck: null, nested: null, element: null, group: null };

interface Lowered {
  readonly root: Wire;
  readonly ty: Ty;
  readonly show: Presentation;
}

/** What an assignment adds to the batch, and the variable it binds. */
interface Assigned {
  readonly entries: Wire[];
  readonly ty: Ty;
  readonly show: Presentation;
}

interface Variable {
  readonly ty: Ty;
  readonly show: Presentation;
  readonly pos: SourcePos;
}

export function compileQuery(query: QueryDef, schema: Schema): { compiled: CompiledQuery | null; problems: Problem[] } {
  const c = new QueryCompiler(query, schema);
  const compiled = c.run();
  return { compiled: c.problems.length === 0 ? compiled : null, problems: c.problems };
}

class QueryCompiler {
  readonly problems: Problem[] = [];
  private readonly scope = new Map<string, Variable>();
  private write = false;
  /** Names of the hidden variables of upserts written as statements of their own. */
  private hidden = 0;
  /** Variables whose statement had an error: later uses of them are not reported again. */
  private readonly failed = new Set<string>();
  /** The `|item|` scopes of the projections being lowered, outermost first, with the traversal-expression level each is at. */
  private readonly items: { readonly name: string; readonly el: Extract<Ty, { k: 'element' }>; readonly level: number }[] = [];
  /** How many traversal expressions (nested values of projections) enclose the code being lowered. */
  private expressionLevel = 0;

  constructor(
    private readonly query: QueryDef,
    private readonly schema: Schema,
  ) {}

  private attempt<T>(fn: () => T): T | null {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof CompileError)) throw err;
      if (!(err instanceof FollowOnError)) this.problems.push({ pos: err.pos, message: err.message });
      return null;
    }
  }

  /** A name in scope; a variable whose own statement failed stops the use quietly (its error is reported already). */
  private lookup(name: string, pos: SourcePos): Variable {
    const v = this.scope.get(name);
    if (v !== undefined) return v;
    if (this.failed.has(name)) throw new FollowOnError(pos, name);
    throw new CompileError(pos, `"${name}" is not defined`);
  }

  run(): CompiledQuery {
    const parameterTypes: Record<string, unknown> = {};
    for (const p of this.query.params) {
      this.attempt(() => {
        this.checkName(p.name.text, p.name.pos, 'a parameter');
        if (this.scope.has(p.name.text)) throw new CompileError(p.name.pos, `parameter "${p.name.text}" is declared twice`);
        checkParamType(p.type);
        parameterTypes[p.name.text] = wireParamType(p.type);
        this.scope.set(p.name.text, { ty: { k: 'param', type: p.type }, show: ONE, pos: p.name.pos });
      });
    }
    const entries = this.statements(this.query.body);
    const { returns, extra } = this.returns();
    if (this.query.mcp) this.attempt(() => this.checkMcpReturn());
    const returnNames = returns === null ? [] : [...new Set(returns.flatMap((r) => (r.source === null ? [] : [r.source])))];
    return {
      name: this.query.name.text,
      mcp: this.query.mcp,
      params: this.query.params,
      write: this.write,
      entries: [...entries, ...extra],
      returnNames,
      parameterTypes,
      returns,
    };
  }

  private checkName(name: string, pos: SourcePos, what: string): void {
    if (RESERVED_NAMES.has(name)) throw new CompileError(pos, `"${name}" is a reserved word and cannot name ${what}`);
  }

  // ---- statements ----

  private statements(list: readonly Statement[]): Wire[] {
    const entries: Wire[] = [];
    for (const s of list) {
      const made = this.attempt(() => this.statement(s));
      if (made !== null) entries.push(...made);
    }
    return entries;
  }

  private statement(s: Statement): Wire[] {
    switch (s.kind) {
      case 'assign': {
        this.checkName(s.name.text, s.name.pos, 'a variable');
        const earlier = this.scope.get(s.name.text);
        if (earlier !== undefined) {
          throw new CompileError(s.name.pos, `"${s.name.text}" is already defined (line ${earlier.pos.line}); choose another name`);
        }
        this.failed.add(s.name.text);
        const made = this.upsert(s.value, s.name.text) ?? this.assigned(s.name.text, this.topLevel(s.value));
        this.failed.delete(s.name.text);
        this.scope.set(s.name.text, { ty: made.ty, show: made.show, pos: s.name.pos });
        return made.entries;
      }
      case 'expr': {
        const upsert = this.upsert(s.value, `$u${this.hidden + 1}`);
        if (upsert !== null) {
          this.hidden++;
          return upsert.entries;
        }
        return [{ query: { root: this.topLevel(s.value).root } }];
      }
      case 'drop': {
        const lowered = this.topLevel(s.value);
        if (lowered.ty.k !== 'element') throw new CompileError(s.value.pos, `DROP deletes nodes or edges, not ${describeTy(lowered.ty)}`);
        this.write = true;
        return [{ query: { root: op('drop', { input: lowered.root }) } }];
      }
      case 'for':
        return [this.forLoop(s)];
    }
  }

  private forLoop(s: Extract<Statement, { kind: 'for' }>): Wire {
    const source = this.lookup(s.source.text, s.source.pos);
    if (source.ty.k !== 'param' || source.ty.type.kind !== 'array') {
      throw new CompileError(s.source.pos, `FOR loops over an array parameter; "${s.source.text}" is ${describeTy(source.ty)}`);
    }
    const element = source.ty.type.of;
    if (!s.destructure || element.kind !== 'object') {
      throw new CompileError(
        s.pos,
        `FOR loops over arrays of objects, destructured: FOR {field, ...} IN ${s.source.text} (the elements of "${s.source.text}" are ${typeText(element)})`,
      );
    }
    for (const v of s.vars) {
      const field = element.fields.find((f) => f.name.text === v.text);
      if (field === undefined)
        throw new CompileError(v.pos, `"${v.text}" is not a field of the elements of "${s.source.text}" (${typeText(element)})`);
      if (this.scope.has(v.text)) throw new CompileError(v.pos, `"${v.text}" is already defined; a loop field cannot reuse the name`);
      this.scope.set(v.text, { ty: { k: 'param', type: field.type }, show: ONE, pos: v.pos });
    }
    const body = this.statements(s.body);
    if (body.length === 0) throw new CompileError(s.pos, 'a FOR loop needs at least one statement');
    return { for_each: { param: s.source.text, body } };
  }

  private assigned(name: string, lowered: Lowered): Assigned {
    return { entries: [{ query: { name, root: lowered.root } }], ty: lowered.ty, show: lowered.show };
  }

  /** A statement's value: a traversal, a creation. */
  private topLevel(e: Expr): Lowered {
    if (e.kind !== 'traversal')
      throw new CompileError(e.pos, 'a statement takes a traversal or a creation (AddN, AddE), not a plain value');
    return this.traversal(e, null);
  }

  // ---- RETURN ----

  private returns(): { returns: ReturnShape[] | null; extra: Wire[] } {
    const items = this.query.returns;
    if (items.length === 1 && items[0]!.kind === 'literal' && items[0]!.value === null) return { returns: null, extra: [] };
    const shapes: ReturnShape[] = [];
    const extra: Wire[] = [];
    const keys = new Set<string>();
    const add = (key: string, pos: SourcePos, e: Expr) => {
      if (keys.has(key)) throw new CompileError(pos, `"${key}" is returned twice`);
      keys.add(key);
      const made = this.returnItem(key, e);
      shapes.push(made.shape);
      if (made.entry !== null) extra.push(made.entry);
    };
    for (const item of items) {
      this.attempt(() => {
        if (item.kind === 'object') for (const f of item.fields) add(f.name.text, f.name.pos, f.value);
        else add(returnKey(item), item.pos, item);
      });
    }
    return { returns: shapes, extra };
  }

  private returnItem(key: string, e: Expr): { shape: ReturnShape; entry: Wire | null } {
    if (e.kind === 'literal') return { shape: { key, source: null, literal: e.value, ...ONE }, entry: null };
    if (e.kind !== 'traversal')
      throw new CompileError(e.pos, 'RETURN takes variables, traversals from them, literals or {key: value, ...}');
    if (e.source.kind === 'var' && e.steps.length === 0) {
      const v = this.lookup(e.source.name.text, e.source.name.pos);
      if (v.ty.k === 'param') {
        throw new CompileError(e.pos, `"${e.source.name.text}" is a parameter; RETURN shows variables (assign the value first)`);
      }
      if (v.ty.k === 'shaped') return { shape: { key, source: e.source.name.text, literal: null, ...v.show }, entry: null };
    }
    const lowered = this.traversal(e, null);
    if (lowered.ty.k === 'param') throw new CompileError(e.pos, 'RETURN shows the results of traversals, not parameters');
    const name = `$r${key}`;
    if (lowered.ty.k === 'element') {
      const el = lowered.ty;
      const root = op(el.kind === 'node' ? 'value_map' : 'edge_properties', { input: lowered.root });
      const element = { kind: el.kind, fields: [...this.typeOf(el).fields.keys()] };
      return { shape: { key, source: name, literal: null, ...lowered.show, element }, entry: { query: { name, root } } };
    }
    return { shape: { key, source: name, literal: null, ...lowered.show }, entry: { query: { name, root: lowered.root } } };
  }

  /** `#[mcp]` queries return one object or value (contract, D18). */
  private checkMcpReturn(): void {
    const items = this.query.returns;
    const one =
      items.length === 1 &&
      !(items[0]!.kind === 'literal' && items[0]!.value === null) &&
      !(items[0]!.kind === 'object' && items[0]!.fields.length !== 1);
    if (!one)
      throw new CompileError(
        this.query.returnPos,
        `an #[mcp] query must return a single object or value, but query "${this.query.name.text}" returns ${describeReturns(items)}`,
      );
  }

  // ---- traversals ----

  /**
   * Lowers a traversal. `current` is the element `_` stands for inside WHERE, projections
   * and nested traversals (their root is then `context`); null at the top of a statement.
   */
  private traversal(e: Extract<Expr, { kind: 'traversal' }>, current: Ty | null): Lowered {
    checkNothingAfterUpsert(e.steps);
    let state = this.source(e, current);
    for (const step of e.steps) state = this.step(state, step, current);
    return state;
  }

  private source(e: Extract<Expr, { kind: 'traversal' }>, current: Ty | null): Lowered {
    const s = e.source;
    switch (s.kind) {
      case 'anon':
        if (current === null)
          throw new CompileError(
            s.pos,
            '"_" stands for the current element and only has a meaning inside WHERE, ORDER, projections and nested traversals',
          );
        return { root: CONTEXT, ty: current, show: current.k === 'element' && current.single ? ONE : LIST };
      case 'var': {
        const v = this.lookup(s.name.text, s.name.pos);
        if (current !== null)
          throw new CompileError(s.pos, `a nested traversal starts from "_", not from the variable "${s.name.text}" (not supported yet)`);
        if (v.ty.k !== 'element') throw new CompileError(s.pos, `"${s.name.text}" is ${describeTy(v.ty)}; steps start from nodes or edges`);
        const reference = { var: s.name.text };
        return { root: op(v.ty.kind === 'node' ? 'nodes' : 'edges', { reference }), ty: v.ty, show: v.ty.single ? ONE : LIST };
      }
      case 'N':
      case 'E': {
        if (current !== null)
          throw new CompileError(s.pos, `${s.kind}<...> starts a traversal of its own; a nested traversal starts from "_"`);
        if (s.type === null) throw new CompileError(s.pos, `${s.kind} needs a type: ${s.kind}<Type>`);
        const kind: ElementKind = s.kind === 'N' ? 'node' : 'edge';
        const t = this.elementType(kind, s.type.text, s.type.pos);
        if (s.lookup !== null) {
          if (kind !== 'node') throw new CompileError(s.lookup.field.pos, 'E<T>({field: value}) is not a lookup; filter with WHERE');
          const field = this.field(t, s.lookup.field.text, s.lookup.field.pos);
          if (field.index === 'none') {
            throw new CompileError(
              s.lookup.field.pos,
              `N<${t.name}>({${field.name.text}: ...}) looks a node up by an indexed field, and "${field.name.text}" is not INDEX or UNIQUE INDEX`,
            );
          }
          const value = this.valueExpr(s.lookup.value, field.type);
          const where = op('nodes_where', { predicate: and([labelIs(t.name), compare('eq', property(field.name.text), value)]) });
          return {
            root: op('limit', { input: where, count: { literal: 1 } }),
            ty: { k: 'element', kind, type: t.name, single: true },
            show: ONE,
          };
        }
        if (s.id !== null) {
          const reference = this.idReference(s.id, kind);
          const byId = op(kind === 'node' ? 'nodes' : 'edges', { reference, missing: 'error' });
          return {
            root: op(kind === 'node' ? 'has_label' : 'edge_has_label', { input: byId, label: t.name }),
            ty: { k: 'element', kind, type: t.name, single: true },
            show: ONE,
          };
        }
        return {
          root: op(kind === 'node' ? 'nodes_where' : 'edges_where', { predicate: labelIs(t.name) }),
          ty: { k: 'element', kind, type: t.name, single: false },
          show: LIST,
        };
      }
      case 'V':
      case 'AddV':
      case 'SearchV':
      case 'SearchBM25':
        throw new CompileError(s.pos, `${s.kind} is not supported yet: vector and text search come with Trellis's indexes`);
      case 'AddN': {
        if (current !== null) throw new CompileError(s.pos, 'AddN cannot be nested in another traversal');
        const t = this.elementType('node', s.type.text, s.type.pos);
        this.write = true;
        return {
          root: op('add_n', { label: t.name, properties: this.assignments(t, s.fields, true) }),
          ty: { k: 'element', kind: 'node', type: t.name, single: true },
          show: ONE,
        };
      }
      case 'AddE': {
        if (current !== null) throw new CompileError(s.pos, 'AddE cannot be nested in another traversal');
        const t = this.elementType('edge', s.type.text, s.type.pos) as EdgeType;
        if (s.from === null) throw new CompileError(s.pos, `AddE<${t.name}> needs ::From(node)`);
        if (s.to === null) throw new CompileError(s.pos, `AddE<${t.name}> needs ::To(node)`);
        this.write = true;
        const from = op('nodes', { reference: this.idReference(s.from, 'node'), missing: 'error' });
        const single = this.isSingleEnd(s.from) && this.isSingleEnd(s.to);
        return {
          root: op('add_e', {
            input: from,
            label: t.name,
            to: this.idReference(s.to, 'node'),
            properties: this.assignments(t, s.fields, true),
          }),
          ty: { k: 'element', kind: 'edge', type: t.name, single },
          show: single ? ONE : LIST,
        };
      }
    }
  }

  private isSingleEnd(arg: IdArg): boolean {
    if (arg.kind === 'literal') return true;
    const v = this.scope.get(arg.name.text);
    return v === undefined || v.ty.k !== 'element' || v.ty.single;
  }

  /** What `N<T>(x)`, `::From(x)` and `::To(x)` address: an ID parameter, a variable of nodes, or a literal id. */
  private idReference(arg: IdArg, kind: ElementKind): Wire {
    if (arg.kind === 'literal') {
      if (!/^[0-9]+$/.test(arg.value) || BigInt(arg.value) >= 2n ** 64n)
        throw new CompileError(arg.pos, `"${arg.value}" is not an id: Trellis ids are non-negative integers`);
      return { ids: [BigInt(arg.value)] };
    }
    const name = arg.name.text;
    const v = this.lookup(name, arg.name.pos);
    if (v.ty.k === 'param') {
      const t = v.ty.type;
      if (t.kind !== 'primitive' || (t.name !== 'ID' && integerRange(t.name) === undefined)) {
        throw new CompileError(arg.name.pos, `"${name}" is a parameter of type ${typeText(t)}; an id is an ID parameter`);
      }
      return { param: name };
    }
    if (v.ty.k === 'element' && v.ty.kind === kind) return { var: name };
    throw new CompileError(arg.name.pos, `"${name}" is ${describeTy(v.ty)}, not ${kind === 'node' ? 'nodes' : 'edges'} or an ID`);
  }

  private step(state: Lowered, step: Step, current: Ty | null): Lowered {
    const ty = state.ty;
    const needElement = (what: string): Extract<Ty, { k: 'element' }> => {
      if (ty.k !== 'element') throw new CompileError(step.pos, `${what} applies to nodes or edges, not to ${describeTy(ty)}`);
      return ty;
    };
    switch (step.kind) {
      case 'hop': {
        const el = needElement(`::${step.dir}`);
        const edge = this.elementType('edge', step.edge.text, step.edge.pos) as EdgeType;
        if (el.kind !== 'node')
          throw new CompileError(step.pos, `::${step.dir}<${edge.name}> starts from nodes, not from ${describeTy(el)}`);
        const outward = step.dir === 'Out' || step.dir === 'OutE';
        const end = outward ? edge.from : edge.to;
        if (end !== el.type) {
          throw new CompileError(
            step.edge.pos,
            `edge "${edge.name}" goes from ${edge.from} to ${edge.to}, so ::${step.dir}<${edge.name}> cannot start from ${el.type}`,
          );
        }
        const toEdges = step.dir === 'OutE' || step.dir === 'InE';
        const far = outward ? edge.to : edge.from;
        if (!toEdges && this.schema.nodes.get(far)?.kind !== 'node') {
          throw new CompileError(step.edge.pos, `edge "${edge.name}" leads to "${far}", which is not a node type`);
        }
        const wireOp = { Out: 'out', In: 'in', OutE: 'out_e', InE: 'in_e' }[step.dir];
        const next: Ty = toEdges
          ? { k: 'element', kind: 'edge', type: edge.name, single: false }
          : { k: 'element', kind: 'node', type: outward ? edge.to : edge.from, single: false };
        return { root: op(wireOp, { input: state.root, label: edge.name }), ty: next, show: LIST };
      }
      case 'endpoint': {
        const el = needElement(`::${step.which}`);
        if (step.which === 'FromV' || step.which === 'ToV')
          throw new CompileError(step.pos, `::${step.which} is not supported yet: vectors come with Trellis's indexes`);
        if (el.kind !== 'edge') throw new CompileError(step.pos, `::${step.which} applies to edges, not to ${describeTy(el)}`);
        const edge = this.schema.edges.get(el.type)!;
        const type = step.which === 'FromN' ? edge.from : edge.to;
        return {
          root: op(step.which === 'FromN' ? 'in_n' : 'out_n', { input: state.root }),
          ty: { k: 'element', kind: 'node', type, single: el.single },
          show: state.show,
        };
      }
      case 'where': {
        const el = needElement('WHERE');
        return {
          root: op('where', { input: state.root, predicate: this.condition(step.condition, { ...el, single: true }) }),
          ty: el,
          show: state.show,
        };
      }
      case 'COUNT':
        needElement('COUNT');
        return {
          root: op('count', { input: state.root }),
          ty: { k: 'shaped', single: true, what: 'a count' },
          show: { unwrap: 'count', pluck: null, nested: null, element: null, group: null },
        };
      case 'ID': {
        const el = needElement('::ID');
        return {
          root: op('project', { input: state.root, projections: [projectItem('id', ID_EXPR)] }),
          ty: { k: 'shaped', single: el.single, what: 'ids' },
          show: { unwrap: el.single ? 'one' : 'list', pluck: 'id', nested: null, element: null, group: null },
        };
      }
      case 'FIRST': {
        if (ty.k === 'param' || (ty.k === 'shaped' && state.show.unwrap === 'count'))
          throw new CompileError(step.pos, `FIRST applies to a list, not to ${describeTy(ty)}`);
        const root = op('limit', { input: state.root, count: { literal: 1 } });
        return { root, ty: { ...ty, single: true }, show: { ...state.show, unwrap: 'one' } };
      }
      case 'range': {
        if (ty.k === 'param' || state.show.unwrap === 'count' || state.show.group !== null)
          throw new CompileError(step.pos, `RANGE applies to a list, not to ${describeTy(ty)}`);
        const root = op('range', { input: state.root, start: this.bound(step.start, 'start'), end: this.bound(step.end, 'end') });
        return {
          root,
          ty: { ...ty, single: false },
          show: { ...state.show, unwrap: 'list' },
        };
      }
      case 'order': {
        const el = needElement('ORDER');
        const by = this.orderProperty(step.by, el);
        return {
          root: op('order_by', { input: state.root, property: by, order: step.desc ? 'desc' : 'asc' }),
          ty: { ...el, single: false },
          show: LIST,
        };
      }
      case 'group': {
        const el = needElement(step.aggregate ? 'AGGREGATE_BY' : 'GROUP_BY');
        const t = this.typeOf(el);
        const properties = step.properties.map((p) => {
          if (p.text === 'id' || p.text === 'label') return p.text;
          return this.field(t, p.text, p.pos).name.text;
        });
        const items = step.aggregate ? this.elementItems(el) : properties.map((p) => projectItem(p, this.propertyExpr(p, el)));
        return {
          root: op('project', { input: state.root, projections: items }),
          ty: { k: 'shaped', single: false, what: 'groups' },
          show: { unwrap: 'list', pluck: null, nested: null, element: null, group: { properties, aggregate: step.aggregate } },
        };
      }
      case 'project':
        return this.projection(state, needElement('a projection'), step);
      case 'exclude': {
        const el = needElement('an exclusion');
        const t = this.typeOf(el);
        const excluded = new Set<string>();
        for (const f of step.fields) {
          if (excluded.has(f.text)) throw new CompileError(f.pos, `"${f.text}" is excluded twice`);
          if (!implicitFields(el.kind).includes(f.text)) this.field(t, f.text, f.pos);
          excluded.add(f.text);
        }
        const items = this.elementItems(el).filter((item) => !excluded.has(aliasOf(item)));
        if (items.length === 0) throw new CompileError(step.pos, 'this exclusion leaves nothing to show');
        return {
          root: op('project', { input: state.root, projections: items }),
          ty: { k: 'shaped', single: el.single, what: 'objects' },
          show: state.show,
        };
      }
      case 'update': {
        const el = needElement('UPDATE');
        if (current !== null) throw new CompileError(step.pos, 'UPDATE cannot be nested in another traversal');
        const t = this.typeOf(el);
        this.write = true;
        let root = state.root;
        for (const [name, value] of this.assignments(t, step.fields, false)) root = op('set_property', { input: root, name, value });
        return { root, ty: { ...el, single: true }, show: ONE };
      }
      case 'compare':
        throw new CompileError(step.pos, `${step.op} compares a value inside WHERE(...), for example WHERE(_::{age}::${step.op}(...))`);
      case 'upsert':
        // A statement ending in an upsert is lowered by upsert(); anywhere else it has no place.
        if (current !== null) throw new CompileError(step.pos, `${step.which} cannot be nested in another traversal`);
        throw new CompileError(
          step.pos,
          `${step.which} is a statement of its own: assign it (x <- ...::${step.which}(...)) and return the variable`,
        );
      case 'intersect':
        throw new CompileError(step.pos, 'INTERSECT is not supported yet');
      case 'unsupported':
        throw new CompileError(step.pos, `${step.what} is not supported yet`);
    }
  }

  // ---- upserts ----

  /**
   * A statement ending in `::UpsertN({...})` or `::UpsertE({...})::From(a)::To(b)`, as three
   * entries of the batch that all bind `name`: the element found (at most one), then,
   * when it was found, the given properties set on it, or else, when it was not, a new
   * element with the properties and the schema's defaults. The batch is one
   * transaction, so an upsert updates or creates, never half of either. Null when the
   * statement is not an upsert.
   */
  private upsert(e: Expr, name: string): Assigned | null {
    if (e.kind !== 'traversal') return null;
    const step = e.steps[e.steps.length - 1];
    if (step === undefined || step.kind !== 'upsert') return null;
    checkNothingAfterUpsert(e.steps);
    const kind: ElementKind = step.which === 'UpsertN' ? 'node' : 'edge';
    const x = this.traversal({ ...e, steps: e.steps.slice(0, -1) }, null);
    if (x.ty.k !== 'element' || x.ty.kind !== kind) {
      const other =
        x.ty.k === 'element' ? ` (${kind === 'node' ? 'UpsertE' : 'UpsertN'} upserts ${x.ty.kind === 'node' ? 'a node' : 'an edge'})` : '';
      throw new CompileError(step.pos, `${step.which} applies to ${kind}s, not to ${describeTy(x.ty)}${other}`);
    }
    const t = this.typeOf(x.ty);
    const update = this.assignments(t, step.fields, false);
    const create = this.assignments(t, step.fields, true);
    this.write = true;
    const entry = (root: Wire, condition?: Wire): Wire => ({ query: condition === undefined ? { name, root } : { name, root, condition } });
    const found = op(kind === 'node' ? 'nodes' : 'edges', { reference: { var: name } });
    let updated = found;
    for (const [field, value] of update) updated = op('set_property', { input: updated, name: field, value });
    const ty: Ty = { k: 'element', kind, type: t.name, single: true };
    const first = (root: Wire) => op('limit', { input: root, count: { literal: 1 } });
    const rest = (created: Wire): Wire[] => [
      ...(update.length > 0 ? [entry(updated, { var_not_empty: name })] : []),
      entry(created, { var_empty: name }),
    ];
    if (step.which === 'UpsertN') {
      return { entries: [entry(first(x.root)), ...rest(op('add_n', { label: t.name, properties: create }))], ty, show: ONE };
    }
    // UpsertE: the edge of this type from `from` to `to`; what `x` holds only names the type.
    if (step.from === null) throw new CompileError(step.pos, 'UpsertE needs ::From(node)');
    if (step.to === null) throw new CompileError(step.pos, 'UpsertE needs ::To(node)');
    const from = this.upsertEnd(step.from);
    const to = this.upsertEnd(step.to);
    const existing = op('where', { input: op('out_e', { input: op('nodes', { reference: from }), label: t.name }), predicate: endsAt(to) });
    const created = op('add_e', {
      input: op('nodes', { reference: from, missing: 'error' }),
      label: t.name,
      to,
      properties: create,
    });
    return { entries: [entry(first(existing)), ...rest(created)], ty, show: ONE };
  }

  /** An end of UpsertE: as for AddE, but one node, so that there is one edge to find or make. */
  private upsertEnd(arg: IdArg): Wire {
    const reference = this.idReference(arg, 'node');
    if (arg.kind === 'name' && !this.isSingleEnd(arg)) {
      const name = arg.name.text;
      throw new CompileError(
        arg.name.pos,
        `UpsertE links one node to one node, and "${name}" holds ${describeTy(this.scope.get(name)!.ty)}; pick one first (one <- ${name}::FIRST)`,
      );
    }
    return reference;
  }

  // ---- conditions (WHERE) ----

  /** A condition about the current element `_` of type `el`, as a /v2/query predicate. */
  private condition(e: Expr, el: Extract<Ty, { k: 'element' }>): Wire {
    switch (e.kind) {
      case 'logic': {
        const parts = e.items.map((item) => this.condition(item, el));
        const joined = e.op === 'AND' ? and(parts) : or(parts);
        return e.negated ? not(joined) : joined;
      }
      case 'exists': {
        if (e.traversal.kind !== 'traversal' || e.traversal.source.kind !== 'anon') {
          throw new CompileError(e.traversal.pos, 'EXISTS takes a traversal from the current element, such as EXISTS(_::Out<Follows>)');
        }
        const sub = this.traversal(e.traversal, el);
        if (sub.ty.k !== 'element')
          throw new CompileError(
            e.traversal.pos,
            `EXISTS asks whether a traversal finds nodes or edges; this one gives ${describeTy(sub.ty)}`,
          );
        const test = compare('eq', { traversal: { root: op('exists', { input: sub.root }) } }, constant({ bool: true }));
        return e.negated ? not(test) : test;
      }
      case 'literal':
        if (typeof e.value !== 'boolean') throw new CompileError(e.pos, 'a condition is true, false, a comparison, EXISTS, AND or OR');
        return compare('eq', constant({ bool: true }), constant({ bool: e.value }));
      case 'traversal':
        return this.comparison(e, el);
      default:
        throw new CompileError(e.pos, 'a condition is a comparison such as _::{age}::GT(18), EXISTS(...), AND(...) or OR(...)');
    }
  }

  private comparison(e: Extract<Expr, { kind: 'traversal' }>, el: Extract<Ty, { k: 'element' }>): Wire {
    if (e.source.kind === 'var' && e.steps.length === 0) {
      const v = this.scope.get(e.source.name.text);
      if (v?.ty.k === 'param' && v.ty.type.kind === 'primitive' && v.ty.type.name === 'Boolean')
        return compare('eq', param(e.source.name.text), constant({ bool: true }));
    }
    const last = e.steps[e.steps.length - 1];
    if (last === undefined || last.kind !== 'compare') {
      throw new CompileError(
        e.pos,
        'a traversal in WHERE ends with a comparison (EQ, NEQ, GT, GTE, LT, LTE, CONTAINS, IS_IN); to test that it finds something, wrap it in EXISTS(...)',
      );
    }
    if (e.source.kind !== 'anon') throw new CompileError(e.source.pos, 'a comparison in WHERE starts from "_", the element being tested');
    const valueSteps = e.steps.slice(0, -1);
    if (valueSteps.length === 0)
      throw new CompileError(
        last.pos,
        `${last.op} needs a value to compare: _::{property}::${last.op}(...) or _::...::COUNT::${last.op}(...)`,
      );
    const { expr: left, type } = this.comparedValue(e, valueSteps, el);
    const right = last.op === 'IS_IN' ? this.listExpr(last.value, type) : this.valueExpr(last.value, type);
    switch (last.op) {
      case 'EQ':
        return compare('eq', left, right);
      case 'NEQ':
        // A missing property is neither equal nor unequal (reference §4.3).
        return left === ID_EXPR || type === COUNT_TYPE
          ? compare('neq', left, right)
          : and([{ is_not_null: { property: (left as { property: string }).property } }, compare('neq', left, right)]);
      case 'GT':
      case 'GTE':
      case 'LT':
      case 'LTE':
        if (type !== null && type.kind === 'primitive' && type.name === 'Boolean')
          throw new CompileError(last.pos, `${last.op} compares numbers, dates and strings; this value is Boolean`);
        return compare(last.op.toLowerCase() as 'gt', left, right);
      case 'CONTAINS':
        if (type !== null && !(type.kind === 'primitive' && type.name === 'String'))
          throw new CompileError(last.pos, `CONTAINS looks for a substring; this value is ${typeText(type)}`);
        return { contains: { value: left, substring: right } };
      case 'IS_IN':
        return { is_in: { value: left, values: right } };
    }
  }

  /** The left side of a comparison: a property of `_`, its id, or a count of a traversal from it. */
  private comparedValue(
    e: Extract<Expr, { kind: 'traversal' }>,
    steps: readonly Step[],
    el: Extract<Ty, { k: 'element' }>,
  ): { expr: Wire; type: TypeExpr | null } {
    const only = steps.length === 1 ? steps[0]! : null;
    if (only !== null && only.kind === 'ID') return { expr: ID_EXPR, type: ID_TYPE };
    if (only !== null && only.kind === 'project') {
      const name = singleField(only);
      if (name === null) throw new CompileError(only.pos, 'compare one property at a time: _::{property}::EQ(...)');
      return this.propertyOf(el, name.text, name.pos);
    }
    const sub = this.traversal({ ...e, steps }, el);
    if (sub.show.unwrap !== 'count')
      throw new CompileError(e.pos, `a comparison needs one value; this traversal gives ${describeTy(sub.ty)} (count it with ::COUNT)`);
    return { expr: { traversal: { root: sub.root } }, type: COUNT_TYPE };
  }

  private propertyOf(el: Extract<Ty, { k: 'element' }>, name: string, pos: SourcePos): { expr: Wire; type: TypeExpr | null } {
    if (name === 'id' || name === 'ID') return { expr: ID_EXPR, type: ID_TYPE };
    if (name === 'label') return { expr: property('$label'), type: STRING_TYPE };
    if (el.kind === 'edge' && (name === 'from_node' || name === 'to_node'))
      return { expr: property(name === 'from_node' ? '$from' : '$to'), type: ID_TYPE };
    const field = this.field(this.typeOf(el), name, pos);
    return { expr: property(name), type: field.type };
  }

  private orderProperty(by: Expr, el: Extract<Ty, { k: 'element' }>): string {
    if (by.kind === 'traversal' && by.source.kind === 'anon' && by.steps.length === 1) {
      const s = by.steps[0]!;
      if (s.kind === 'ID') return '$id';
      if (s.kind === 'project') {
        const name = singleField(s);
        if (name !== null) {
          const { expr } = this.propertyOf(el, name.text, name.pos);
          return expr === ID_EXPR ? '$id' : (expr as { property: string }).property;
        }
      }
    }
    throw new CompileError(
      by.pos,
      'ORDER sorts by a property of the element: ORDER<Asc>(_::{property}) (ordering by a computed value is not supported yet)',
    );
  }

  // ---- values ----

  /** A value to compare with or to store in a field of type `type` (null: any). */
  private valueExpr(e: Expr, type: TypeExpr | null): Wire {
    if (e.kind === 'literal') return constant(this.literal(e.value, type, e.pos));
    if (e.kind === 'traversal' && e.source.kind === 'var' && e.steps.length === 0)
      return this.paramRef(e.source.name.text, e.source.pos, type);
    throw new CompileError(e.pos, 'expected a literal or a parameter here');
  }

  /** The list of IS_IN: an array literal or an array parameter. */
  private listExpr(e: Expr, type: TypeExpr | null): Wire {
    if (e.kind === 'array')
      return constant({
        array: e.items.map((item) =>
          item.kind === 'literal' ? this.literal(item.value, type, item.pos) : fail(item.pos, 'IS_IN([...]) lists literals'),
        ),
      });
    if (e.kind === 'traversal' && e.source.kind === 'var' && e.steps.length === 0) {
      const v = this.scope.get(e.source.name.text);
      if (v?.ty.k === 'param' && v.ty.type.kind !== 'array')
        throw new CompileError(e.pos, `IS_IN takes an array; "${e.source.name.text}" is ${typeText(v.ty.type)}`);
      return this.paramRef(e.source.name.text, e.source.pos, type === null ? null : { kind: 'array', of: type, pos: e.pos });
    }
    throw new CompileError(e.pos, 'IS_IN takes an array literal or an array parameter');
  }

  private paramRef(name: string, pos: SourcePos, type: TypeExpr | null): Wire {
    const v = this.lookup(name, pos);
    if (v.ty.k !== 'param')
      throw new CompileError(
        pos,
        `"${name}" is ${describeTy(v.ty)}; here a parameter or a literal is expected (variables here are not supported yet)`,
      );
    if (type !== null && !compatible(v.ty.type, type))
      throw new CompileError(pos, `"${name}" is ${typeText(v.ty.type)}, but ${typeText(type)} is expected here`);
    return param(name);
  }

  /** A literal as a tagged /v2/query value, checked against the type it is used as. */
  private literal(value: LiteralValue, type: TypeExpr | null, pos: SourcePos): Wire {
    if (type !== null && type.kind === 'primitive') {
      const problem = literalProblem(value, type.name === 'ID' ? 'U64' : type.name);
      if (problem !== null && value !== null) throw new CompileError(pos, `this value ${problem}`);
      if (type.name === 'Date' && typeof value === 'string') return { date_time: parseDateLiteral(value)! };
      if (isFloatType(type.name) && typeof value === 'bigint') return { f64: Number(value) };
    }
    if (value === null) return 'null';
    if (typeof value === 'string') return { string: value };
    if (typeof value === 'boolean') return { bool: value };
    if (typeof value === 'bigint') return { i64: value };
    return { f64: value };
  }

  private bound(e: Expr, which: string): Wire {
    if (e.kind === 'literal' && typeof e.value === 'bigint') {
      if (e.value < 0n) throw new CompileError(e.pos, `the ${which} of RANGE is ${e.value}; RANGE bounds are non-negative`);
      return { literal: e.value };
    }
    if (e.kind === 'traversal' && e.source.kind === 'var' && e.steps.length === 0) {
      const v = this.scope.get(e.source.name.text);
      if (
        v?.ty.k === 'param' &&
        (v.ty.type.kind !== 'primitive' || integerRange(v.ty.type.name) === undefined || v.ty.type.name === 'ID')
      ) {
        throw new CompileError(e.pos, `the ${which} of RANGE is an integer; "${e.source.name.text}" is ${typeText(v.ty.type)}`);
      }
      return { expr: this.paramRef(e.source.name.text, e.source.pos, null) };
    }
    throw new CompileError(e.pos, `the ${which} of RANGE is a non-negative integer literal or an integer parameter`);
  }

  /** `{field: value, ...}` of AddN, AddE and UPDATE, as /v2/query property assignments; creations add defaults. */
  private assignments(t: NodeType | EdgeType, fields: readonly FieldValue[], creating: boolean): [string, Wire][] {
    const out: [string, Wire][] = [];
    const given = new Set<string>();
    for (const f of fields) {
      const field = this.field(t, f.name.text, f.name.pos);
      if (given.has(f.name.text)) throw new CompileError(f.name.pos, `"${f.name.text}" is given twice`);
      given.add(f.name.text);
      const value = this.valueExpr(f.value, field.type);
      out.push([f.name.text, 'constant' in (value as object) ? { value: (value as { constant: Wire }).constant } : { expr: value }]);
    }
    if (creating) {
      for (const field of t.fields.values()) {
        if (given.has(field.name.text) || field.default === null) continue;
        const d = field.default;
        out.push([field.name.text, d.kind === 'now' ? { expr: 'date_time_now' } : { value: this.literal(d.value, field.type, d.pos) }]);
      }
    }
    return out;
  }

  // ---- projections ----

  private typeOf(el: Extract<Ty, { k: 'element' }>): NodeType | EdgeType {
    return el.kind === 'node' ? this.schema.nodes.get(el.type)! : this.schema.edges.get(el.type)!;
  }

  /** The /v2/query expression of a property as the language names it (`id`, `label`, `from_node`...). */
  private propertyExpr(name: string, el: Extract<Ty, { k: 'element' }>): Wire {
    if (name === 'id' || name === 'ID') return ID_EXPR;
    if (name === 'label') return property('$label');
    if (el.kind === 'edge' && name === 'from_node') return property('$from');
    if (el.kind === 'edge' && name === 'to_node') return property('$to');
    return property(name);
  }

  /** The whole element as the caller sees it: id, label (edges: from_node, to_node), then every declared field. */
  private elementItems(el: Extract<Ty, { k: 'element' }>): Wire[] {
    const names = [...implicitFields(el.kind), ...this.typeOf(el).fields.keys()];
    return names.map((name) => projectItem(name, this.propertyExpr(name, el)));
  }

  private elementObjects(root: Wire, el: Extract<Ty, { k: 'element' }>): Wire {
    return op('project', { input: root, projections: this.elementItems(el) });
  }

  private projection(state: Lowered, el: Extract<Ty, { k: 'element' }>, step: ProjectionStep): Lowered {
    if (step.fields.length === 0) throw new CompileError(step.pos, 'a projection lists at least one field');
    const pluck = step.closure === null && !step.spread ? singleField(step) : null;
    const items: Wire[] = [];
    const used = new Set<string>();
    const aliases = new Set<string>();
    const nested: Record<string, string> = {};
    if (step.closure !== null) this.items.push({ name: step.closure.text, el, level: this.expressionLevel });
    try {
      for (const f of step.fields) {
        const alias = f.name.text === 'ID' && f.value === null ? 'id' : f.name.text;
        if (aliases.has(alias)) throw new CompileError(f.name.pos, `"${alias}" appears twice in this projection`);
        aliases.add(alias);
        const { expr, source, pluck: inner } = this.projectedValue(f.name.text, f.name.pos, f.value, el, step.closure?.text ?? null);
        if (source !== null) used.add(source);
        if (inner !== undefined) nested[alias] = inner;
        items.push(projectItem(alias, expr));
      }
    } finally {
      if (step.closure !== null) this.items.pop();
    }
    if (step.spread) {
      for (const item of this.elementItems(el)) {
        const name = aliasOf(item);
        if (!used.has(name) && !aliases.has(name)) items.push(item);
      }
    }
    const root = op('project', { input: state.root, projections: items });
    if (pluck !== null) {
      return {
        root,
        ty: { k: 'shaped', single: el.single, what: 'property values' },
        show: { unwrap: el.single ? 'one' : 'list', pluck: aliasOf(items[0]!), nested: null, element: null, group: null },
      };
    }
    const show = Object.keys(nested).length > 0 ? { ...state.show, nested } : state.show;
    return { root, ty: { k: 'shaped', single: el.single, what: 'objects' }, show };
  }

  /** One field of a projection: its expression and the property it reads (for the spread). */
  private projectedValue(
    name: string,
    pos: SourcePos,
    value: Expr | ProjectionStep | null,
    el: Extract<Ty, { k: 'element' }>,
    closure: string | null,
  ): { expr: Wire; source: string | null; pluck?: string } {
    if (value === null) return { expr: this.propertyOf(el, name, pos).expr, source: name === 'ID' ? 'id' : name };
    if (value.kind === 'project') throw new CompileError(value.pos, 'a nested {...} object in a projection is not supported yet');
    if (value.kind === 'literal') return { expr: constant(this.literal(value.value, null, value.pos)), source: null };
    if (value.kind === 'math') return { expr: this.math(value, el, closure), source: null };
    if (value.kind !== 'traversal')
      throw new CompileError(value.pos, 'a projected field takes a property, a traversal from "_", a literal or a math function');
    const src = value.source;
    // `alias: property`, `alias: ID` or `alias: param`.
    if (src.kind === 'var' && value.steps.length === 0) {
      const n = src.name.text;
      if (n === 'ID' || n === 'id') return { expr: ID_EXPR, source: 'id' };
      const v = this.scope.get(n);
      if (v?.ty.k === 'param') return { expr: param(n), source: null };
      if (v !== undefined)
        throw new CompileError(src.pos, `"${n}" is ${describeTy(v.ty)}; showing a variable inside a projection is not supported yet`);
      return { expr: this.propertyOf(el, n, src.pos).expr, source: n };
    }
    // `_::...` or `item::...` inside `|item|{...}`: a traversal from the element itself.
    const fromCurrent = src.kind === 'anon' || (src.kind === 'var' && src.name.text === closure);
    if (!fromCurrent && src.kind === 'var') {
      const outer = this.outerItem(src.name.text, value.steps);
      if (outer !== null) return { expr: outer, source: null };
    }
    if (!fromCurrent) {
      throw new CompileError(
        src.pos,
        src.kind === 'var'
          ? `"${src.name.text}" is not an item of an enclosing |item| scope here`
          : 'a projected traversal starts from "_"',
      );
    }
    const first = value.steps[0];
    if (value.steps.length === 1 && first!.kind === 'ID') return { expr: ID_EXPR, source: 'id' };
    if (value.steps.length === 1 && first!.kind === 'project') {
      const only = singleField(first);
      if (only !== null) return { expr: this.propertyOf(el, only.text, only.pos).expr, source: only.text };
    }
    const anon = { ...value, source: { kind: 'anon' as const, pos: src.pos } };
    return { ...this.nestedValue(anon, el), source: null };
  }

  /**
   * `item::ID` or `item::{property}` of an enclosing `|item|` scope, read through an
   * `outer` expression: its depth is the number of traversal expressions between that
   * scope and here. Null when `name` names no enclosing scope.
   */
  private outerItem(name: string, steps: readonly Step[]): Wire | null {
    let frame: (typeof this.items)[number] | undefined;
    for (let i = this.items.length - 1; i >= 0 && frame === undefined; i--) if (this.items[i]!.name === name) frame = this.items[i];
    if (frame === undefined) return null;
    const depth = this.expressionLevel - frame.level;
    const first = steps[0];
    let property: string | null = null;
    if (steps.length === 1 && first!.kind === 'ID') property = '$id';
    if (steps.length === 1 && first!.kind === 'project') {
      const only = singleField(first);
      if (only !== null) {
        const { expr } = this.propertyOf(frame.el, only.text, only.pos);
        property = expr === ID_EXPR ? '$id' : (expr as { property: string }).property;
      }
    }
    if (property === null) {
      const pos = first?.pos ?? this.query.name.pos;
      throw new CompileError(pos, `an outer item is read as ${name}::ID or ${name}::{property}; traversals from it are not supported yet`);
    }
    return { outer: { depth, property } };
  }

  /**
   * A traversal from the element, shown inside a projection as the value it would be
   * returned as. A property access at its end comes back as one-key objects; `pluck`
   * names the key the response shows the bare values of (response.ts).
   */
  private nestedValue(e: Extract<Expr, { kind: 'traversal' }>, el: Extract<Ty, { k: 'element' }>): { expr: Wire; pluck?: string } {
    this.expressionLevel++;
    let sub: Lowered;
    try {
      sub = this.traversal(e, { ...el, single: true });
    } finally {
      this.expressionLevel--;
    }
    if (sub.show.group !== null || sub.show.nested !== null)
      throw new CompileError(e.pos, 'grouping or nesting inside a nested traversal is not supported yet');
    if (sub.show.unwrap === 'count') return { expr: { traversal: { root: sub.root } } };
    const root = sub.ty.k === 'element' ? this.elementObjects(sub.root, sub.ty) : sub.root;
    const expr = { traversal: { root, first: sub.show.unwrap === 'one' } };
    return sub.show.pluck === null ? { expr } : { expr, pluck: sub.show.pluck };
  }

  private math(e: Extract<Expr, { kind: 'math' }>, el: Extract<Ty, { k: 'element' }>, closure: string | null): Wire {
    const ops: Readonly<Record<string, string>> = { ADD: 'add', SUB: 'sub', MUL: 'mul', DIV: 'div', MOD: 'mod' };
    const wireOp = ops[e.fn];
    if (wireOp === undefined) throw new CompileError(e.pos, `${e.fn} is not supported yet (ADD, SUB, MUL, DIV and MOD are)`);
    const [a, b] = e.args.map((arg) => this.mathArg(arg, el, closure));
    return { [wireOp]: { left: a, right: b } };
  }

  private mathArg(arg: Expr, el: Extract<Ty, { k: 'element' }>, closure: string | null): Wire {
    if (arg.kind === 'literal' && (typeof arg.value === 'bigint' || typeof arg.value === 'number'))
      return constant(this.literal(arg.value, null, arg.pos));
    if (arg.kind === 'math') return this.math(arg, el, closure);
    return this.projectedValue('', arg.pos, arg, el, closure).expr;
  }

  // ---- schema lookups ----

  private elementType(kind: ElementKind, name: string, pos: SourcePos): NodeType | EdgeType {
    const t = kind === 'node' ? this.schema.nodes.get(name) : this.schema.edges.get(name);
    if (t === undefined) {
      const other = kind === 'node' ? this.schema.edges.has(name) : this.schema.nodes.has(name);
      throw new CompileError(
        pos,
        `"${name}" is not a ${kind} type${other ? ` (it is ${kind === 'node' ? 'an edge' : 'a node'} type)` : ''}`,
      );
    }
    if (t.kind === 'vector') throw new CompileError(pos, `"${name}" is a vector type; vectors are not supported yet`);
    return t;
  }

  private field(t: NodeType | EdgeType, name: string, pos: SourcePos) {
    const f = t.fields.get(name);
    if (f === undefined) {
      const fields = [...t.fields.keys()];
      throw new CompileError(
        pos,
        `"${name}" is not a field of ${t.kind} type ${t.name}${fields.length > 0 ? ` (its fields: ${fields.join(', ')})` : ' (it has no fields)'}`,
      );
    }
    return f;
  }
}

/** A use of a variable whose statement failed: stops the use without a second report. */
class FollowOnError extends CompileError {}

const ID_TYPE: TypeExpr = { kind: 'primitive', name: 'ID', pos: { offset: 0, line: 0, column: 0 } };
const STRING_TYPE: TypeExpr = { kind: 'primitive', name: 'String', pos: { offset: 0, line: 0, column: 0 } };
const COUNT_TYPE: TypeExpr = { kind: 'primitive', name: 'I64', pos: { offset: 0, line: 0, column: 0 } };

function fail(pos: SourcePos, message: string): never {
  throw new CompileError(pos, message);
}

/** An upsert ends its traversal: a step after one is an error at that step. */
function checkNothingAfterUpsert(steps: readonly Step[]): void {
  const at = steps.findIndex((s) => s.kind === 'upsert');
  if (at >= 0 && at < steps.length - 1) {
    const upsert = steps[at] as Extract<Step, { kind: 'upsert' }>;
    throw new CompileError(steps[at + 1]!.pos, `nothing can follow ${upsert.which}: it ends the traversal`);
  }
}

/** An edge predicate: the edge ends at the node `to` names (an id, an ID parameter or a variable of one node). */
function endsAt(to: Wire): Wire {
  const ref = to as { ids?: bigint[]; param?: string; var?: string };
  if (ref.ids !== undefined) {
    // An id beyond i64 names no node (and is no i64 constant): no edge ends there.
    const id = ref.ids[0]!;
    return id < 2n ** 63n
      ? compare('eq', property('$to'), constant({ i64: id }))
      : compare('eq', constant({ bool: true }), constant({ bool: false }));
  }
  if (ref.param !== undefined) return compare('eq', property('$to'), param(ref.param));
  const target = op('within', { input: op('out_n', { input: CONTEXT }), variable: ref.var! });
  return compare('eq', { traversal: { root: op('exists', { input: target }) } }, constant({ bool: true }));
}

function implicitFields(kind: ElementKind): string[] {
  return kind === 'node' ? ['id', 'label'] : ['id', 'label', 'from_node', 'to_node'];
}

function aliasOf(item: Wire): string {
  return (item as { expr: { alias: string } }).expr.alias;
}

/** `{name}`: a projection of exactly one shorthand field, which reads as a property access. */
function singleField(step: ProjectionStep): { text: string; pos: SourcePos } | null {
  if (step.fields.length !== 1 || step.spread || step.closure !== null) return null;
  const f = step.fields[0]!;
  return f.value === null ? f.name : null;
}

function returnKey(e: Expr): string {
  if (e.kind === 'traversal' && e.source.kind === 'var') return e.source.name.text;
  return 'data';
}

function describeReturns(items: readonly Expr[]): string {
  if (items.length === 1 && items[0]!.kind === 'literal' && items[0]!.value === null) return 'NONE';
  if (items.length === 1 && items[0]!.kind === 'object') return `an object of ${items[0]!.fields.length} values`;
  return `${items.length} values`;
}

/** Whether a parameter of type `have` can stand where `want` is expected. */
function compatible(have: TypeExpr, want: TypeExpr): boolean {
  if (have.kind === 'array' || want.kind === 'array') return have.kind === 'array' && want.kind === 'array' && compatible(have.of, want.of);
  if (have.kind !== 'primitive' || want.kind !== 'primitive') return false;
  const family = (t: string) => (integerRange(t) !== undefined ? 'integer' : isFloatType(t) ? 'float' : t);
  const h = family(have.name);
  const w = family(want.name);
  return h === w || (h === 'integer' && w === 'float');
}

function checkParamType(type: TypeExpr): void {
  if (type.kind === 'named')
    throw new CompileError(
      type.pos,
      `"${type.name}" is not a parameter type (String, Boolean, F32, F64, I8 to I64, U8 to U128, Date, ID, [T] or {field: T, ...})`,
    );
  if (type.kind === 'array') checkParamType(type.of);
  if (type.kind === 'object') for (const f of type.fields) checkParamType(f.type);
}

/** The /v2/query `parameter_types` entry of a declared type (D6: floats and wide integers go as `value`). */
function wireParamType(type: TypeExpr): unknown {
  switch (type.kind) {
    case 'array':
      return { array: wireParamType(type.of) };
    case 'object':
      return 'object';
    case 'named':
      return 'value';
    case 'primitive':
      switch (type.name) {
        case 'String':
          return 'string';
        case 'Boolean':
          return 'bool';
        case 'Date':
          return 'date_time';
        case 'F32':
        case 'F64':
        case 'U64':
        case 'U128':
          return 'value';
        default:
          return 'i64';
      }
  }
}
