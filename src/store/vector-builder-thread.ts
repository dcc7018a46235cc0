/**
 * The vector builder's thread (vector-builder.ts): a read-only store of its own, and the
 * messages of the store that started it (vector-builder-client.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openVectorSource } from './open.js';
import { VectorBuilder, type BuilderSettings, type FromBuilder, type ToBuilder } from './vector-builder.js';

const port = parentPort!;
const settings = workerData as BuilderSettings;
const source = await openVectorSource(settings.path);
const builder = new VectorBuilder(source, settings, (message: FromBuilder) => port.postMessage(message));
port.on('message', (message: ToBuilder) => builder.receive(message));
await builder.run();
port.close();
