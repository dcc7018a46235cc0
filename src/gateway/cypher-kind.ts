/**
 * Whether a Cypher statement may write, decided without parsing it, to route it (a write
 * goes to the writer and needs the key's write permission). A statement is a write when a
 * write clause keyword (CREATE, MERGE, SET, DELETE, DETACH, REMOVE, FOREACH, CALL, LOAD)
 * stands as a word outside string literals, comments and backtick-quoted names, and not
 * after a dot (`n.set` is a property). A read that mentions one of them this way is sent
 * to the writer: slower, never wrong. A write can never pass for a read.
 */
const WRITE_WORDS = new Set(['CREATE', 'MERGE', 'SET', 'DELETE', 'DETACH', 'REMOVE', 'FOREACH', 'CALL', 'LOAD']);

export function cypherMayWrite(query: string): boolean {
  const n = query.length;
  let i = 0;
  while (i < n) {
    const c = query[i]!;
    if (c === "'" || c === '"' || c === '`') {
      i = skipQuoted(query, i, c);
    } else if (c === '/' && query[i + 1] === '/') {
      const end = query.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
    } else if (c === '/' && query[i + 1] === '*') {
      const end = query.indexOf('*/', i + 2);
      i = end === -1 ? n : end + 2;
    } else if (isWordStart(c)) {
      let j = i + 1;
      while (j < n && isWordPart(query[j]!)) j++;
      if (!afterDot(query, i) && WRITE_WORDS.has(query.slice(i, j).toUpperCase())) return true;
      i = j;
    } else {
      i++;
    }
  }
  return false;
}

function skipQuoted(query: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < query.length) {
    const c = query[i]!;
    if (c === '\\' && quote !== '`') i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  return i;
}

function afterDot(query: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && /\s/.test(query[k]!)) k--;
  return k >= 0 && query[k] === '.';
}

function isWordStart(c: string): boolean {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c === '_';
}

function isWordPart(c: string): boolean {
  return isWordStart(c) || (c >= '0' && c <= '9');
}
