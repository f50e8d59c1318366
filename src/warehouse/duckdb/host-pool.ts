/**
 * DuckDB statements run in forked host processes (`duckdb-host.ts`), never in the replaying
 * process, for two reasons found by a hostile review: DuckDB allocates some values outside its
 * `memory_limit` (`SELECT list_transform(range(10000), x -> range(10000))` took 4 GB), and a
 * statement that ignores DuckDB's interrupt (one long `levenshtein` call) cannot be stopped and
 * kept the process from exiting for minutes. A host runs one statement at a time, so a kill
 * names exactly one statement:
 * - time limit: the host interrupts DuckDB at the limit; a statement still running
 *   {@link DUCKDB_ABANDON_AFTER_MS} later is stopped by SIGKILL of its host (the one reliable stop);
 * - memory cap: the host watches its own resident memory while a statement runs, and the parent
 *   reads `/proc/<pid>/status` as a backstop; past {@link duckdbMemoryCapMb} the host is killed;
 * - a host that died is replaced for the next statement; idle hosts are `unref`'d, `close()`
 *   kills them, and so does this process's exit, so nothing waits in DuckDB's clean-up.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { ConfigError, DataError } from '../../util/errors.js';
import { forkHostProcess, killLiveHosts } from '../host-script.js';
import { fromWire, type WireResult } from '../sqlite/wire.js';
import { addSignalCleanup } from '../temp-folders.js';
import { SqlError, SqlLostError, SqlRefusedError, SqlTimeoutError, type QueryResult, type TableInfo } from '../types.js';
import type { DuckdbResources } from './statements.js';

/** After the time limit, a statement DuckDB has not stopped is ended this much later by killing its host. */
export const DUCKDB_ABANDON_AFTER_MS = 500;

/** When the statement on every host of a file has run this long and others wait, the file gets another host (up to its maximum). */
export const DUCKDB_SPILL_AFTER_MS = 500;

/**
 * Memory a DuckDB host may hold above `memory_limit_mb` before it is killed (MiB): the Node
 * process and DuckDB's library (about 100 MiB resident), the result being converted (up to the
 * 64 MiB result limit, several times over as JavaScript values), and DuckDB's own overshoot.
 */
export const DUCKDB_HOST_HEADROOM_MB = 512;

/**
 * The resident memory one DuckDB host may reach: the database's `memory_limit_mb` plus
 * {@link DUCKDB_HOST_HEADROOM_MB}.
 * @example duckdbMemoryCapMb(1024) // 1536
 */
export function duckdbMemoryCapMb(memoryLimitMb: number): number {
  return memoryLimitMb + DUCKDB_HOST_HEADROOM_MB;
}

/** What a host is started with (`argv[2]`, JSON). */
export interface DuckdbHostConfig extends DuckdbResources {
  readonly file: string;
  /** A migration's temporary copy: opened writable. */
  readonly writable: boolean;
  /** Resident memory past which the host kills itself, bytes. */
  readonly capBytes: number;
}

/** One request to a host (JSON: no row cap is `maxRows: null`). */
export type DuckdbHostRequest =
  | { readonly id: number; readonly op: 'read'; readonly sql: string; readonly maxRows: number | null; readonly timeoutMs: number; readonly internal: boolean; readonly bindParameter?: string }
  | { readonly id: number; readonly op: 'tables'; readonly timeoutMs: number }
  | { readonly id: number; readonly op: 'write'; readonly sql: string; readonly timeoutMs: number }
  | { readonly id: number; readonly op: 'close' };

/** Why a host could not answer: the statement's fault, its time limit, an unopenable file, a missing package, or a bug. */
export interface DuckdbHostFailure {
  readonly kind: 'refused' | 'sql' | 'timeout' | 'open' | 'config' | 'bug';
  readonly message: string;
  /** The host's stack, for a bug only (the statement's own failures are told by their message). */
  readonly stack?: string;
}

/** A host's message: ready once its file is open, one reply per request, or why it is about to die. */
export type DuckdbHostReply =
  | { readonly ready: true }
  | { readonly fatal: DuckdbHostFailure }
  | { readonly memory: number }
  | { readonly id: number; readonly result: WireResult }
  | { readonly id: number; readonly tables: readonly TableInfo[] }
  | { readonly id: number; readonly done: true }
  | { readonly id: number; readonly error: DuckdbHostFailure };

/** A request without its id (the group numbers them), and what the caller waits for. */
type Job = DistributiveOmit<DuckdbHostRequest, 'id'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface Pending {
  readonly job: Job;
  readonly resolve: (reply: DuckdbHostReply) => void;
  readonly reject: (error: Error) => void;
}

const MIB = 1024 * 1024;
/** How often the parent reads a busy host's resident memory (the host itself checks far more often). */
const BACKSTOP_POLL_MS = 100;
const PROC = existsSync('/proc/self/status');

// A signal during a migration (temp-folders.ts handles it then) must not leave a busy host behind.
addSignalCleanup(killLiveHosts);

/** The statement a job runs, for messages. */
const jobSql = (job: Job): string => ('sql' in job ? job.sql : job.op === 'tables' ? 'SELECT … FROM duckdb_columns(), duckdb_constraints()' : '(closing the database)');

/** Resident memory of process `pid` in bytes (Linux), or undefined. */
function residentBytes(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * The error of a statement whose host passed the memory cap.
 * @example memoryCapError('SELECT …', 1024, 1_700_000_000).message // 'the statement took more memory than …'
 */
export function memoryCapError(sql: string, memoryLimitMb: number, rssBytes: number | undefined): SqlError {
  const cap = duckdbMemoryCapMb(memoryLimitMb);
  const seen = rssBytes === undefined ? '' : ` (${Math.round(rssBytes / MIB)} MiB when it was stopped)`;
  return new SqlError(
    `the statement took more memory than a DuckDB host may use and was stopped: ${cap} MiB${seen}, memory_limit_mb (${memoryLimitMb} MiB) + ${DUCKDB_HOST_HEADROOM_MB} MiB for the process. ` +
      'DuckDB allocates some values outside its memory limit (a list or string built per row, e.g. list_transform(range(…), x -> range(…))): ' +
      "rewrite the query to build smaller values, or raise memory_limit_mb in the database's warehouse settings if it is meant to",
    sql,
  );
}

function toError(failure: DuckdbHostFailure, job: Job, file: string, timeoutMs: number): Error {
  const sql = jobSql(job);
  switch (failure.kind) {
    case 'refused':
      return new SqlRefusedError(failure.message, sql);
    case 'sql':
      return new SqlError(failure.message, sql);
    case 'timeout':
      return new SqlTimeoutError(sql, timeoutMs);
    case 'open':
      // The host's DataError already names the file: name it once.
      return new DataError(failure.message.startsWith(`${file}: `) ? failure.message.slice(file.length + 2) : failure.message, file);
    case 'config':
      return new ConfigError(failure.message);
    case 'bug':
      return Object.assign(new Error(failure.message), { stack: failure.stack ?? failure.message });
  }
}

/** One host process, running at most one job. */
class DuckdbHost {
  readonly child: ChildProcess;
  #ready = false;
  #pending: Pending | undefined;
  #timer: NodeJS.Timeout | undefined;
  #poll: NodeJS.Timeout | undefined;
  #startedAt: number | undefined;
  /** Resident memory when the cap was passed (the host is being killed for it). */
  #overCap: number | undefined | null = null;
  #stopped = false;
  #exited = false;
  #nextId = 1;

  constructor(
    private readonly config: DuckdbHostConfig,
    /** `idle`: the host became ready or free. */
    private readonly events: { idle(host: DuckdbHost): void; dead(host: DuckdbHost, ready: boolean): void; fatal(error: Error): void },
  ) {
    const child = forkHostProcess(import.meta.url, 'duckdb-host', [JSON.stringify(config)]);
    this.child = child;
    this.#idle();
    child.on('message', (reply: DuckdbHostReply) => this.#onReply(reply));
    child.once('exit', (code, signal) => this.#onExit(signal ?? `code ${code}`));
    // Fork failed (or the channel broke): as a crash, once.
    child.on('error', (error) => {
      child.kill('SIGKILL');
      this.#onExit(`failed: ${error.message}`);
    });
  }

  /** When its statement started running (ready and sent); undefined while starting or free. */
  get runningSince(): number | undefined {
    return this.#startedAt;
  }

  get busy(): boolean {
    return this.#pending !== undefined || this.#stopped;
  }

  run(pending: Pending): void {
    this.#pending = pending;
    this.child.ref();
    this.child.channel?.ref();
    this.child.send({ ...pending.job, id: this.#nextId++ });
    if (this.#ready) this.#arm();
  }

  /** Kills the host; a job it was running is rejected with `error`. */
  stop(error?: Error): void {
    this.#finish(undefined, error);
    this.#stopped = true;
    this.child.kill('SIGKILL');
  }

  #idle(): void {
    this.child.unref();
    this.child.channel?.unref();
  }

  /** The time limit (from when the host is ready and has the job) and the memory backstop. */
  #arm(): void {
    const job = this.#pending?.job;
    if (job === undefined) return;
    this.#startedAt = performance.now();
    const timeoutMs = 'timeoutMs' in job ? job.timeoutMs : 60_000;
    this.#timer = setTimeout(() => this.stop(new SqlTimeoutError(jobSql(job), timeoutMs)), timeoutMs + DUCKDB_ABANDON_AFTER_MS);
    if (PROC && this.child.pid !== undefined) {
      const pid = this.child.pid;
      this.#poll = setInterval(() => {
        const rss = residentBytes(pid);
        if (rss !== undefined && rss > this.config.capBytes) this.#memoryKill(rss);
      }, BACKSTOP_POLL_MS);
    }
  }

  #memoryKill(rss: number | undefined): void {
    const job = this.#pending?.job;
    this.#overCap = rss;
    this.stop(job === undefined ? undefined : memoryCapError(jobSql(job), this.config.memoryLimitMb, rss));
  }

  /** Ends the current job (with its reply or an error) and disarms its limits. */
  #finish(reply: DuckdbHostReply | undefined, error?: Error): void {
    clearTimeout(this.#timer);
    clearInterval(this.#poll);
    this.#startedAt = undefined;
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined) return;
    if (error !== undefined) pending.reject(error);
    else if (reply !== undefined && 'error' in reply) pending.reject(toError(reply.error, pending.job, this.config.file, 'timeoutMs' in pending.job ? pending.job.timeoutMs : 0));
    else if (reply !== undefined) pending.resolve(reply);
  }

  #onReply(reply: DuckdbHostReply): void {
    if (this.#stopped) return;
    if ('ready' in reply) {
      this.#ready = true;
      this.#arm();
      this.events.idle(this);
    } else if ('fatal' in reply) {
      const error = toError(reply.fatal, { op: 'close' }, this.config.file, 0);
      this.#finish(undefined, error);
      this.events.fatal(error);
    } else if ('memory' in reply) {
      this.#memoryKill(reply.memory);
    } else {
      this.#finish(reply);
      this.#idle();
      this.events.idle(this);
    }
  }

  #onExit(how: string): void {
    if (this.#exited) return;
    this.#exited = true;
    const job = this.#pending?.job;
    if (job !== undefined) {
      const lost = new SqlLostError(`the DuckDB host process exited (${how}) while running this statement`, jobSql(job));
      this.#finish(undefined, this.#overCap !== null ? memoryCapError(jobSql(job), this.config.memoryLimitMb, this.#overCap) : lost);
    }
    this.#stopped = true;
    this.events.dead(this, this.#ready);
  }
}

/**
 * The hosts of one DuckDB file: at most `maxHosts`, each running one statement at a time, the
 * first started at once (so its start-up overlaps other work) and more only when a statement has
 * waited {@link DUCKDB_SPILL_AFTER_MS}; statements wait in order.
 */
export class DuckdbHostGroup {
  readonly #hosts: DuckdbHost[] = [];
  readonly #waiting: Pending[] = [];
  #closed = false;
  #fatal: Error | undefined;
  #spill: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: DuckdbHostConfig,
    private readonly maxHosts: number,
  ) {}

  /** Starts the first host now (unref'd), so its start-up overlaps the caller's other work. */
  warm(): void {
    if (!this.#closed && this.#fatal === undefined && this.#hosts.length === 0) this.#spawn();
  }

  /** A read; `internal` catalogue statements skip the parse-tree checks (they are not user SQL). */
  async read(sql: string, options: { readonly maxRows: number; readonly timeoutMs: number; readonly internal: boolean; readonly bindParameter?: string | undefined }): Promise<QueryResult> {
    const { bindParameter, ...rest } = options;
    const maxRows = Number.isFinite(rest.maxRows) && rest.maxRows < Number.MAX_SAFE_INTEGER ? rest.maxRows : null;
    const reply = await this.#submit({ op: 'read', sql, ...rest, maxRows, ...(bindParameter === undefined ? {} : { bindParameter }) });
    if (!('result' in reply)) throw new Error('DuckDB host answered a read without a result');
    return fromWire(reply.result);
  }

  /** Tables and views with their columns and keys. */
  async tables(timeoutMs: number): Promise<readonly TableInfo[]> {
    const reply = await this.#submit({ op: 'tables', timeoutMs });
    if (!('tables' in reply)) throw new Error('DuckDB host answered a catalogue read without tables');
    return reply.tables;
  }

  /** One migration statement (writable groups only). */
  async write(sql: string, timeoutMs: number): Promise<void> {
    await this.#submit({ op: 'write', sql, timeoutMs });
  }

  /** Closes the database cleanly in its host (a writable copy is checkpointed), then stops the hosts. */
  async closeDatabase(): Promise<void> {
    if (this.#hosts.length > 0) await this.#submit({ op: 'close' });
    await this.close();
  }

  /** Stops every host; statements still in flight or waiting are rejected. Resolves when the hosts are gone. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#spill);
    const closed = (): Error => new Error('the warehouse was closed before this statement finished');
    for (const pending of this.#waiting.splice(0)) pending.reject(closed());
    const exits = this.#hosts.map((host) => {
      if (host.child.exitCode !== null || host.child.signalCode !== null) return undefined;
      host.child.ref(); // an idle host is unref'd; wait for its exit all the same
      return new Promise((resolve) => host.child.once('exit', resolve));
    });
    for (const host of this.#hosts.splice(0)) host.stop(closed());
    await Promise.all(exits);
  }

  #submit(job: Job): Promise<DuckdbHostReply> {
    if (this.#closed) return Promise.reject(new Error('the warehouse is closed'));
    if (this.#fatal !== undefined) return Promise.reject(this.#fatal);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ job, resolve, reject });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#waiting.length > 0 && !this.#closed && this.#fatal === undefined) {
      let host = this.#hosts.find((h) => !h.busy);
      if (host === undefined) {
        if (this.#hosts.length >= this.maxHosts) return;
        if (this.#hosts.length > 0) return this.#spillLater();
        host = this.#spawn();
      }
      host.run(this.#waiting.shift() as Pending);
    }
  }

  /**
   * Another host only when the statement on every host has run for {@link DUCKDB_SPILL_AFTER_MS}:
   * a burst of short statements is served by the warm host in turn (a host's start costs more
   * than they do), while a long statement does not hold up the others. Checked again whenever a
   * host becomes free or ready.
   */
  #spillLater(): void {
    if (this.#spill !== undefined) return;
    // A host starting or free is not held up: this is checked again when it is ready or free.
    const since = this.#hosts.map((host) => host.runningSince);
    if (since.some((t) => t === undefined)) return;
    const due = Math.max(...(since as number[])) + DUCKDB_SPILL_AFTER_MS;
    this.#spill = setTimeout(() => {
      this.#spill = undefined;
      if (this.#closed || this.#waiting.length === 0 || this.#hosts.length >= this.maxHosts) return;
      const now = this.#hosts.map((host) => host.runningSince);
      if (now.some((t) => t === undefined)) return;
      if (Math.max(...(now as number[])) + DUCKDB_SPILL_AFTER_MS > performance.now()) return this.#spillLater(); // a newer statement: not yet
      this.#spawn();
      this.#dispatch();
    }, Math.max(0, due - performance.now()));
  }

  #spawn(): DuckdbHost {
    const host = new DuckdbHost(this.config, {
      idle: () => this.#dispatch(),
      dead: (dead, wasReady) => {
        const at = this.#hosts.indexOf(dead);
        if (at >= 0) this.#hosts.splice(at, 1);
        if (this.#closed || this.#fatal !== undefined) return;
        // Restarted for the next statement (a host that died while starting is not retried in a loop).
        if (this.#waiting.length > 0) this.#dispatch();
        else if (wasReady && this.#hosts.length === 0) this.#spawn();
      },
      fatal: (error) => {
        this.#fatal = error;
        for (const pending of this.#waiting.splice(0)) pending.reject(error);
      },
    });
    this.#hosts.push(host);
    return host;
  }
}
