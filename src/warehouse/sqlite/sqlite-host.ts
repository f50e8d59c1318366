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
import type { HostFailure, HostReply, HostRequest } from './host-pool.js';
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
// as soon as its statement ends, so the parent's time limit for the next one starts then.
process.on('message', (message: HostRequest | HostRequest[]) => {
  if (Array.isArray(message)) for (const request of message) answer(request);
  else answer(message);
});

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
