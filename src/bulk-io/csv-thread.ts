/**
 * The thread that reads an import's CSV groups (threaded-csv.ts starts it): it parses and
 * converts them as the import would (sources.ts readCsv), one group after the other, and
 * posts each batch, so the next batch is parsed while the import loads the last one (the
 * first edges while the last nodes load). It reads at most `ahead` batches beyond the
 * ones the import took, which grants one more per batch taken; its first error ends it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { toMessage } from './batch-message.js';
import type { Reject } from './convert.js';
import { errorFields, type FromReader, type ReaderSettings } from './csv-thread-messages.js';
import { readCsv, type ReadOptions } from './sources.js';

const port = parentPort!;
const settings = workerData as ReaderSettings;

let credit = settings.ahead;
let granted: (() => void) | null = null;
port.on('message', () => {
  credit++;
  granted?.();
  granted = null;
});

let bytes = 0;
let rejects: Reject[] = [];
/** The bytes and rejects since the last message, for the next one. */
const since = () => {
  const read = { bytes, rejects };
  bytes = 0;
  rejects = [];
  return read;
};

const { delimiter, quote, arrayDelimiter, idType, chunkBytes } = settings;
const options: ReadOptions = {
  delimiter,
  quote,
  arrayDelimiter,
  idType,
  chunkBytes,
  reject: settings.skipping ? (r) => void rejects.push(r) : undefined,
  onBytes: (n) => void (bytes += n),
};
try {
  for (const group of settings.groups) {
    for await (const batch of readCsv(group, options)) {
      const { message, transfer } = toMessage(batch);
      port.postMessage({ type: 'batch', batch: message, ...since() } satisfies FromReader, transfer);
      credit--;
      while (credit === 0) await new Promise<void>((resolve) => (granted = resolve));
    }
    port.postMessage({ type: 'end', ...since() } satisfies FromReader);
  }
} catch (err) {
  port.postMessage({ type: 'error', error: errorFields(err), ...since() } satisfies FromReader);
}
port.close();
