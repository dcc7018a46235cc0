/**
 * The rejects file of `--skip-bad-rows N`: one JSON line per row left out, with its file,
 * line, column, the reason and the row as it was (docs/import-export.md, "Rejected rows").
 * The (N + 1)th bad row stops the import as the first does without the option.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { ImportError, type Reject } from './convert.js';

export class Rejects {
  private fd: number | null = null;
  count = 0;

  constructor(
    readonly path: string,
    private readonly limit: number,
  ) {}

  /** The reject callback for readers, or undefined when no row may be skipped. */
  get handler(): ((r: Reject) => void) | undefined {
    return this.limit > 0 ? (r) => this.add(r) : undefined;
  }

  add(r: Reject): void {
    if (this.count >= this.limit) {
      throw new ImportError(r.file, r.line, r.column, `${r.reason} (more than --skip-bad-rows ${this.limit} bad rows; the import stopped)`);
    }
    this.fd ??= openSync(this.path, 'w');
    writeSync(this.fd, JSON.stringify(r) + '\n');
    this.count++;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
