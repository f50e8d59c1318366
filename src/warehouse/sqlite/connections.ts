import type { SqliteConnection, SqliteDriver } from './drivers.js';

/**
 * Connections by file, opened on first use and kept: read-only ones, or writable ones for
 * migrated copies. Shared by the host process and the inline pool so both open files the same way.
 */
export class ConnectionCache {
  readonly #open = new Map<string, SqliteConnection>();

  constructor(
    private readonly driver: SqliteDriver,
    private readonly writable = false,
  ) {}

  /** The connection of `file`. @throws the driver's error when the file is not a usable database. */
  get(file: string): SqliteConnection {
    let open = this.#open.get(file);
    if (open === undefined) {
      open = this.driver.open(file, this.writable);
      try {
        // SQLite opens lazily: read the schema now so that a bad file fails as such, not as a SQL error.
        [...open.prepareRead('SELECT count(*) FROM sqlite_schema').rows()];
      } catch (error) {
        open.close();
        throw error;
      }
      this.#open.set(file, open);
    }
    return open;
  }

  /** Closes the connection of `file`, if open. */
  close(file: string): void {
    this.#open.get(file)?.close();
    this.#open.delete(file);
  }

  closeAll(): void {
    for (const c of this.#open.values()) c.close();
    this.#open.clear();
  }
}
