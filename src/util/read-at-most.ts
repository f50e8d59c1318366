import { open } from 'node:fs/promises';

/** The first `limit` bytes of a file (fewer when it is shorter), never more: safe on devices and endless files. */
export async function readAtMost(file: string, limit: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < limit) {
      const chunk = Buffer.alloc(Math.min(1 << 20, limit - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}
