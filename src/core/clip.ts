/**
 * Client input quoted into error messages. A msg may quote a path, a header value, a JSON
 * key, a name or a string from the request; quoting all 64 KiB of one back makes the error
 * as large as the request and helps nobody. Every place that puts client text into a msg
 * passes it through `clip`: up to `CLIP_LIMIT` characters come back as they are, a longer
 * text is cut there and marked with its full length.
 */
export const CLIP_LIMIT = 200;

/** `text` itself, or its first `limit` characters followed by `…(cut, N characters)`. */
export function clip(text: string, limit: number = CLIP_LIMIT): string {
  if (text.length <= limit) return text;
  let end = limit;
  // Never split a surrogate pair: the half would print as a lone surrogate.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…(cut, ${text.length} characters)`;
}
