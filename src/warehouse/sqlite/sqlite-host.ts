/**
 * Entry script of a SQLite host process (forked by `spare-hosts.ts`; not imported). It loads the
 * driver named in `argv[2]` (`auto`: the one the parent would choose), opens database files lazily and keeps them open, and answers each
 * {@link HostRequest} in arrival order with one {@link HostReply}. The parent enforces time
 * limits by killing this process; when the IPC channel closes, nothing keeps it alive and it exits.
 *
 * Bundlers must emit this file as `sqlite-host.js` next to the module that contains
 * `spare-hosts.ts` (see docs/warehouse.md).
 */
import { ConnectionCache } from './connections.js';
import { loadDriver, type DriverChoice, type SqliteConnection } from './drivers.js';
import type { HostFailure, HostReply, HostRequest, HostSkip } from './host-pool.js';
import { runReadDetailed, runWrite } from './read.js';
import { SqlError, SqlRefusedError } from '../types.js';
import { toWire } from './wire.js';

// `auto` (a spare host started early, spare-hosts.ts) chooses as the parent chooses; the ready message names the driver.
const driver = loadDriver(process.argv[2] as DriverChoice);
const connections = new ConnectionCache(driver);
// Migrated copies only: the parent sends a copy's statements here after checking each one.
const writers = new ConnectionCache(driver, true);
// A reply fails to send only when the parent is gone (it ended while this host was busy in
// native code): end quietly, not with an unhandled EPIPE trace on the terminal we share. Node
// reports a failed send as an 'error' event of the process when no callback is given; a callback
// per reply would cost a tick of the event loop per reply, whether it failed or not.
process.on('error', () => process.exit(0));
const send = (reply: HostReply): void => void process.send?.(reply);

function failure(id: number, kind: HostFailure['kind'], error: unknown): HostReply {
  const e = error instanceof Error ? error : new Error(String(error));
  return { id, error: kind === 'bug' ? { kind, message: e.message, stack: e.stack ?? '' } : { kind, message: e.message } };
}

// Requests come one by one or several in one message (an array); each gets its own reply, sent
// as soon as its statement ends, so the parent's time limit for the next one starts then. A
// `skip` message names requests the parent gave to another host while this one ran a long
// statement: they are answered `skipped`, not run.
const waiting: HostRequest[] = [];
const skipped = new Set<number>();
let draining = false;
process.on('message', (message: HostRequest | HostRequest[] | HostSkip) => {
  if (Array.isArray(message)) for (const request of message) waiting.push(request);
  else if ('skip' in message) {
    for (const id of message.skip) skipped.add(id);
    return;
  } else waiting.push(message);
  if (!draining) drain();
});

/**
 * After a statement that ran this long, the rest wait one turn of the event loop, so that a skip
 * message the parent sent meanwhile is read first (it hands statements on after 100 ms).
 */
const YIELD_AFTER_MS = 20;

function drain(): void {
  draining = true;
  while (waiting.length > 0) {
    const request = waiting.shift() as HostRequest;
    if (skipped.delete(request.id)) {
      send({ id: request.id, skipped: true });
      continue;
    }
    const started = performance.now();
    answer(request);
    if (waiting.length > 0 && performance.now() - started >= YIELD_AFTER_MS) {
      // Two immediates: the first runs in this turn's check phase, the second after the next
      // poll phase, which reads what came over the channel meanwhile.
      setImmediate(() => setImmediate(drain));
      return;
    }
  }
  draining = false;
}

function answer(request: HostRequest): void {
  let open: SqliteConnection;
  try {
    open = (request.write ? writers : connections).get(request.file);
  } catch (error) {
    return send(failure(request.id, 'open', error));
  }
  try {
    if (request.write) {
      runWrite(open, request.sql);
      if (request.closeAfter) writers.close(request.file);
      send({ id: request.id, result: { columns: [], rows: [], rowCount: 0, truncated: false } });
      return;
    }
    // JSON has no Infinity: a request without a row cap says null.
    const options = { maxRows: request.maxRows ?? Infinity, legacyStringLiterals: request.legacyStringLiterals };
    const { result, special } = runReadDetailed(open, request.sql, options);
    send({ id: request.id, result: toWire(result, special) });
  } catch (error) {
    const kind = error instanceof SqlRefusedError ? 'refused' : error instanceof SqlError ? 'sql' : 'bug';
    send(failure(request.id, kind, error));
  }
}
send({ ready: true, driver: driver.name });
