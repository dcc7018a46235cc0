/**
 * Soak: mixed load at saturation for a long time (30 minutes by default), with the
 * server's memory sampled, to show that memory stays flat (issue 9: a read worker leaked
 * about 150 bytes per read until it ran out of heap). The load: `--connections` clients
 * sending, back to back, 90% reads (point reads, one-hop and two-hop counts) and 10%
 * single-node writes. Every --sample-s seconds it records the server process's resident
 * memory from /proc: anonymous memory (heaps, buffers: where a leak shows) and file-backed
 * memory (LMDB's memory map, which grows with the data the writes add).
 *
 *   node dist/bench/soak.js [--size tiny|small] [--minutes M] [--connections N] [--sample-s S] [--write-percent P]
 *
 * Prints one JSON object on stdout (the samples and a summary); progress goes to stderr.
 */
import { fileURLToPath } from 'node:url';
import { DEFAULT_SEED, SIZES } from './lib/dataset.js';
import { startChild } from './lib/child.js';
import { machine, parseBenchArgs, positiveInt, positiveNumber, progress, runBench } from './lib/cli.js';
import { prepareDatabase } from './lib/prepare.js';
import { RawConnection } from './lib/raw-client.js';
import { readScenarios, seededSequence } from './lib/scenarios.js';
import { round, slope } from './lib/stats.js';
import { processMemory } from './lib/proc-memory.js';
import { buildTruth } from './lib/truth.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

interface Sample {
  minute: number;
  rss_mib: number;
  anon_mib: number;
  file_mib: number;
  requests: number;
  errors: number;
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['minutes', 'connections', 'sample-s', 'write-percent']);
  // 0 keeps the data constant, so any growth of memory is the server's own (no cache has new data to hold).
  const writePercent = Number(args.values['write-percent'] ?? 10);
  if (!(writePercent >= 0 && writePercent <= 100)) throw new Error(`--write-percent must be 0 to 100, got ${args.values['write-percent']}`);
  const minutes = positiveNumber(args.values.minutes, 30, 'minutes');
  const connections = positiveInt(args.values.connections, 32, 'connections');
  const sampleS = positiveNumber(args.values['sample-s'], 10, 'sample-s');
  const prepared = await prepareDatabase(args.size, DEFAULT_SEED);
  try {
    await prepared.close();
    const truth = buildTruth(DEFAULT_SEED, SIZES[args.size]);
    const reads = readScenarios(truth, DEFAULT_SEED).filter((s) => ['point_read', 'one_hop', 'two_hop_count'].includes(s.name));
    const random = seededSequence(DEFAULT_SEED);
    let writes = 0;
    const write = () =>
      JSON.stringify({
        request_type: 'write',
        query: {
          write: {
            entries: [{ query: { name: 'n', root: { add_n: { label: 'Soak', properties: [['i', { value: { i64: writes++ } }]] } } } }],
            returns: ['n'],
          },
        },
      });
    const next = () => {
      const r = random();
      if (r < writePercent / 100) return write();
      const s = reads[Math.floor(random() * reads.length)]!;
      return s.requests[Math.floor(random() * s.requests.length)]!;
    };

    const server = await startChild(
      'trellis',
      [],
      CLI,
      ['--port', '0', '--data', prepared.dir],
      /listening on http:\/\/[^:]+:(\d+)/,
      /trellis ready/,
    );
    const pid = server.process.pid!;
    let requests = 0;
    let errors = 0;
    const started = performance.now();
    const until = started + minutes * 60_000;
    const samples: Sample[] = [];
    const sample = () => {
      const m = processMemory(pid);
      const s = {
        minute: round((performance.now() - started) / 60_000, 2),
        rss_mib: round(m.rss),
        anon_mib: round(m.anon),
        file_mib: round(m.file),
        requests,
        errors,
      };
      samples.push(s);
      progress(`t=${s.minute} min: rss ${s.rss_mib} MiB (anon ${s.anon_mib}, file ${s.file_mib}), ${requests} requests, ${errors} errors`);
    };
    sample();
    const timer = setInterval(sample, sampleS * 1000);
    try {
      const clients = await Promise.all(Array.from({ length: connections }, () => RawConnection.open(server.port)));
      await Promise.all(
        clients.map(async (c) => {
          while (performance.now() < until) {
            const answer = await c.post(next());
            requests++;
            if (answer.status !== 200) {
              errors++;
              if (errors <= 5) progress(`error ${answer.status}: ${answer.body.slice(0, 200)}`);
            }
          }
          c.close();
        }),
      );
    } finally {
      clearInterval(timer);
    }
    sample();
    await server.stop();

    // The first minutes warm caches up (column chunks, JIT); the slope of the rest is the figure.
    const settled = samples.filter((s) => s.minute >= Math.min(5, minutes / 3));
    const report = {
      bench: 'soak',
      machine: machine(),
      dataset: { size: args.size, ...SIZES[args.size] },
      load: {
        minutes,
        connections,
        mix: `${100 - writePercent}% reads (point, one-hop, two-hop count), ${writePercent}% one-node writes`,
        sample_s: sampleS,
      },
      summary: {
        requests,
        requests_per_s: Math.round(requests / ((performance.now() - started) / 1000)),
        errors,
        writes,
        anon_mib_first: samples[0]!.anon_mib,
        anon_mib_max: Math.max(...samples.map((s) => s.anon_mib)),
        anon_mib_last: samples.at(-1)!.anon_mib,
        anon_mib_per_minute_after_warmup: round(slope(settled.map((s) => [s.minute, s.anon_mib])), 3),
        file_mib_last: samples.at(-1)!.file_mib,
      },
      samples,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    if (errors > 0) process.exitCode = 1;
  } finally {
    await prepared.remove();
  }
}

await runBench(main);
