import { ConnectionCache } from './connections.js';
import { loadDriver, type DriverName } from './drivers.js';
import type { PoolQuery } from './host-pool.js';
import { runRead } from './read.js';
import type { QueryResult } from './types.js';
import { DataError } from '../util/errors.js';

/**
 * Runs statements in this process (`warehouse.isolation: inline`): no inter-process hop, so it
 * is the fastest way to execute, but nothing can stop a statement that runs past its time limit
 * (neither driver can interrupt one). For trusted, fast SQL and benchmarks; the default is
 * host processes.
 */
export class InlinePool {
  readonly #connections: ConnectionCache;

  constructor(driver: DriverName) {
    this.#connections = new ConnectionCache(loadDriver(driver));
  }

  async query(file: string, sql: string, options: PoolQuery): Promise<QueryResult> {
    let connection;
    try {
      connection = this.#connections.get(file);
    } catch (error) {
      throw new DataError(`cannot open the SQLite database: ${(error as Error).message}`, file);
    }
    return runRead(connection, sql, options);
  }

  /** Nothing to start: statements run in this process. */
  warm(): void {}

  async close(): Promise<void> {
    this.#connections.closeAll();
  }
}
