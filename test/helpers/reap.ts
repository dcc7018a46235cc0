/**
 * Kills test servers (and other child processes: redis-server, see redis.ts) with SIGKILL
 * when the test process exits, however it exits: a suite that fails half-way (or is
 * stopped by the runner's timeout) must not leave a process running on a shared machine.
 * One set of listeners serves every process.
 */
import type { ChildProcess } from 'node:child_process';

interface HasProcess {
  readonly proc: ChildProcess;
}

const live = new Set<HasProcess>();

function killAll(): void {
  for (const s of live) if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill('SIGKILL');
}
let listening = false;

export function killOnExit<T extends HasProcess>(server: T): T {
  live.add(server);
  void new Promise<void>((resolve) => server.proc.once('exit', () => resolve())).then(() => live.delete(server));
  if (!listening) {
    listening = true;
    process.once('exit', killAll);
    // A signal skips 'exit' listeners: kill the servers, then die of the same signal.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const onSignal = () => {
        killAll();
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      };
      process.on(signal, onSignal);
    }
  }
  return server;
}
