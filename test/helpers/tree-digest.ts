/** Test helper: a digest of a folder tree, to show a command changed nothing in it. */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * sha256 over every entry below `dir` (names, modes, bytes, link targets, never followed);
 * '' when it does not exist. `skip`: names left out at its top level.
 */
export function sha256Tree(dir: string, skip: readonly string[] = []): string {
  if (!existsSync(dir)) return '';
  const h = createHash('sha256');
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      if (d === dir && skip.includes(name)) continue;
      const abs = join(d, name);
      const st = lstatSync(abs);
      h.update(`${relative(dir, abs)}\0${st.mode}\0`);
      if (st.isDirectory()) walk(abs);
      else h.update(st.isFile() ? readFileSync(abs) : st.isSymbolicLink() ? readlinkSync(abs) : 'x').update('\0');
    }
  };
  walk(dir);
  return h.digest('hex');
}
