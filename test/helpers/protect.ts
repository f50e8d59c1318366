/** Test helper: making a file or folder read-only for everyone, root included (chattr +i as root). */
import { chmodSync, existsSync, statSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';

/** Whether the tests run as root (then a mode does not stop a write: `chattr +i` does). */
export const ROOT = process.getuid?.() === 0;

/** Whether {@link protect} can work here (as root it needs chattr). */
export const CAN_PROTECT = !ROOT || spawnSync('chattr', ['--help']).error === undefined;

/** Makes a file or folder read-only for everyone, root included; {@link unprotect} undoes it. */
export function protect(path: string): void {
  if (ROOT) execFileSync('chattr', ['+i', path]);
  else chmodSync(path, statSync(path).isDirectory() ? 0o555 : 0o444);
}

/** Undoes {@link protect} (nothing when the path is gone). */
export function unprotect(path: string): void {
  if (ROOT) spawnSync('chattr', ['-i', path]);
  else if (existsSync(path)) chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644);
}
