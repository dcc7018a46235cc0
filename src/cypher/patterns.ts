/**
 * Patterns: `p = (a:A {k: 1})-[r:T|U*1..3 $props]->(b)`, `shortestPath(...)`, and openCypher
 * 9's parenthesized element `((a)-->(b))`. Patterns appear in clauses (MATCH, CREATE, MERGE)
 * and in expressions (pattern predicates and comprehensions, EXISTS), which is why this class
 * sits between the expression parser and the clause parser.
 *
 * What a clause forbids (a parameter as properties in MATCH, a variable length in CREATE,
 * an undirected relationship in MERGE) is semantic analysis's to reject: the tree keeps it.
 */
import type { MapExpr, Name, NodePattern, ParameterExpr, PatternPart, RelationshipPattern } from './ast.js';
import { CypherSyntaxError } from './errors.js';
import { ExpressionParser } from './expressions.js';

export abstract class PatternParser extends ExpressionParser {
  protected patternList(): PatternPart[] {
    const parts = [this.patternPart()];
    while (this.acceptPunct(',')) parts.push(this.patternPart());
    return parts;
  }

  /** `p = element`, `shortestPath(element)`, `allShortestPaths(element)`, or an element. */
  protected patternPart(): PatternPart {
    const first = this.peek();
    let variable: Name | null = null;
    if (this.isVariable() && this.isPunct('=', 1)) {
      variable = this.variable();
      this.i++;
    }
    const t = this.peek();
    if (t.kind === 'word' && (t.keyword === 'SHORTESTPATH' || t.keyword === 'ALLSHORTESTPATHS') && this.isPunct('(', 1)) {
      this.i += 2;
      const element = this.patternElement();
      this.expectPunct(')', `to close ${t.text}(...)`);
      const shortest = t.keyword === 'SHORTESTPATH' ? 'shortestPath' : 'allShortestPaths';
      return { ...element, span: this.spanFrom(first), variable, shortest };
    }
    const element = this.patternElement();
    return variable === null ? element : { ...element, span: this.spanFrom(first), variable };
  }

  /** A chain of nodes and relationships, or one in parentheses. */
  protected patternElement(): PatternPart {
    return this.nested(() => {
      const first = this.peek();
      if (this.isPunct('(') && this.isPunct('(', 1)) {
        this.i++;
        const inner = this.patternElement();
        this.expectPunct(')', 'to close the parenthesized pattern');
        return { ...inner, span: this.spanFrom(first) };
      }
      const nodes: NodePattern[] = [this.node()];
      const relationships: RelationshipPattern[] = [];
      while (this.isPunct('-') || (this.isPunct('<') && this.isPunct('-', 1))) {
        relationships.push(this.relationship());
        nodes.push(this.node());
      }
      return { span: this.spanFrom(first), variable: null, shortest: null, nodes, relationships };
    });
  }

  private node(): NodePattern {
    const first = this.expectPunct('(', 'to start a node pattern');
    const variable = this.isVariable() ? this.variable() : null;
    const labels = this.labels();
    const properties = this.properties();
    this.expectPunct(')', 'to close the node pattern');
    return { span: this.spanFrom(first), variable, labels, properties };
  }

  /** `{...}` or `$param` after a node's or relationship's labels. */
  private properties(): MapExpr | ParameterExpr | null {
    if (this.isPunct('{')) return this.mapLiteral();
    const t = this.peek();
    if (t.kind !== 'param') return null;
    this.i++;
    return { kind: 'parameter', span: t.span, name: t.name };
  }

  /** `-[...]-`, `-[...]->`, `<-[...]-`, `<-[...]->`, or the same without brackets. */
  private relationship(): RelationshipPattern {
    const first = this.peek();
    const left = this.acceptPunct('<');
    this.expectPunct('-', 'in the relationship pattern');
    let variable: Name | null = null;
    let types: Name[] = [];
    let length: RelationshipPattern['length'] = null;
    let properties: MapExpr | ParameterExpr | null = null;
    if (this.acceptPunct('[')) {
      if (this.isVariable()) variable = this.variable();
      if (this.acceptPunct(':')) {
        types = [this.symbolicName('a relationship type after ":"')];
        while (this.acceptPunct('|')) {
          this.acceptPunct(':');
          types.push(this.symbolicName('a relationship type after "|"'));
        }
      }
      if (this.isPunct('..')) {
        throw new CypherSyntaxError('a variable length needs "*" before it: [*1..3]', 'InvalidRelationshipPattern', this.peek().span);
      }
      if (this.isPunct('*')) length = this.range();
      properties = this.properties();
      this.expectPunct(']', 'to close the relationship pattern');
    }
    this.expectPunct('-', 'in the relationship pattern');
    const right = this.acceptPunct('>');
    const direction = left ? (right ? 'both' : 'left') : right ? 'right' : 'none';
    return { span: this.spanFrom(first), variable, types, direction, length, properties };
  }

  /** `*`, `*2`, `*1..3`, `*..3`, `*2..`. */
  private range(): { min: bigint | null; max: bigint | null } {
    this.expectPunct('*');
    const min = this.rangeBound();
    if (!this.acceptPunct('..')) return { min, max: min };
    return { min, max: this.rangeBound() };
  }

  /** An integer bound, or null when there is none; `-2` or `1.5` there is InvalidRelationshipPattern. */
  private rangeBound(): bigint | null {
    const t = this.peek();
    if (this.isPunct('-') || t.kind === 'float') {
      throw new CypherSyntaxError(
        'a variable length takes integers 0 or more: *, *2, *1..3, *..3 or *2..',
        'InvalidRelationshipPattern',
        t.span,
      );
    }
    if (t.kind !== 'int' && !(t.kind === 'bad' && t.what === 'number')) return null;
    this.i++;
    return this.integer(t);
  }
}
