/**
 * Entry script of a SQLite host process (forked by `host-pool.ts`; not imported). It loads the
 * driver named in `argv[2]`, opens database files lazily and keeps them open, and answers each
 * {@link HostRequest} in arrival order with one {@link HostReply}. The parent enforces time
 * limits by killing this process; when the IPC channel closes, nothing keeps it alive and it exits.
 *
 * Bundlers must emit this file as `sqlite-host.js` next to the module that contains
 * `host-pool.ts` (see docs/warehouse.md).
 */
import { ConnectionCache } from './connections.js';
import { loadDriver, type DriverName, type SqliteConnection } from './drivers.js';
import type { HostFailure, HostReply, HostRequest } from './host-pool.js';
import { runRead, runWrite } from './read.js';
import { SqlError, SqlRefusedError } from '../types.js';

const driver = loadDriver(process.argv[2] as DriverName);
const connections = new ConnectionCache(driver);
// Migrated copies only: the parent sends a copy's statements here after checking each one.
const writers = new ConnectionCache(driver, true);
const send = (reply: HostReply): void => void process.send?.(reply);

function failure(id: number, kind: HostFailure['kind'], error: unknown): HostReply {
  const e = error instanceof Error ? error : new Error(String(error));
  return { id, error: { kind, message: e.message, stack: e.stack ?? '' } };
}

process.on('message', (request: HostRequest) => {
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
    send({ id: request.id, result: runRead(open, request.sql, request) });
  } catch (error) {
    const kind = error instanceof SqlRefusedError ? 'refused' : error instanceof SqlError ? 'sql' : 'bug';
    send(failure(request.id, kind, error));
  }
});
send({ ready: true });
