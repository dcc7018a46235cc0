/**
 * The Cypher parser: query text to the syntax tree of ast.ts, by recursive descent over
 * openCypher 9's grammar (clauses here, patterns in patterns.ts, expressions in
 * expressions.ts). It stops at the first error, a CypherSyntaxError with the detail code and
 * byte span of errors.ts.
 *
 * Besides the grammar, it enforces the clause rules that need nothing but the clause list
 * (composition.ts): where RETURN and updating clauses may stand, UNION against UNION ALL,
 * `YIELD *` only in a query that is one CALL.
 */
import type {
  CallClause,
  CallSubqueryClause,
  Clause,
  Expr,
  ForeachClause,
  MergeAction,
  Name,
  ProjectionItem,
  Projection,
  Query,
  RemoveItem,
  SetItem,
  SingleQuery,
  SortItem,
  YieldItem,
} from './ast.js';
import { UPDATING, checkComposition, type QueryContext } from './composition.js';
import { CypherSyntaxError } from './errors.js';
import { lex } from './lexer.js';
import { PatternParser } from './patterns.js';

/** Parses one statement (a trailing `;` is allowed); throws CypherSyntaxError. */
export function parseCypher(text: string): Query {
  return new Parser(text, lex(text)).statement();
}

const CLAUSE_STARTS = new Set([
  'MATCH',
  'OPTIONAL',
  'CREATE',
  'MERGE',
  'SET',
  'REMOVE',
  'DELETE',
  'DETACH',
  'WITH',
  'RETURN',
  'UNWIND',
  'FOREACH',
  'CALL',
]);

class Parser extends PatternParser {
  statement(): Query {
    if (this.peek().kind === 'eof') this.fail('expected a query');
    const query = this.query('top');
    this.acceptPunct(';');
    if (this.peek().kind !== 'eof') this.fail('expected the end of the query');
    return query;
  }

  /** `single (UNION [ALL] single)*`. */
  private query(context: QueryContext): Query {
    const first = this.peek();
    const single = this.singleQuery(context);
    if (!this.isKeyword('UNION')) return single;
    const queries: SingleQuery[] = [single];
    let all: boolean | null = null;
    while (this.isKeyword('UNION')) {
      const union = this.next();
      const isAll = this.acceptKeyword('ALL');
      if (all !== null && all !== isAll) {
        throw new CypherSyntaxError('UNION and UNION ALL cannot be mixed in one query', 'InvalidClauseComposition', this.spanFrom(union));
      }
      all = isAll;
      queries.push(this.singleQuery(context));
    }
    return { kind: 'union', span: this.spanFrom(first), all: all === true, queries };
  }

  private singleQuery(context: QueryContext): SingleQuery {
    const first = this.peek();
    const clauses: Clause[] = [];
    while (this.atClauseStart()) clauses.push(this.nested(() => this.clause()));
    if (clauses.length === 0) this.fail('expected a clause (MATCH, CREATE, RETURN, ...)');
    if (!this.atQueryEnd()) this.fail('expected a clause, UNION or the end of the query');
    checkComposition(clauses, context);
    return { kind: 'single', span: this.spanFrom(first), clauses };
  }

  private atClauseStart(): boolean {
    const t = this.peek();
    return t.kind === 'word' && CLAUSE_STARTS.has(t.keyword);
  }

  /** At what may follow a single query: the end, `;`, UNION, or the `}` of a subquery. */
  private atQueryEnd(): boolean {
    return this.peek().kind === 'eof' || this.isPunct(';') || this.isKeyword('UNION') || this.isPunct('}');
  }

  /** The query inside EXISTS { }. */
  protected subquery(): Query {
    return this.query('exists');
  }

  private clause(): Clause {
    const first = this.peek();
    if (first.kind !== 'word') this.fail('expected a clause');
    switch (first.keyword) {
      case 'OPTIONAL':
      case 'MATCH': {
        this.i++;
        const optional = first.keyword === 'OPTIONAL';
        if (optional) this.expectKeyword('MATCH', 'after OPTIONAL');
        const pattern = this.patternList();
        const where = this.acceptKeyword('WHERE') ? this.whereExpression() : null;
        return { kind: 'match', span: this.spanFrom(first), optional, pattern, where };
      }
      case 'CREATE': {
        this.i++;
        const pattern = this.patternList();
        return { kind: 'create', span: this.spanFrom(first), pattern };
      }
      case 'MERGE':
        return this.merge();
      case 'SET': {
        this.i++;
        const items = this.setItems();
        return { kind: 'set', span: this.spanFrom(first), items };
      }
      case 'REMOVE':
        return this.remove();
      case 'DETACH':
      case 'DELETE': {
        this.i++;
        const detach = first.keyword === 'DETACH';
        if (detach) this.expectKeyword('DELETE', 'after DETACH');
        const targets = [this.expression()];
        while (this.acceptPunct(',')) targets.push(this.expression());
        return { kind: 'delete', span: this.spanFrom(first), detach, targets };
      }
      case 'WITH': {
        this.i++;
        const projection = this.projection();
        const where = this.acceptKeyword('WHERE') ? this.whereExpression() : null;
        return { kind: 'with', span: this.spanFrom(first), ...projection, where };
      }
      case 'RETURN': {
        this.i++;
        const projection = this.projection();
        return { kind: 'return', span: this.spanFrom(first), ...projection };
      }
      case 'UNWIND': {
        this.i++;
        const list = this.expression();
        this.expectKeyword('AS', 'after the UNWIND list');
        const variable = this.variable();
        return { kind: 'unwind', span: this.spanFrom(first), list, variable };
      }
      case 'FOREACH':
        return this.foreach();
      case 'CALL':
        return this.call();
    }
    return this.fail('expected a clause');
  }

  private merge(): Clause {
    const first = this.next();
    const pattern = this.patternPart();
    const actions: MergeAction[] = [];
    while (this.isKeyword('ON')) {
      const on = this.next();
      let kind: 'create' | 'match';
      if (this.acceptKeyword('CREATE')) kind = 'create';
      else if (this.acceptKeyword('MATCH')) kind = 'match';
      else this.fail('expected CREATE or MATCH after ON');
      this.expectKeyword('SET', `after ON ${kind.toUpperCase()}`);
      actions.push({ on: kind, items: this.setItems(), span: this.spanFrom(on) });
    }
    return { kind: 'merge', span: this.spanFrom(first), pattern, actions };
  }

  private setItems(): SetItem[] {
    const items = [this.setItem()];
    while (this.acceptPunct(',')) items.push(this.setItem());
    return items;
  }

  /** `n.k = v`, `n = map`, `n += map`, `n:A:B`. */
  private setItem(): SetItem {
    const first = this.peek();
    if (this.isVariable() && (this.isPunct('=', 1) || this.isPunct('+=', 1) || this.isPunct(':', 1))) {
      const variable = this.variable();
      if (this.isPunct(':')) {
        const labels = this.labels();
        return { kind: 'setLabels', span: this.spanFrom(first), variable, labels };
      }
      const op = this.next();
      const merge = op.kind === 'punct' && op.text === '+=';
      const value = this.expression();
      return { kind: merge ? 'setMerge' : 'setAll', span: this.spanFrom(first), variable, value };
    }
    const target = this.postfix(false);
    if (target.kind !== 'property') this.fail('expected a property (n.key), a variable or labels to SET', first);
    this.expectPunct('=', 'after the property to SET');
    const value = this.expression();
    return { kind: 'setProperty', span: this.spanFrom(first), target, value };
  }

  private remove(): Clause {
    const first = this.next();
    const items: RemoveItem[] = [];
    do {
      const start = this.peek();
      if (this.isVariable() && this.isPunct(':', 1)) {
        const variable = this.variable();
        const labels = this.labels();
        items.push({ kind: 'removeLabels', span: this.spanFrom(start), variable, labels });
        continue;
      }
      const target = this.postfix(false);
      if (target.kind !== 'property') this.fail('expected a property (n.key) or labels (n:A) to REMOVE', start);
      items.push({ kind: 'removeProperty', span: this.spanFrom(start), target });
    } while (this.acceptPunct(','));
    return { kind: 'remove', span: this.spanFrom(first), items };
  }

  /** What WITH and RETURN share: `DISTINCT? (* | items) ORDER BY ... SKIP ... LIMIT ...`. */
  private projection(): Projection {
    const distinct = this.acceptKeyword('DISTINCT');
    const star = this.acceptPunct('*');
    const items: ProjectionItem[] = [];
    if (!star || this.acceptPunct(',')) {
      do items.push(this.projectionItem());
      while (this.acceptPunct(','));
    }
    let orderBy: SortItem[] = [];
    if (this.isKeyword('ORDER')) {
      this.i++;
      this.expectKeyword('BY', 'after ORDER');
      orderBy = [this.sortItem()];
      while (this.acceptPunct(',')) orderBy.push(this.sortItem());
    }
    const skip = this.acceptKeyword('SKIP') ? this.expression() : null;
    const limit = this.acceptKeyword('LIMIT') ? this.expression() : null;
    return { distinct, star, items, orderBy, skip, limit };
  }

  private projectionItem(): ProjectionItem {
    const first = this.peek();
    const expr = this.expression();
    const text = this.textFrom(first);
    const alias = this.acceptKeyword('AS') ? this.variable('a name after AS') : null;
    return { span: this.spanFrom(first), expr, alias, text };
  }

  private sortItem(): SortItem {
    const first = this.peek();
    const expr = this.expression();
    let descending = false;
    if (this.acceptKeyword('DESC') || this.acceptKeyword('DESCENDING')) descending = true;
    else if (!this.acceptKeyword('ASC')) this.acceptKeyword('ASCENDING');
    return { span: this.spanFrom(first), expr, descending };
  }

  /** `FOREACH (x IN list | updating clauses)`. */
  private foreach(): ForeachClause {
    const first = this.next();
    this.expectPunct('(', 'after FOREACH');
    const variable = this.variable();
    this.expectKeyword('IN', 'after the FOREACH variable');
    const list = this.expression();
    this.expectPunct('|', 'before the FOREACH clauses');
    const clauses: Clause[] = [];
    while (!this.isPunct(')')) {
      const start = this.peek();
      const clause = this.nested(() => this.clause());
      if (!UPDATING.has(clause.kind))
        this.fail(`expected an updating clause in FOREACH (CREATE, MERGE, SET, REMOVE, DELETE, FOREACH)`, start);
      clauses.push(clause);
    }
    if (clauses.length === 0) this.fail('expected an updating clause in FOREACH');
    this.expectPunct(')', 'to close FOREACH');
    return { kind: 'foreach', span: this.spanFrom(first), variable, list, clauses };
  }

  /**
   * `CALL ns.proc(args) YIELD a AS b, c WHERE pred`, `CALL ns.proc` without arguments, or
   * `CALL { query }`.
   */
  private call(): CallClause | CallSubqueryClause {
    const first = this.next();
    if (this.acceptPunct('{')) {
      const query = this.query('subquery');
      this.expectPunct('}', 'to close CALL { }');
      return { kind: 'callSubquery', span: this.spanFrom(first), query };
    }
    const names: Name[] = [this.symbolicName('a procedure name')];
    while (this.acceptPunct('.')) names.push(this.symbolicName('a procedure name'));
    let args: Expr[] | null = null;
    if (this.acceptPunct('(')) {
      args = [];
      if (!this.isPunct(')')) {
        do args.push(this.expression());
        while (this.acceptPunct(','));
      }
      this.expectPunct(')', 'to close the argument list');
    }
    let yieldPart: CallClause['yield'] = null;
    if (this.acceptKeyword('YIELD')) {
      if (this.isPunct('*')) {
        this.i++;
        yieldPart = { star: true, items: [], where: null };
      } else {
        const items: YieldItem[] = [];
        do {
          const start = this.peek();
          const field = this.symbolicName('a procedure result name');
          const alias = this.acceptKeyword('AS') ? this.variable('a name after AS') : null;
          items.push({ span: this.spanFrom(start), field, alias });
        } while (this.acceptPunct(','));
        const where = this.acceptKeyword('WHERE') ? this.whereExpression() : null;
        yieldPart = { star: false, items, where };
      }
    }
    const procedure = names.pop()!;
    return { kind: 'call', span: this.spanFrom(first), namespace: names, procedure, args, yield: yieldPart };
  }
}
