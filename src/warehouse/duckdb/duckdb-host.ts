/**
 * Entry script of a DuckDB host process (forked by `host-pool.ts`; not imported). It opens the
 * one database file named in `argv[2]` (a JSON {@link DuckdbHostConfig}) and answers each
 * {@link DuckdbHostRequest}, one at a time, with one {@link DuckdbHostReply}. The parent enforces
 * the time limit (DuckDB is interrupted here at the limit; a statement that ignores it is ended by
 * the parent killing this process) and the memory cap: while a statement runs, this process
 * checks its own resident memory every few milliseconds and, past the cap, tells the parent and
 * kills itself — DuckDB allocates some values outside its `memory_limit`. It listens on nothing
 * (IPC only); when the channel closes it kills itself, so it never outlives its parent or waits
 * in DuckDB's clean-up.
 *
 * Bundlers must emit this file as `duckdb-host.js` next to the module that contains
 * `host-pool.ts` (see docs/warehouse.md).
 */
import { ReplaygateError } from '../../util/errors.js';
import { toWire } from '../sqlite/wire.js';
import { SqlError, SqlRefusedError, SqlTimeoutError } from '../types.js';
import type { DuckdbHostConfig, DuckdbHostFailure, DuckdbHostReply, DuckdbHostRequest } from './host-pool.js';
import { DuckdbDatabase } from './statements.js';

/** How often a busy host checks its resident memory against the cap (ms). */
const MEMORY_CHECK_MS = 5;

const config = JSON.parse(process.argv[2] ?? '{}') as DuckdbHostConfig;
const send = (reply: DuckdbHostReply, then?: () => void): void => void process.send?.(reply, undefined, undefined, then);
const die = (): void => void process.kill(process.pid, 'SIGKILL');
process.on('disconnect', die);

function failure(error: unknown): DuckdbHostFailure {
  const e = error instanceof Error ? error : new Error(String(error));
  const kind: DuckdbHostFailure['kind'] =
    e instanceof SqlTimeoutError ? 'timeout' : e instanceof SqlRefusedError ? 'refused' : e instanceof SqlError ? 'sql' : e.name === 'DataError' ? 'open' : e instanceof ReplaygateError ? 'config' : 'bug';
  return kind === 'bug' ? { kind, message: e.message, stack: e.stack ?? '' } : { kind, message: e.message };
}

let database: DuckdbDatabase | undefined;
try {
  database = new DuckdbDatabase(config.file, config.writable, config);
} catch (error) {
  // @duckdb/node-api cannot be loaded here: nothing this host could answer.
  send({ fatal: failure(error) }, die);
}

let watch: NodeJS.Timeout | undefined;
/** Past the cap: the parent learns why, then this process ends at once (no DuckDB clean-up). */
function checkMemory(): void {
  const rss = process.memoryUsage.rss();
  if (rss <= config.capBytes) return;
  clearInterval(watch);
  send({ memory: rss }, die);
  setTimeout(die, 200); // in case the channel is stuck
}

async function answer(database: DuckdbDatabase, request: DuckdbHostRequest): Promise<DuckdbHostReply> {
  switch (request.op) {
    case 'read': {
      const { result, special } = await database.read(request.sql, {
        // JSON has no Infinity: a request without a row cap says null.
        maxRows: request.maxRows ?? Number.MAX_SAFE_INTEGER,
        timeoutMs: request.timeoutMs,
        internal: request.internal,
        bindParameter: request.bindParameter,
      });
      return { id: request.id, result: toWire(result, special) };
    }
    case 'tables':
      return { id: request.id, tables: await database.tables(request.timeoutMs) };
    case 'write':
      await database.write(request.sql, request.timeoutMs);
      return { id: request.id, done: true };
    case 'close':
      await database.close();
      return { id: request.id, done: true };
  }
}

process.on('message', (request: DuckdbHostRequest) => {
  if (database === undefined) return;
  watch = setInterval(checkMemory, MEMORY_CHECK_MS);
  answer(database, request).then(
    (reply) => {
      clearInterval(watch);
      send(reply);
    },
    (error: unknown) => {
      clearInterval(watch);
      send({ id: request.id, error: failure(error) });
    },
  );
});

// Ready once the file is open (or failed to: each statement then says why), so the parent's time
// limit does not count the start.
void database?.opened().then(() => send({ ready: true }));
