import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BLOBS_DIR, CALLS_DIR, CALLS_FILE, isTempName, MANIFEST_FILE } from './layout.js';

/**
 * Bytes of a recording's files on disk: the manifest, `calls.jsonl` (format 1) or every file of
 * `calls/` and `blobs/` (format 2). The lock, temporary files and git attributes are left out.
 * @example recordingBytes('recordings/din-sql-gpt4') // 121344
 */
export function recordingBytes(dir: string): number {
  let total = 0;
  const size = (file: string): number => {
    try {
      const s = statSync(file);
      return s.isFile() ? s.size : 0;
    } catch {
      return 0;
    }
  };
  total += size(join(dir, MANIFEST_FILE)) + size(join(dir, CALLS_FILE));
  for (const sub of [CALLS_DIR, BLOBS_DIR]) {
    let names: string[];
    try {
      names = readdirSync(join(dir, sub));
    } catch {
      continue;
    }
    for (const name of names) if (!isTempName(name)) total += size(join(dir, sub, name));
  }
  return total;
}
