/**
 * One writer per recording: the lock file (pid, host, command, start), a second writer refused
 * at once, stale locks (dead pid) broken, locks of other hosts respected.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordingLock, RecordingLocked } from '../../src/recording/lock.js';
import { RecordingWriter } from '../../src/recording/writer.js';
import { chatCall, manifest } from './helpers.js';

let dirs: string[] = [];
const temp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'rg-lock-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

const lockOf = (dir: string, holder: object): void => writeFileSync(join(dir, '.lock'), `${JSON.stringify({ host: hostname(), command: 'replaygate record --agent x', started: '2026-01-01T00:00:00Z', nonce: 'n', ...holder })}\n`);

describe('the recording lock', () => {
  it('holds the pid, host and command; a second writer fails at once naming them; released, the next one takes it', () => {
    const dir = join(temp(), 'rec');
    const lock = RecordingLock.acquire(dir, 'replaygate record --agent sql');
    const holder = JSON.parse(readFileSync(join(dir, '.lock'), 'utf8'));
    expect(holder).toMatchObject({ pid: process.pid, host: hostname(), command: 'replaygate record --agent sql' });
    // The same process counts as alive: a second writer in it is refused too.
    expect(() => RecordingLock.acquire(dir, 'replaygate import')).toThrow(RecordingLocked);
    expect(() => RecordingWriter.open(dir, 'append', { command: 'replaygate import' })).toThrow(
      new RegExp(`the recording is being written by process ${process.pid} \\(replaygate record --agent sql, since .*\\): one writer at a time`),
    );
    lock.release();
    expect(existsSync(join(dir, '.lock'))).toBe(false);
    // Nothing was written: the folder the lock created is gone again.
    expect(existsSync(dir)).toBe(false);
    RecordingLock.acquire(dir, 'again').release();
  });

  it('a lock left by a dead process is stale: broken and taken, silently', () => {
    const dir = temp();
    lockOf(dir, { pid: deadPid() });
    const lock = RecordingLock.acquire(dir, 'replaygate record');
    expect(JSON.parse(readFileSync(join(dir, '.lock'), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('a lock of another host is respected (it cannot be checked), with how to remove it', () => {
    const dir = temp();
    lockOf(dir, { pid: 1, host: 'build-agent-7' });
    expect(() => RecordingLock.acquire(dir, 'x')).toThrow(/being written by process 1 on host build-agent-7 .* if that host's process is gone, delete .*\.lock/);
  });

  it('an unreadable lock is young (being written) or stale after 10 s', () => {
    const dir = temp();
    writeFileSync(join(dir, '.lock'), '');
    expect(() => RecordingLock.acquire(dir, 'x')).toThrow(/another process \(its lock file is being written\)/);
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dir, '.lock'), old, old);
    RecordingLock.acquire(dir, 'x').release();
  });

  it('a writer releases its own lock on close, and the lock of a caller stays held', () => {
    const dir = temp();
    const writer = RecordingWriter.open(dir, 'create');
    writer.write(chatCall('q1', 0, 'SELECT 1'));
    expect(existsSync(join(dir, '.lock'))).toBe(true);
    writer.commit(manifest('r'));
    expect(existsSync(join(dir, '.lock'))).toBe(false);
    const lock = RecordingLock.acquire(dir, 'caller');
    const inner = RecordingWriter.open(dir, 'append', { lock });
    inner.close();
    expect(RecordingLock.holderOf(dir)).toMatchObject({ pid: process.pid, command: 'caller' });
    lock.release();
    expect(RecordingLock.holderOf(dir)).toBeUndefined();
  });

  it('a read-only folder is a clear error naming it, not a crash', () => {
    if (process.getuid?.() === 0) return; // root writes anywhere
    const dir = temp();
    spawnSync('chmod', ['a-w', dir]);
    try {
      expect(() => RecordingLock.acquire(dir, 'x')).toThrow(/cannot write to the recording folder \(EACCES: it is read-only\); nothing was written/);
    } finally {
      spawnSync('chmod', ['u+w', dir]);
    }
  });
});
