// The recording index's heap for N calls and 10 N calls (synthetic copies of the real calls of
// a recording): prints one line. Run with --expose-gc:  node --expose-gc bench/lib/recording-memory.mjs RECORDING_DIR OUT_DIR
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Recording } from '../../build/recording/recording.js';
import { RecordingWriter } from '../../build/recording/writer.js';

const [recording, out] = process.argv.slice(2);

async function heapForCalls(copies) {
  const dir = join(out, `copies-${copies}`);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'manifest.yml'))) {
    // Every call of the source recording (any format), read through the recording API.
    const source = await Recording.open(recording);
    const lines = source.calls().map((ref) => source.readCall(ref));
    source.close();
    const w = RecordingWriter.open(dir, 'create');
    for (let c = 0; c < copies; c++) for (const l of lines) w.write({ ...l, seed: c });
    w.commit(source.manifest);
  }
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const rec = await Recording.open(dir);
  global.gc?.();
  const after = process.memoryUsage().heapUsed;
  const size = rec.size;
  rec.close();
  return { calls: size, bytes: after - before };
}
const m1 = await heapForCalls(1);
const m10 = await heapForCalls(10);
console.log(JSON.stringify({ m1, m10, bytesPerCall: m10.bytes / m10.calls }));
