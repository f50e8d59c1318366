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
  | { readonly id: number; readonly error: HostFailure }
  /** A request the parent handed to another host ({@link HostSkip}), not run. */
  | { readonly id: number; readonly skipped: true };

/** Requests sent to a host that it should not run (the parent handed them to another host); each is answered `skipped`. */
export interface HostSkip {
  readonly skip: readonly number[];
}

/**
 * Statements a host holds at once (sent and not answered). More wait in the pool and go to
 * whichever host has room first. A statement seen to run long hands the ones behind it back
 * ({@link SqliteHost.release}). 16 cost `score` of Spider dev 4% (more, smaller writes to the
 * host); 64 costs nothing measurable there.
 */
export const SQLITE_HOST_WINDOW = 64;

/**
 * A host whose statement has run this long no longer counts toward the pool's size: the
 * statements behind it and those that wait go to the other hosts, and a host is added when fewer
 * than the pool's size are left (up to {@link maxSqliteHosts}). A statement that runs into its
 * time limit then holds up nothing but itself. Not sooner: a host added costs a Node start (about
 * 60 ms of CPU) and is ready about 80 ms later, which pays only when the statement runs on well
 * past that (100 ms added a host for the bench's 150–185 ms statements, too late to help: CPU ×1.05).
 */
export const SQLITE_SPILL_AFTER_MS = 250;

/** How often the pool looks for hosts held by a long statement while statements are in flight. */
const WATCH_EVERY_MS = 50;

/**
 * Hosts a pool of `size` may run at once, counting those held by a long statement: twice its size
 * and two more, so that a few statements running into their time limit at once (each holding its
 * host, and a core, until then) still leave a host taking the others; past that, statements wait.
 */
export function maxSqliteHosts(size: number): number {
  return 2 * size + 2;
}

/** A statement: waiting in the pool, then sent to a host. */
interface Pending {
  readonly request: HostRequest;
  readonly timeoutMs: number;
  readonly resolve: (result: QueryResult) => void;
  readonly reject: (error: Error) => void;
  /** Handed back to the pool after it was sent ({@link SqliteHost.release}): this host's reply to it is dropped. */
  readonly released?: true;
}

const ignore = (): void => {};

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
  /** Requests queued but not yet written to the host: sent together once this turn of the event loop ends. */
  #outbox: HostRequest[] = [];
  /** When the head started running (its deadline's start), or undefined when none runs. */
  #headSince: number | undefined;
  /** Processes of this host killed and not exited yet. */
  readonly #dying = new Set<ChildProcess>();

  /** @param progress - called after each reply, start or restart: the pool may send more then. */
  constructor(
    readonly driver: DriverName,
    private readonly progress: () => void = () => {},
  ) {}

  /** Statements sent and not yet answered. */
  get pending(): number {
    return this.#queue.length;
  }

  /** When the statement running now started (`performance.now()`), or undefined when none runs. */
  get runningSince(): number | undefined {
    return this.#headSince;
  }

  /**
   * Hands back the statements waiting behind the one running now, for another host to run: the
   * ones not written yet are taken out; the ones written stay queued here as `released`, and the
   * host is told to skip them ({@link HostSkip}); one it runs all the same (it got there first)
   * has its reply dropped (reads only: running a read twice changes nothing). Nothing is handed
   * back when a migration statement is among them, which must run here, in order.
   */
  release(): Pending[] {
    const queue = this.#queue;
    if (queue.length < 2 || this.#headSince === undefined) return [];
    for (let i = 1; i < queue.length; i++) if (queue[i]!.request.write) return [];
    const unsent = new Set(this.#outbox);
    const back: Pending[] = [];
    const kept: Pending[] = [queue[0]!];
    for (let i = 1; i < queue.length; i++) {
      const pending = queue[i]!;
      if (pending.released) kept.push(pending);
      else {
        back.push(pending);
        // Written already: the host will run it; its reply is dropped. Not written yet: gone.
        if (!unsent.has(pending.request)) kept.push({ request: pending.request, timeoutMs: pending.timeoutMs, resolve: ignore, reject: ignore, released: true });
      }
    }
    queue.splice(0, queue.length, ...kept);
    // The host reads this after the statement it is running (it waits a turn of its event loop
    // after a long one) and skips them, unless it got to one first.
    const skip = kept.filter((pending) => pending.released).map((pending) => pending.request.id);
    if (skip.length > 0) this.#child?.send({ skip } satisfies HostSkip);
    if (unsent.size > 0) {
      const gone = new Set(back.map((pending) => pending.request));
      this.#outbox = this.#outbox.filter((request) => !gone.has(request));
    }
    return back;
  }

  /** Sends a statement (after the ones sent before it); `pending` is settled with its reply. */
  take(pending: Pending): void {
    if (this.#closed) return pending.reject(new Error('the warehouse is closed'));
    const child = this.#child ?? this.#spawn();
    this.#queue.push(pending);
    // One write per turn of the event loop for all the statements queued in it (a replay
    // queues several at once): each write is a system call on both sides.
    if (this.#outbox.push(pending.request) === 1) setImmediate(() => this.#flush());
    if (this.#queue.length === 1) {
      this.#hold(child, true);
      this.#armTimer();
    }
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
    // Every process this host killed and that has not exited yet, this one included: close()
    // resolves when they are gone (an idle host is unref'd; wait for its exit all the same).
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
    if (head === undefined || !this.#ready) {
      this.#headSince = undefined;
      return this.#clearTimer();
    }
    // Each call starts a new head (a reply ended the last one, the host became ready, or an idle host was sent one).
    this.#headSince = performance.now();
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
    this.#headSince = undefined;
  }

  /** The head ran past its limit: the host is killed, the head rejected, the rest resent. */
  #expire(): void {
    this.#timer = undefined;
    const head = this.#queue.shift();
    if (head === undefined) return;
    this.#restart();
    head.reject(new SqlTimeoutError(head.request.sql, head.timeoutMs));
    this.progress();
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
      else if ('error' in reply) head.reject(toError(reply.error, head.request));
      else if (head.released !== true) throw new Error(`SQLite host skipped ${reply.id}, which it was never told to skip`);
      if (this.#queue.length === 0 && this.#child !== undefined) this.#hold(this.#child, false);
    }
    this.#armTimer();
    this.progress();
  }

  /** The host died on its own (e.g. out of memory): the head was running, the rest are resent. */
  #onCrash(how: string): void {
    const head = this.#queue.shift();
    this.#restart();
    head?.reject(new SqlLostError(`the SQLite host process ${how} while running this statement`, head.request.sql));
    this.progress();
  }

  /** Replaces the host (`fresh`: with one forked now, never a spare) and resends the queue to it. */
  #restart(fresh = false): void {
    this.#stop();
    this.#outbox = []; // the queue holds them: all are resent below
    // Statements handed back to the pool run elsewhere: not resent.
    for (let i = this.#queue.length - 1; i >= 0; i--) if (this.#queue[i]!.released) this.#queue.splice(i, 1);
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
 * Lazily spawned hosts; each database file has a home host (stable hash) whose connection is
 * reused, and a statement goes to a less busy host when its home host is busier. Any number of
 * queries may be in flight: each host is sent at most {@link SQLITE_HOST_WINDOW} at once, the
 * rest wait here in order. A host whose statement has run {@link SQLITE_SPILL_AFTER_MS} is passed
 * over, and another host stands in for it (see {@link maxSqliteHosts}), so one long statement
 * does not stall the statements behind it.
 */
export class SqliteHostPool {
  /** The pool's own hosts (`size`), then the ones added to stand in for hosts held by a long statement. */
  readonly #hosts: SqliteHost[];
  readonly #size: number;
  readonly #max: number;
  readonly #waiting: Pending[] = [];
  /** File → index of its home host (among the pool's own). */
  readonly #home = new Map<string, number>();
  #nextId = 1;
  #watcher: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    readonly driver: DriverName,
    size: number,
  ) {
    this.#size = size;
    this.#max = maxSqliteHosts(size);
    this.#hosts = Array.from({ length: size }, () => this.#newHost());
  }

  query(file: string, sql: string, options: PoolQuery): Promise<QueryResult> {
    if (this.#closed) return Promise.reject(new Error('the warehouse is closed'));
    const { maxRows, legacyStringLiterals, timeoutMs, write, closeAfter } = options;
    const flags = { ...(write ? { write } : {}), ...(closeAfter ? { closeAfter } : {}) };
    const cap = Number.isFinite(maxRows) ? maxRows : null;
    const request: HostRequest = { id: this.#nextId++, file, sql, maxRows: cap, legacyStringLiterals, ...flags };
    return new Promise((resolve, reject) => {
      this.#waiting.push({ request, timeoutMs, resolve, reject });
      this.#dispatch();
    });
  }

  /** Starts the pool's own host processes now, so their start-up overlaps other work. */
  warm(): void {
    for (let i = 0; i < this.#size; i++) this.#hosts[i]!.warm();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#watcher);
    for (const waiting of this.#waiting.splice(0)) waiting.reject(new Error('the warehouse was closed before this statement finished'));
    await Promise.all(this.#hosts.map((host) => host.close()));
  }

  #newHost(): SqliteHost {
    return new SqliteHost(this.driver, () => this.#dispatch());
  }

  /** Sends waiting statements, in order, while a host has room; a statement with none stops the rest (order is kept). */
  #dispatch(): void {
    const waiting = this.#waiting;
    if (waiting.length === 0 || this.#closed) return;
    const now = performance.now();
    while (waiting.length > 0) {
      const next = waiting[0]!;
      const host = this.#hostFor(next.request, now);
      if (host === undefined) break;
      waiting.shift();
      host.take(next);
    }
    this.#watch();
  }

  /**
   * The host for a statement, or undefined when none may take it now. Taking part: the first
   * `size` hosts not held by a long statement (the pool's own first); among them the statement's
   * home host unless it has two or more statements more than the least busy one (which opens the
   * file too). A migration's statements (`write`) go to the file's home host only, in order.
   */
  #hostFor(request: HostRequest, now: number): SqliteHost | undefined {
    let home = this.#home.get(request.file);
    if (home === undefined) this.#home.set(request.file, (home = fnv1a(request.file) % this.#size));
    const own = this.#hosts[home]!;
    if (request.write) return own.pending < SQLITE_HOST_WINDOW ? own : undefined;
    let taking = 0;
    let ownTakes = false;
    let idlest: SqliteHost | undefined;
    for (const host of this.#hosts) {
      if (taking === this.#size) break;
      if (held(host, now)) continue;
      taking += 1;
      if (host === own) ownTakes = true;
      if (host.pending < SQLITE_HOST_WINDOW && (idlest === undefined || host.pending < idlest.pending)) idlest = host;
    }
    if (ownTakes && own.pending < SQLITE_HOST_WINDOW && (idlest === undefined || own.pending <= idlest.pending + 1)) return own;
    if (idlest !== undefined) return idlest;
    if (taking < this.#size && this.#hosts.length < this.#max) {
      // Fewer hosts than the pool's size are free of a long statement: one more stands in.
      const host = this.#newHost();
      this.#hosts.push(host);
      return host;
    }
    return undefined;
  }

  /**
   * While statements are in flight, looks every {@link WATCH_EVERY_MS} for hosts held by
   * a long statement: the statements behind it go back to the front of the queue, and are sent
   * to the hosts that take part now (one more is started to stand in for the held one).
   */
  #watch(): void {
    if (this.#watcher !== undefined) return;
    this.#watcher = setInterval(() => {
      if (this.#closed || this.#hosts.every((host) => host.pending === 0)) {
        clearInterval(this.#watcher);
        this.#watcher = undefined;
        return;
      }
      const now = performance.now();
      const back: Pending[] = [];
      for (const host of this.#hosts) if (held(host, now)) back.push(...host.release());
      if (back.length > 0) this.#waiting.unshift(...back);
      this.#dispatch();
    }, WATCH_EVERY_MS);
    this.#watcher.unref();
  }
}

/** Whether a host's running statement has run long enough for the pool to pass the host over. */
function held(host: SqliteHost, now: number): boolean {
  const since = host.runningSince;
  return since !== undefined && now - since >= SQLITE_SPILL_AFTER_MS;
}

/** 32-bit FNV-1a hash of a string's UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}
