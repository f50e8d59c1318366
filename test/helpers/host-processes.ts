/** Test helper: the SQLite host processes a process forked, read from Linux /proc. */
import { readdirSync, readFileSync } from 'node:fs';

/** SQLite host processes (pid and arguments) whose parent is `parent` (default: this test process). */
export function sqliteHostsOf(parent: number = process.pid): { pid: number; args: string[] }[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === parent && args.some((a) => a.includes('sqlite-host')) ? [{ pid: Number(pid), args }] : [];
      } catch {
        return []; // the process ended meanwhile
      }
    });
}
