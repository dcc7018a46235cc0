/** Reading the fenced code blocks of a documentation page, for the tests that run its examples. */

export interface Block {
  readonly info: string;
  readonly body: string;
  /** The line of the opening fence, 1-based. */
  readonly line: number;
}

/** Fenced code blocks (``` at the start of a line) with their info strings. */
export function fencedBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(.*)$/.exec(lines[i]!);
    if (!fence) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`line ${start + 1}: code block is never closed`);
    blocks.push({ info: fence[1]!.trim(), body: body.join('\n'), line: start + 1 });
  }
  return blocks;
}
