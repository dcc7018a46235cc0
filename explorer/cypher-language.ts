/**
 * Cypher for CodeMirror: a stream tokenizer for highlighting, and completion of keywords,
 * functions, and the labels, relationship types and property names the schema view read
 * from the database.
 */
import { StreamLanguage, type StringStream } from '@codemirror/language';
import type { CompletionContext, CompletionResult, Completion } from '@codemirror/autocomplete';

// prettier-ignore
export const KEYWORDS = [
  'MATCH', 'OPTIONAL', 'WHERE', 'RETURN', 'WITH', 'UNWIND', 'ORDER', 'BY', 'SKIP', 'LIMIT', 'ASC', 'DESC',
  'ASCENDING', 'DESCENDING', 'CREATE', 'MERGE', 'ON', 'SET', 'DELETE', 'DETACH', 'REMOVE', 'FOREACH',
  'UNION', 'ALL', 'DISTINCT', 'AS', 'AND', 'OR', 'XOR', 'NOT', 'IN', 'IS', 'NULL', 'TRUE', 'FALSE',
  'STARTS', 'ENDS', 'CONTAINS', 'CASE', 'WHEN', 'THEN', 'ELSE', 'END', 'EXISTS', 'CALL', 'YIELD',
];

// prettier-ignore
export const FUNCTIONS = [
  'id', 'type', 'labels', 'properties', 'keys', 'startNode', 'endNode', 'nodes', 'relationships', 'length',
  'exists', 'size', 'head', 'last', 'tail', 'range', 'reverse', 'coalesce', 'toString', 'toInteger', 'toFloat',
  'toBoolean', 'substring', 'left', 'right', 'trim', 'toLower', 'toUpper', 'replace', 'split', 'abs', 'ceil',
  'floor', 'round', 'sign', 'rand', 'sqrt', 'exp', 'log', 'count', 'sum', 'avg', 'min', 'max', 'collect',
  'stdev', 'percentileCont', 'percentileDisc', 'shortestPath', 'allShortestPaths', 'reduce', 'any', 'none', 'single',
];

const KEYWORD_SET = new Set(KEYWORDS);

interface State {
  /** Inside a block comment. */
  comment: boolean;
}

export const cypherLanguage = StreamLanguage.define<State>({
  name: 'cypher',
  startState: () => ({ comment: false }),
  token(stream: StringStream, state: State): string | null {
    if (state.comment) {
      if (stream.skipTo('*/')) {
        stream.next();
        stream.next();
        state.comment = false;
      } else stream.skipToEnd();
      return 'comment';
    }
    if (stream.eatSpace()) return null;
    if (stream.match('//')) {
      stream.skipToEnd();
      return 'comment';
    }
    if (stream.match('/*')) {
      state.comment = true;
      return 'comment';
    }
    const ch = stream.peek()!;
    if (ch === '"' || ch === "'") {
      stream.next();
      let escaped = false;
      for (let c = stream.next(); c !== undefined; c = stream.next()) {
        if (c === ch && !escaped) break;
        escaped = !escaped && c === '\\';
      }
      return 'string';
    }
    if (ch === '`') {
      stream.next();
      if (stream.skipTo('`')) stream.next();
      else stream.skipToEnd();
      return 'variableName';
    }
    if (stream.match(/^\$[A-Za-z_][A-Za-z0-9_]*/)) return 'variableName.special';
    if (stream.match(/^(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?/)) return 'number';
    if (stream.match(/^:[A-Za-z_][A-Za-z0-9_]*/)) return 'typeName';
    if (stream.match(/^[A-Za-z_][A-Za-z0-9_]*/)) {
      const word = stream.current();
      if (KEYWORD_SET.has(word.toUpperCase())) return 'keyword';
      if (stream.peek() === '(') return 'function(variableName)';
      return 'variableName';
    }
    stream.next();
    return /[-+*/%=<>!^|]/.test(ch) ? 'operator' : 'punctuation';
  },
  languageData: { commentTokens: { line: '//', block: { open: '/*', close: '*/' } } },
});

/** What completion offers besides keywords: read from the database by the schema view. */
export interface Vocabulary {
  labels: string[];
  types: string[];
  properties: string[];
}

export function cypherCompletion(vocabulary: () => Vocabulary) {
  return (context: CompletionContext): CompletionResult | null => {
    const v = vocabulary();
    const afterColon = context.matchBefore(/:`?[A-Za-z0-9_]*$/);
    if (afterColon !== null) {
      // In brackets a relationship type, else a label.
      const before = context.state.sliceDoc(Math.max(0, afterColon.from - 200), afterColon.from);
      const inRel = before.lastIndexOf('[') > before.lastIndexOf(']') && before.lastIndexOf('[') > before.lastIndexOf('(');
      const names = inRel ? v.types : v.labels;
      return { from: afterColon.from + 1, options: names.map((n) => ({ label: n, type: inRel ? 'type' : 'class' })), validFor: /^`?\w*$/ };
    }
    const afterDot = context.matchBefore(/\.[A-Za-z0-9_]*$/);
    if (afterDot !== null) {
      return { from: afterDot.from + 1, options: v.properties.map((p) => ({ label: p, type: 'property' })), validFor: /^\w*$/ };
    }
    const word = context.matchBefore(/[A-Za-z_][A-Za-z0-9_]*$/);
    if (word === null && !context.explicit) return null;
    const options: Completion[] = [
      ...KEYWORDS.map((k) => ({ label: k, type: 'keyword' })),
      ...FUNCTIONS.map((f) => ({ label: f, type: 'function', apply: `${f}(` })),
    ];
    return { from: word?.from ?? context.pos, options, validFor: /^\w*$/ };
  };
}
