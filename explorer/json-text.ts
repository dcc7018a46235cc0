/**
 * JSON text as received, indented for reading: tokens are copied as they are, so `3.0`
 * stays `3.0` and a 20-digit integer keeps its digits (JSON.parse would change both).
 * Pure, so the tests run it under Node.
 */
export function indentJson(text: string, indent = '  '): string {
  let out = '';
  let depth = 0;
  let i = 0;
  const n = text.length;
  const newline = () => '\n' + indent.repeat(depth);
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
      i++;
      continue;
    }
    if (c === '{' || c === '[') {
      // An empty object or array stays on its line.
      let j = i + 1;
      while (j < n && /\s/.test(text[j]!)) j++;
      if (text[j] === (c === '{' ? '}' : ']')) {
        out += c + text[j];
        i = j + 1;
        continue;
      }
      depth++;
      out += c + newline();
    } else if (c === '}' || c === ']') {
      depth = Math.max(0, depth - 1);
      out += newline() + c;
    } else if (c === ',') {
      out += ',' + newline();
    } else if (c === ':') {
      out += ': ';
    } else {
      out += c;
    }
    i++;
  }
  return out;
}
