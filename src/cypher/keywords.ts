/**
 * openCypher 9's reserved words: never a variable, so that `RETURN a AS b ORDER BY` or
 * `WITH a WHERE` cannot be misread. They stay usable as labels, relationship types, property
 * keys, map keys and function names (`n.count`, `{end: 1}`, `:Match`), as the grammar allows.
 */
export const RESERVED: ReadonlySet<string> = new Set(
  // prettier-ignore
  [
    'ALL', 'ASC', 'ASCENDING', 'BY', 'CREATE', 'DELETE', 'DESC', 'DESCENDING', 'DETACH', 'EXISTS',
    'LIMIT', 'MATCH', 'MERGE', 'ON', 'OPTIONAL', 'ORDER', 'REMOVE', 'RETURN', 'SET', 'SKIP',
    'WHERE', 'WITH', 'UNION', 'UNWIND', 'AND', 'AS', 'CONTAINS', 'DISTINCT', 'ENDS', 'IN',
    'IS', 'NOT', 'OR', 'STARTS', 'XOR', 'CASE', 'ELSE', 'END', 'THEN', 'WHEN',
    'FALSE', 'NULL', 'TRUE', 'CONSTRAINT', 'DO', 'FOR', 'REQUIRE', 'UNIQUE', 'MANDATORY', 'SCALAR',
    'OF', 'ADD', 'DROP',
  ],
);
