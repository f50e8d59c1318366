import { createHash } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { lfLineEnds } from '../util/line-ends.js';

/** How a file's content counts: `text` with CRLF read as LF (its reader does so), `bytes` every byte. */
export type FileReading = 'text' | 'bytes';

/** Bytes read at a time when hashing a file whole (a warehouse file may be gigabytes; memory stays at this). */
const CHUNK_BYTES = 1 << 20;

/** Files at most this large are read whole; larger ones (warehouse files) are streamed. */
const WHOLE_READ_MAX_BYTES = 8 << 20;

const unreadable = (error: unknown): string => `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`;

/**
 * `sha256:` + hex of a file's content, or `unreadable (CODE)` when it cannot be read (the
 * command then fails on it with its own message; a fingerprint never does). `text`: its line
 * ends as LF ({@link lfLineEnds}), for files whose reader treats CRLF as LF; `bytes`: streamed
 * in 1 MiB chunks, so a warehouse file of any size costs 1 MiB of memory and one read (about
 * 1 s a GB on a 2-core runner: docs/fingerprint.md, "Cost").
 * @example await fileDigest('golden/q.yml', 'text') // 'sha256:5f1c…' (the same with CRLF line ends)
 */
export async function fileDigest(file: string, reading: FileReading): Promise<string> {
  try {
    if (reading === 'text') return sha256(lfLineEnds(await readFile(file)));
    return await streamedDigest(file);
  } catch (error) {
    return unreadable(error);
  }
}

async function streamedDigest(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    if (size <= WHOLE_READ_MAX_BYTES) return sha256(await handle.readFile());
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      // update() copies what it needs before returning: the chunk is reused for the next read.
      hash.update(chunk.subarray(0, bytesRead));
    }
    return `sha256:${hash.digest('hex')}`;
  } finally {
    await handle.close();
  }
}

/** `sha256:` + hex SHA-256 of `data`. */
export function sha256(data: string | Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}
