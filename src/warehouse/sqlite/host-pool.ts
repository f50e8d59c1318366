/**
 * Statements run in forked host processes because neither driver can interrupt a running
 * statement (better-sqlite3 is built without the progress callback, and `Worker.terminate()`
 * does not stop native code). Killing the process is the one reliable stop. Each host answers
 * requests in order, so the parent keeps a FIFO per host and one timer, for the head.
 */
import type { ChildProcess } from 'node:child_process';
import { DataError } from '../../util/errors.js';
import { wrongEngineHint } from '../files.js';
import { addSignalCleanup } from '../temp-folders.js';
import type { DriverName } from './drivers.js';
import type { ReadOptions } from './read.js';
import { SqlError, SqlLostError, SqlRefusedError, SqlTimeoutError, type QueryResult } from '../types.js';
import { killLiveHosts } from '../host-script.js';
import { forkHost, takeSpareHost } from './spare-hosts.js';
import { fromWire, type WireResult } from './wire.js';

/** One statement sent to a host (JSON: no row cap is `maxRows: null`). */
export interface HostRequest {
  readonly id: number;
  readonly file: string;
  readonly sql: string;
  readonly maxRows: number | null;
  readonly legacyStringLiterals: boolean;
  /** A migration statement for a migrated copy: run on a writable connection (checked by the parent first). */
  readonly write?: true;
  /** With `write`: close the writable connection afterwards (the last statement of a migration). */
  readonly closeAfter?: true;
}

/** Why a host could not answer a request: the statement's fault, an unopenable file, or a bug. */
export interface HostFailure {
  readonly kind: 'refused' | 'sql' | 'open' | 'bug';
  readonly message: string;
  /** The host's stack, for a bug only (the statement's own failures are told by their message). */
  readonly stack?: string;
}

/** A host's message: ready after loading its driver (which it names), then one reply per request, in order. */
export type HostReply =
  | { readonly ready: true; readonly driver: DriverName }
  | { readonly id: number; readonly result: WireResult }
  | { readonly id: number; readonly error: HostFailure };

interface Pending {
  readonly request: HostRequest;
  readonly timeoutMs: number;
  readonly resolve: (result: QueryResult) => void;
  readonly reject: (error: Error) => void;
}

// A signal during a migration (temp-folders.ts handles it then) must not leave a busy host behind.
addSignalCleanup(killLiveHosts);

/**
 * One host process and its in-flight requests. The head's deadline starts when the host is
 * ready and the previous reply has arrived (or when the head was sent to an idle host); on
 * expiry the host is killed, the head rejected, and the rest resent to a new host.
 */
class SqliteHost {
  #child: ChildProcess | undefined;
  #ready = false;
  #timer: NodeJS.Timeout | undefined;
  /** The limit #timer was set with. */
  #timerMs = 0;
  #closed = false;
  readonly #queue: Pending[] = [];
  /** Processes of this host killed and not exited yet. */
  readonly #dying = new Set<ChildProcess>();
  /** Requests queued but not yet written to the host: sent together once this turn of the event loop ends. */
  #outbox: HostRequest[] = [];

  constructor(readonly driver: DriverName) {}

  /** Statements sent and not yet answered. */
  get pending(): number {
    return this.#queue.length;
  }

  run(request: HostRequest, timeoutMs: number): Promise<QueryResult> {
    if (this.#closed) return Promise.reject(new Error('the warehouse is closed'));
    return new Promise((resolve, reject) => {
      const child = this.#child ?? this.#spawn();
      this.#queue.push({ request, timeoutMs, resolve, reject });
      // One write per turn of the event loop for all the statements queued in it (a replay
      // queues several at once): each write is a system call on both sides.
      if (this.#outbox.push(request) === 1) setImmediate(() => this.#flush());
      if (this.#queue.length === 1) {
        this.#hold(child, true);
        this.#armTimer();
      }
    });
  }

  // Measured (issue #13, a 252-question gate shard, 1,862 statements in ≈400 writes, ≈460 KB of
  // replies): the parent's main thread is on the CPU for ≈20 ms inside `child.send` (its
  // scheduler run time read around each call), though a sampling profile shows ≈300 ms there:
  // the write wakes the host, and on a busy machine the parent is descheduled inside the call,
  // which the profiler counts as the call's time. The replies' JSON parsing and handling take
  // ≈35 ms more. 'advanced' serialization was slower (score: CPU ×1.07, wall ×1.09, paired).
  #flush(): void {
    const batch = this.#outbox;
    this.#outbox = [];
    if (batch.length === 0 || this.#child === undefined) return;
    this.#child.send(batch.length === 1 ? (batch[0] as HostRequest) : batch);
  }

  /** Starts the host process now (unref'd), so its start-up overlaps the caller's other work. */
  warm(): void {
    if (this.#closed || this.#child !== undefined) return;
    this.#hold(this.#spawn(), false);
  }

  /** A host with statements in flight keeps this process alive; an idle one does not. */
  #hold(child: ChildProcess, busy: boolean): void {
    if (busy) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#outbox = [];
    this.#stop();
    for (const pending of this.#queue.splice(0)) {
      pending.reject(new Error('the warehouse was closed before this statement finished'));
    }
    // Every process this host killed that has not exited yet, this one included: close() resolves
    // when they are gone (a host killed at a time limit could outlive it; an idle host is unref'd).
    await Promise.all(
      [...this.#dying].map((dying) => {
        dying.ref();
        return new Promise((resolve) => {
          if (dying.exitCode !== null || dying.signalCode !== null) resolve(undefined);
          else dying.once('exit', resolve);
        });
      }),
    );
  }

  /** A spare started early (spare-hosts.ts) when one waits, which may be ready already; else a new host. */
  #spawn(): ChildProcess {
    const spare = takeSpareHost(this.driver);
    return spare === undefined ? this.#adopt(forkHost(this.driver), false) : this.#adopt(spare.child, spare.ready);
  }

  #adopt(child: ChildProcess, ready: boolean): ChildProcess {
    this.#child = child;
    this.#ready = ready;
    const current = (): boolean => child === this.#child;
    child.on('message', (reply: HostReply) => current() && this.#onReply(reply));
    child.on('exit', (code, signal) => current() && this.#onCrash(`exited (${signal ?? `code ${code}`})`));
    child.on('error', (error) => current() && this.#onCrash(`failed (${error.message})`));
    return child;
  }

  // One timer for the head, re-armed from now (refresh) when the next head has the same limit:
  // a reply each ends one statement and starts the next one's deadline, and a new Timeout per
  // reply was an allocation and a timer-list removal and insertion in this busy process.
  #armTimer(): void {
    const head = this.#queue[0];
    if (head === undefined || !this.#ready) return this.#clearTimer();
    if (this.#timer !== undefined && this.#timerMs === head.timeoutMs) {
      this.#timer.refresh();
      return;
    }
    clearTimeout(this.#timer);
    this.#timerMs = head.timeoutMs;
    this.#timer = setTimeout(() => this.#expire(), head.timeoutMs);
  }

  #clearTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The head ran past its limit: the host is killed, the head rejected, the rest resent. */
  #expire(): void {
    this.#timer = undefined;
    const head = this.#queue.shift();
    if (head === undefined) return;
    this.#restart();
    head.reject(new SqlTimeoutError(head.request.sql, head.timeoutMs));
  }

  #onReply(reply: HostReply): void {
    if ('ready' in reply) {
      // Only a spare forked with `auto` can name another driver than this pool's (never in
      // practice: it chose as this process chose): replace it, as after a crash.
      if (reply.driver !== this.driver) return this.#restart(true);
      this.#ready = true;
    } else {
      const head = this.#queue.shift();
      if (head?.request.id !== reply.id) throw new Error(`SQLite host replied to ${reply.id} out of order`);
      if ('result' in reply) head.resolve(fromWire(reply.result));
      else head.reject(toError(reply.error, head.request));
      if (this.#queue.length === 0 && this.#child !== undefined) this.#hold(this.#child, false);
    }
    this.#armTimer();
  }

  /** The host died on its own (e.g. out of memory): the head was running, the rest are resent. */
  #onCrash(how: string): void {
    const head = this.#queue.shift();
    this.#restart();
    head?.reject(new SqlLostError(`the SQLite host process ${how} while running this statement`, head.request.sql));
  }

  /** Replaces the host (`fresh`: with one forked now, never a spare) and resends the queue to it. */
  #restart(fresh = false): void {
    this.#stop();
    this.#outbox = []; // the queue holds them: all are resent below
    if (this.#queue.length === 0 && !fresh) return;
    const child = fresh ? this.#adopt(forkHost(this.driver), false) : this.#spawn();
    this.#hold(child, this.#queue.length > 0);
    if (this.#queue.length === 0) return;
    child.send(this.#queue.map((pending) => pending.request));
    // A spare that was ready already sends no ready message: the new head's deadline starts now
    // (for a host still starting, its ready message starts it).
    this.#armTimer();
  }

  #stop(): ChildProcess | undefined {
    this.#clearTimer();
    const child = this.#child;
    this.#child = undefined;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      // Killed and not gone yet: close() waits for it too, whatever killed it (a time limit, a restart).
      this.#dying.add(child);
      child.once('exit', () => this.#dying.delete(child));
      child.kill('SIGKILL');
    }
    return child;
  }
}

function toError(failure: HostFailure, request: HostRequest): Error {
  switch (failure.kind) {
    case 'refused':
      return new SqlRefusedError(failure.message, request.sql);
    case 'sql':
      return new SqlError(failure.message, request.sql);
    case 'open':
      return new DataError(`cannot open the SQLite database: ${failure.message}.${wrongEngineHint(request.file, 'sqlite')}`, request.file);
    case 'bug':
      return Object.assign(new Error(failure.message), { stack: failure.stack ?? failure.message });
  }
}

/** Options of one statement sent through the pool. */
export interface PoolQuery extends ReadOptions {
  readonly timeoutMs: number;
  readonly write?: true;
  readonly closeAfter?: true;
}

/**
 * A fixed set of lazily spawned hosts; each database file has a home host (stable hash) whose
 * connection is reused, and a statement goes to a less busy host when its home host is busier.
 * Any number of queries may be in flight.
 */
export class SqliteHostPool {
  readonly #hosts: SqliteHost[];
  /** File → index of its home host. */
  readonly #home = new Map<string, number>();
  #nextId = 1;

  constructor(driver: DriverName, size: number) {
    this.#hosts = Array.from({ length: size }, () => new SqliteHost(driver));
  }

  query(file: string, sql: string, options: PoolQuery): Promise<QueryResult> {
    const { maxRows, legacyStringLiterals, timeoutMs, write, closeAfter } = options;
    // The file's own host keeps its connection warm; a busier one hands over to the least busy
    // host (which opens the file too), so replays that run one database at a time use every host.
    // A migration's statements all go to the file's own host, in order.
    let home = this.#home.get(file);
    if (home === undefined) this.#home.set(file, (home = fnv1a(file) % this.#hosts.length));
    const own = this.#hosts[home] as SqliteHost;
    const idlest = this.#hosts.reduce((a, b) => (b.pending < a.pending ? b : a));
    const host = write || own.pending <= idlest.pending + 1 ? own : idlest;
    const flags = { ...(write ? { write } : {}), ...(closeAfter ? { closeAfter } : {}) };
    const cap = Number.isFinite(maxRows) ? maxRows : null;
    return host.run({ id: this.#nextId++, file, sql, maxRows: cap, legacyStringLiterals, ...flags }, timeoutMs);
  }

  /** Starts every host process now, so their start-up overlaps other work. */
  warm(): void {
    for (const host of this.#hosts) host.warm();
  }

  async close(): Promise<void> {
    await Promise.all(this.#hosts.map((host) => host.close()));
  }
}

/** 32-bit FNV-1a hash of a string's UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}
