import { ConnectionCache } from './connections.js';
import { loadDriver, type DriverName } from './drivers.js';
import type { PoolQuery } from './host-pool.js';
import { runRead, runWrite } from './read.js';
import type { QueryResult } from '../types.js';
import { DataError } from '../../util/errors.js';
import { wrongEngineHint } from '../files.js';

/**
 * Runs statements in this process (`warehouse.isolation: inline`): no inter-process hop, so it
 * is the fastest way to execute, but nothing can stop a statement that runs past its time limit
 * (neither driver can interrupt one). For trusted, fast SQL and benchmarks; the default is
 * host processes.
 */
export class InlinePool {
  readonly #connections: ConnectionCache;
  readonly #writers: ConnectionCache;

  constructor(driver: DriverName) {
    this.#connections = new ConnectionCache(loadDriver(driver));
    this.#writers = new ConnectionCache(loadDriver(driver), true);
  }

  async query(file: string, sql: string, options: PoolQuery): Promise<QueryResult> {
    let connection;
    try {
      connection = (options.write ? this.#writers : this.#connections).get(file);
    } catch (error) {
      throw new DataError(`cannot open the SQLite database: ${(error as Error).message}.${wrongEngineHint(file, 'sqlite')}`, file);
    }
    if (options.write) {
      runWrite(connection, sql);
      if (options.closeAfter) this.#writers.close(file);
      return { columns: [], rows: [], rowCount: 0, truncated: false };
    }
    return runRead(connection, sql, options);
  }

  /** Nothing to start: statements run in this process. */
  warm(): void {}

  async close(): Promise<void> {
    this.#connections.closeAll();
    this.#writers.closeAll();
  }
}
