/**
 * docs/import-export.md, run: in one empty folder, in the page's order, every block titled
 * with a file name is written (or, marked `check`, compared with the file the commands
 * made), and every `sh` block is run with the `text` block after it as its output; `…`
 * stands for what varies (timings, sizes, the folder's path).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fencedBlocks } from '../helpers/markdown.js';
import { tempDir } from '../helpers/server.js';
import { runExportCli, runImportCli } from '../helpers/bulk-io.js';

const doc = readFileSync(fileURLToPath(new URL('../../../docs/import-export.md', import.meta.url)), 'utf8');

/** The text with `…` matching anything (within a line), as an anchored pattern. */
function pattern(expected: string): RegExp {
  const escaped = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*?');
  return new RegExp(`^${escaped}$`);
}

/** Arguments of one command line (no quoting needed in the doc's commands). */
function argv(command: string): { tool: string; args: string[] } {
  const words = command.trim().split(/\s+/);
  assert.equal(words[0], 'trellis', command);
  return { tool: words[1]!, args: words.slice(2) };
}

test('every example of docs/import-export.md runs as shown', async () => {
  const dir = tempDir();
  try {
    const blocks = fencedBlocks(doc);
    let ran = 0;
    for (let i = 0; i < blocks.length; i++) {
      const block = blocks[i]!;
      const file = /\bfile=(\S+)/.exec(block.info)?.[1];
      if (file !== undefined) {
        const path = join(dir.path, file);
        if (/\bcheck\b/.test(block.info)) {
          const got = readFileSync(path, 'utf8').trim().split('\n');
          const want = block.body.trim().split('\n');
          assert.equal(got.length, want.length, `line ${block.line}: ${file} has ${got.length} lines:\n${got.join('\n')}`);
          want.forEach((line, k) => assert.match(got[k]!, pattern(line), `line ${block.line}: ${file}, line ${k + 1}`));
        } else {
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, block.body + '\n');
        }
        continue;
      }
      if (block.info !== 'sh') continue;
      const output = blocks[i + 1];
      assert.ok(output?.info === 'text', `line ${block.line}: a sh block is followed by its text output`);
      const { tool, args } = argv(block.body);
      const run = tool === 'import' ? await runImportCli(args, dir.path) : await runExportCli(args, dir.path);
      const printed = [run.out, run.err].filter((t) => t !== '').join('\n');
      const lines = printed.trim().split('\n');
      const want = output.body.trim().split('\n');
      // Progress lines are printed to stdout directly; the captured output holds the rest.
      const expected = want.filter((l) => /^trellis (import|export):/.test(l));
      assert.deepEqual(
        lines.map((l, k) => (expected[k] === undefined ? l : pattern(expected[k]!).test(l) ? expected[k] : l)),
        expected,
        `line ${block.line}: ${block.body}`,
      );
      i++;
      ran++;
    }
    assert.ok(ran >= 8, `ran ${ran} commands`);
  } finally {
    dir.remove();
  }
});
