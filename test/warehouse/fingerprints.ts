/**
 * Fingerprints that prove a database was not written: the SHA-256 of an embedded engine's file,
 * and the SHA-256 of a PostgreSQL database's `pg_dump` (schema and data, in a stable order).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** SHA-256 (hex) of a file's bytes. */
export function fileSha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The newest pg_dump of the machine: Debian's /usr/lib/postgresql/N/bin, else the PATH. */
function pgDump(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((v) => existsSync(join(base, v, 'bin', 'pg_dump'))).sort((a, b) => Number(b) - Number(a)) : [];
  return versions[0] !== undefined ? join(base, versions[0], 'bin', 'pg_dump') : 'pg_dump';
}

/**
 * SHA-256 (hex) of `pg_dump` of the database at `url` (no owners or privileges, so only schema
 * and rows count). Recent pg_dump releases write `\restrict <random key>` lines (a fix for
 * CVE-2025-8714), different in every dump: they are left out of the hash.
 */
export async function pgDumpSha256(url: string): Promise<string> {
  const { stdout } = await promisify(execFile)(pgDump(), ['--no-owner', '--no-privileges', '--dbname', url], { maxBuffer: 256 << 20 });
  const stable = stdout.split('\n').filter((line) => !/^\\(un)?restrict /.test(line)).join('\n');
  return createHash('sha256').update(stable).digest('hex');
}
