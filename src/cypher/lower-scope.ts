/**
 * Names to slots while lowering (lower.ts). A statement numbers its slots once, across all
 * clauses; a scope maps the variables visible at one point to their slots and kinds. Scopes
 * are values: OPTIONAL MATCH, MERGE, FOREACH and comprehensions lower their inner parts in a
 * copy, so what they bind does not leak unless the clause says so.
 */
import { GraphError } from '../core/errors.js';
import type { Expr, PatternPart } from './ast.js';
import type { RowExpr, TableNode } from '../plan/table.js';

export type VariableKind = 'node' | 'rel' | 'rels' | 'path' | 'value';

export interface Variable {
  readonly slot: number;
  readonly kind: VariableKind;
}

export class Slots {
  private next = 0;
  readonly names: (string | null)[] = [];
  /** Parameters the statement reads. */
  readonly parameters = new Set<string>();

  allocate(name: string | null): number {
    this.names.push(name);
    return this.next++;
  }

  get count(): number {
    return this.next;
  }
}

export class Scope {
  constructor(private readonly vars: Map<string, Variable> = new Map()) {}

  get(name: string): Variable | undefined {
    return this.vars.get(name);
  }

  has(name: string): boolean {
    return this.vars.has(name);
  }

  set(name: string, v: Variable): void {
    this.vars.set(name, v);
  }

  copy(): Scope {
    return new Scope(new Map(this.vars));
  }

  /** Visible names, excluding the lowering's own temporaries. */
  names(): string[] {
    return [...this.vars.keys()].filter((name) => !name.startsWith(' '));
  }

  entries(): [string, Variable][] {
    return [...this.vars.entries()].filter(([name]) => !name.startsWith(' '));
  }
}

/**
 * What semantic analysis (semantics.ts) rejects before lowering runs: reaching it here is a
 * bug, answered as one.
 */
export function unreachable(what: string): never {
  throw new GraphError('internal_error', `${what} reached the Cypher lowering; semantic analysis should have rejected it`);
}

/** What lowering one part of a statement needs: the variables in scope and the statement's slots. */
export interface Lowering {
  readonly scope: Scope;
  readonly slots: Slots;
  /** Expressions already computed into a slot, by structural key (exprKey). */
  readonly replaced: ReadonlyMap<string, RowExpr> | null;
  /** Slots that new variables of these names must take (MERGE: its match and create halves agree). */
  readonly fixed?: ReadonlyMap<string, number>;
  /** MATCH pattern lowering (lower-pattern.ts), passed in so expressions can lower pattern predicates without an import cycle. */
  readonly matchPattern: (input: TableNode, parts: readonly PatternPart[], l: Lowering, where: Expr | null) => TableNode;
}
