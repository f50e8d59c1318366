/**
 * Format 2 on disk: what it looks like, what loads, and every kind of damage an error naming its
 * place (file and line), never a crash and never a wrong reply.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requestKey } from '../../src/recording/canonical.js';
import { questionFile } from '../../src/recording/layout.js';
import { Recording, type CallRef } from '../../src/recording/recording.js';
import { RecordingWriter } from '../../src/recording/writer.js';
import { writeManifestSync } from '../../src/recording/manifest.js';
import { DataError } from '../../src/util/errors.js';
import { allCalls, chatCall, filesBelow, manifest, writeFormat1, writeRecording } from './helpers.js';

let dirs: string[] = [];
const temp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'rg-format-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

const site = (questionId: string, seed = 0, callIndex = 0) => ({ questionId, seed, callIndex });

describe('a call read back from format 2', () => {
  it('is a whole RecordedCall (spread, JSON, deep equality), the same as format 1 gives, and a miss diffs against the recorded request', async () => {
    const calls = [chatCall('q1', 0, 'SELECT 1'), chatCall('q2', 0, 'SELECT 2')];
    const v2 = writeRecording(temp(), calls);
    const v1 = temp();
    writeFormat1(v1, await allCalls(v2), manifest('r'));
    const [a, b] = [await Recording.open(v2), await Recording.open(v1)];
    try {
      const near2 = a.atSite(site('q1'))!;
      const near1 = b.atSite(site('q1'))!;
      expect(near2.request).toEqual(calls[0]!.request);
      expect({ ...a.readCall(a.calls()[0]!) }).toEqual({ ...b.readCall(b.calls()[0]!) });
      expect(JSON.parse(JSON.stringify(a.readCall(a.calls()[0]!)))).toEqual(JSON.parse(JSON.stringify(b.readCall(b.calls()[0]!))));
      const { ReplayClient } = await import('../../src/recording/replay-client.js');
      const changed = { ...calls[0]!.request, temperature: 0.5 };
      const message = (r: Recording): Promise<string> => new ReplayClient(r, 'r').complete(changed as never, site('q1')).then(() => '', (e: Error) => e.message);
      const [m2, m1] = [await message(a), await message(b)];
      expect(m2).toMatch(/-temperature: 0\n\+temperature: 0\.5/);
      expect(m2).not.toMatch(/undefined/);
      expect(m2.replace(/\(\S+, same/, '(<place>, same')).toBe(m1.replace(/\(\S+, same/, '(<place>, same'));
    } finally {
      a.close();
      b.close();
    }
  });
});

describe('format 2 layout', () => {
  it('one file per question, shared content in blobs/, git rules of its own; every reply found by the key of its full request', async () => {
    const dir = writeRecording(temp(), [chatCall('q1', 0, 'SELECT 1'), chatCall('q1', 1, 'SELECT 11'), chatCall('q2', 0, 'SELECT 2'), chatCall('q3', 0, 'SELECT 3')]);
    expect(filesBelow(dir).filter((f) => !f.startsWith('blobs/'))).toEqual(['.gitattributes', '.gitignore', 'calls/q1.jsonl', 'calls/q2.jsonl', 'calls/q3.jsonl', 'manifest.yml']);
    // The system prompt is used by three question files: stored once, in blobs/.
    expect(filesBelow(dir).filter((f) => f.startsWith('blobs/')).length).toBeGreaterThanOrEqual(1);
    expect(readFileSync(join(dir, 'manifest.yml'), 'utf8')).toMatch(/^format: 2\n/);
    expect(readFileSync(join(dir, 'manifest.yml'), 'utf8')).not.toMatch(/updated:/);
    expect(readFileSync(join(dir, '.gitattributes'), 'utf8')).toContain('* -text');
    const recording = await Recording.open(dir);
    try {
      expect(recording.format).toBe(2);
      expect(recording.size).toBe(4);
      const call = chatCall('q1', 1, 'SELECT 11');
      const hit = recording.lookup(requestKey(call.request), site('q1', 1));
      expect(hit?.reply).toEqual({ content: 'SELECT 11' });
      expect(hit?.request).toEqual(call.request);
      expect(recording.readCalls().map((c) => [c.questionId, c.seed])).toEqual([['q1', 1]]);
    } finally {
      recording.close();
    }
  });

  it('a call line shows question, seed, call index and a short reply as they are', () => {
    const dir = writeRecording(temp(), [chatCall('q1', 0, 'SELECT count(*) FROM singer')]);
    const text = readFileSync(join(dir, 'calls/q1.jsonl'), 'utf8');
    expect(text).toMatch(/^\{"question_id":"q1","seed":0,"call_index":0,"key":"sha256:[0-9a-f]{64}","reply":\{"content":"SELECT count\(\*\) FROM singer"\},"usage":/m);
  });

  it('question ids become safe, distinct file names on every file system', () => {
    expect(questionFile('spider-dev-0002')).toBe('calls/spider-dev-0002.jsonl');
    const names = ['Q1', 'q1', 'a/b', 'a\\b', '../x', 'con', 'CON.txt', 'frage ü', 'x'.repeat(300), '.hidden', 'spider-dev-0001 din-sql-gpt4'].map(questionFile);
    for (const n of names) expect(n).toMatch(/^calls\/[a-z0-9][a-z0-9._-]*\.jsonl$/);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
    expect(questionFile('q1')).toBe('calls/q1.jsonl');
    expect(questionFile('Q1')).not.toBe('calls/q1.jsonl');
  });

  it('a format-1 recording still loads, with the same calls', async () => {
    const two = writeRecording(temp(), [chatCall('q1', 0, 'SELECT 1'), chatCall('q2', 0, 'SELECT 2')]);
    const one = temp();
    writeFormat1(one, await allCalls(two), manifest('r'));
    const recording = await Recording.open(one);
    try {
      expect(recording.format).toBe(1);
      expect(recording.lookup(requestKey(chatCall('q2', 0, '').request), site('q2'))?.reply).toEqual({ content: 'SELECT 2' });
    } finally {
      recording.close();
    }
    expect(await allCalls(one)).toEqual(await allCalls(two));
  });

  it('a newer format is refused with what to do', async () => {
    const dir = writeRecording(temp(), [chatCall('q1', 0, 'SELECT 1')]);
    writeFileSync(join(dir, 'manifest.yml'), readFileSync(join(dir, 'manifest.yml'), 'utf8').replace('format: 2', 'format: 3'));
    await expect(Recording.open(dir)).rejects.toThrow(/manifest\.yml:1: 'format' must be 1 or 2 \(got 3\); this recording was written by a newer replaygate/);
  });
});

describe('damage is an error naming its place', () => {
  const damaged = async (edit: (dir: string) => void): Promise<string> => {
    const dir = writeRecording(temp(), [chatCall('q1', 0, 'SELECT 1'), chatCall('q1', 1, 'SELECT 11'), chatCall('q2', 0, 'SELECT 2')]);
    edit(dir);
    try {
      (await Recording.open(dir)).close();
    } catch (error) {
      expect(error).toBeInstanceOf(DataError);
      return (error as Error).message.replace(dir, '<rec>');
    }
    throw new Error('opened a damaged recording');
  };
  const lineOf = (dir: string, file: string, startsWith: string): number => readFileSync(join(dir, file), 'utf8').split('\n').findIndex((l) => l.startsWith(startsWith)) + 1;

  it('an edited request (key no longer matches)', async () => {
    let line = 0;
    const message = await damaged((dir) => {
      const file = join(dir, 'calls/q1.jsonl');
      line = lineOf(dir, 'calls/q1.jsonl', '{"question_id"');
      writeFileSync(file, readFileSync(file, 'utf8').replace('"model":"gpt-test"', '"model":"gpt-edited"'));
    });
    expect(message).toMatch(new RegExp(`^<rec>/calls/q1\\.jsonl:${line}: key sha256:[0-9a-f]{64} does not match its request \\(recomputed sha256:`));
  });
  it('an edited blob in a calls file', async () => {
    const message = await damaged((dir) => {
      const file = join(dir, 'calls/q1.jsonl');
      writeFileSync(file, readFileSync(file, 'utf8').replace('Question: q1?', 'Question: q1!'));
    });
    expect(message).toMatch(/^<rec>\/calls\/q1\.jsonl:\d+: blob [0-9a-f]{32} does not match its value/);
  });
  it('an edited shared blob', async () => {
    const message = await damaged((dir) => {
      const name = readdirSync(join(dir, 'blobs')).find((n) => readFileSync(join(dir, 'blobs', n), 'utf8').includes('Schema'));
      const file = join(dir, 'blobs', name!);
      writeFileSync(file, readFileSync(file, 'utf8').replace('Schema', 'Schemb'));
    });
    expect(message).toMatch(/^<rec>\/blobs\/[0-9a-f]{32}\.json: the blob does not match its name/);
  });
  it('a shared blob deleted (a prune on another branch, then a merge)', async () => {
    const message = await damaged((dir) => {
      for (const name of readdirSync(join(dir, 'blobs'))) rmSync(join(dir, 'blobs', name));
    });
    expect(message).toMatch(/^<rec>\/calls\/q1\.jsonl:\d+: refers to blob [0-9a-f]{32}, which is neither in the recording's blobs\/ folder nor in this file .* Restore it from git/);
  });
  it('a line that is not JSON, and a call without its fields', async () => {
    expect(await damaged((dir) => appendFileSync(join(dir, 'calls/q2.jsonl'), '{not json\n'))).toMatch(/^<rec>\/calls\/q2\.jsonl:\d+: not valid JSON/);
    expect(await damaged((dir) => appendFileSync(join(dir, 'calls/q2.jsonl'), '{"question_id":"q2","seed":0}\n'))).toMatch(/^<rec>\/calls\/q2\.jsonl:\d+: missing field 'key'/);
    expect(await damaged((dir) => appendFileSync(join(dir, 'calls/q2.jsonl'), '{"question_id":"q2","seed":"0","call_index":0,"key":"sha256:x","request":{},"reply":{"content":""}}\n'))).toMatch(/'key' must be 'sha256:' and 64 hex digits/);
    expect(await damaged((dir) => appendFileSync(join(dir, 'calls/q2.jsonl'), `{"question_id":"q2","seed":0,"call_index":0,"key":"sha256:${'0'.repeat(64)}","request":{},"reply":7}\n`))).toMatch(/'reply' must be an assistant message/);
  });
  it('a call moved to another question’s file', async () => {
    const message = await damaged((dir) => {
      const text = readFileSync(join(dir, 'calls/q2.jsonl'), 'utf8');
      rmSync(join(dir, 'calls/q2.jsonl'));
      appendFileSync(join(dir, 'calls/q1.jsonl'), text);
    });
    expect(message).toMatch(/^<rec>\/calls\/q1\.jsonl:\d+: question 'q2' belongs in calls\/q2\.jsonl, not in calls\/q1\.jsonl/);
  });
  it('a calls file that is a folder, blobs/ that is a file, a stray file', async () => {
    expect(await damaged((dir) => mkdirSync(join(dir, 'calls/q9.jsonl')))).toMatch(/^<rec>\/calls\/q9\.jsonl: cannot read the file \(it is a folder, not a file\)/);
    expect(
      await damaged((dir) => {
        rmSync(join(dir, 'blobs'), { recursive: true });
        writeFileSync(join(dir, 'blobs'), 'x');
      }),
    ).toMatch(/^<rec>\/blobs: cannot read the folder \(it is a file, not a folder\)/);
    expect(await damaged((dir) => writeFileSync(join(dir, 'calls/notes.txt'), 'x'))).toMatch(/^<rec>\/calls\/notes\.txt: not a calls file/);
  });
  it('two different replies for one request at one place (a bad merge) name both lines; an identical copy is fine', async () => {
    const message = await damaged((dir) => {
      const file = join(dir, 'calls/q1.jsonl');
      const call = readFileSync(file, 'utf8').split('\n').find((l) => l.startsWith('{"question_id":"q1","seed":0'))!;
      appendFileSync(file, `${call.replace('SELECT 1"', 'SELECT 2"')}\n`);
    });
    expect(message).toMatch(/^<rec>\/calls\/q1\.jsonl:(\d+): lines \d+ and \1 record the same request for question 'q1', seed 0, call 0 with different replies/);
    const dir = writeRecording(temp(), [chatCall('q1', 0, 'SELECT 1')]);
    const file = join(dir, 'calls/q1.jsonl');
    appendFileSync(file, `${readFileSync(file, 'utf8').trimEnd().split('\n').at(-1)}\n`);
    const recording = await Recording.open(dir);
    expect(recording.size).toBe(2);
    recording.close();
  });
  it('temporary files of a killed writer are skipped', async () => {
    const dir = writeRecording(temp(), [chatCall('q1', 0, 'SELECT 1')]);
    writeFileSync(join(dir, 'calls/.q1.jsonl.4242-deadbeef.tmp'), '{"half');
    writeFileSync(join(dir, 'blobs/.x.json.4242-deadbeef.tmp'), '{"half');
    const recording = await Recording.open(dir);
    expect(recording.size).toBe(1);
    recording.close();
  });
});

describe('the writer', () => {
  it('replaces the call of one request at one place (never two replies) and says so', async () => {
    const dir = temp();
    const writer = RecordingWriter.open(dir, 'create');
    expect(writer.write(chatCall('q1', 0, 'SELECT 1')).previous).toBe('none');
    expect(writer.write(chatCall('q1', 0, 'SELECT 1')).previous).toBe('identical');
    expect(writer.write(chatCall('q1', 0, 'SELECT 2')).previous).toBe('replaced');
    writer.commit(manifest('r'));
    const calls = await allCalls(dir);
    expect(calls.map((c) => c.reply)).toEqual([{ content: 'SELECT 2' }]);
  });

  it('a reader that opened the recording before a writer replaced a file still reads the right calls', async () => {
    const dir = writeRecording(temp(), [chatCall('q1', 0, 'SELECT 1'), chatCall('q1', 1, 'SELECT 11')]);
    const reader = await Recording.open(dir);
    try {
      const writer = RecordingWriter.open(dir, 'append');
      // A call before the ones indexed: every byte offset of the file moves.
      writer.write({ ...chatCall('q1', 0, 'SELECT 0'), call_index: 0, seed: -1 });
      writer.write(chatCall('q1', 1, 'SELECT 12'));
      writer.close();
      expect(reader.lookup(requestKey(chatCall('q1', 0, '').request), site('q1', 0))?.reply).toEqual({ content: 'SELECT 1' });
      // A --force replacement: the reader sees the reply now recorded for that request.
      expect(reader.lookup(requestKey(chatCall('q1', 1, '').request), site('q1', 1))?.reply).toEqual({ content: 'SELECT 12' });
    } finally {
      reader.close();
    }
  });

  it('a shared blob goes to blobs/ once two question files need it, and the files written drop their copies', () => {
    const dir = writeRecording(temp(), [chatCall('q1', 0, 'SELECT 1'), chatCall('q2', 0, 'SELECT 2')]);
    const blobs = readdirSync(join(dir, 'blobs'));
    expect(blobs.length).toBeGreaterThan(0);
    for (const f of ['calls/q1.jsonl', 'calls/q2.jsonl']) {
      const text = readFileSync(join(dir, f), 'utf8');
      for (const b of blobs) expect(text).not.toContain(`{"blob":"${b.replace('.json', '')}"`);
    }
  });
});

describe("damage found on use (check: 'use', as replay opens a recording)", () => {
  const calls = [chatCall('q1', 0, 'SELECT 1'), chatCall('q1', 1, 'SELECT 11'), chatCall('q2', 0, 'SELECT 2')];
  /** Opens the damaged recording for replay and replays every call; the error message, or '' when all replay. */
  const replayed = async (edit: (dir: string) => void, only?: string): Promise<{ message: string; dir: string }> => {
    const dir = writeRecording(temp(), calls);
    edit(dir);
    const { ReplayClient } = await import('../../src/recording/replay-client.js');
    try {
      const recording = await Recording.open(dir, { check: 'use' });
      try {
        const client = new ReplayClient(recording, 'r');
        for (const c of calls.filter((c) => only === undefined || c.question_id === only)) {
          const answer = await client.complete(c.request as never, site(c.question_id, c.seed, c.call_index));
          expect(answer.reply).toEqual(c.reply);
        }
      } finally {
        recording.close();
      }
    } catch (error) {
      expect(error).toBeInstanceOf(DataError);
      return { message: (error as Error).message.replace(dir, '<rec>'), dir };
    }
    return { message: '', dir };
  };
  const editFile = (file: string, from: string, to: string) => (dir: string) => writeFileSync(join(dir, file), readFileSync(join(dir, file), 'utf8').replace(from, to));
  const lineOf = (dir: string, file: string, startsWith: string): number => readFileSync(join(dir, file), 'utf8').split('\n').findIndex((l) => l.startsWith(startsWith)) + 1;

  it('the same errors as on open, naming the same file and line, when the damaged call or file is used', async () => {
    const edited = await replayed(editFile('calls/q1.jsonl', '"model":"gpt-test"', '"model":"gpt-edited"'));
    expect(edited.message).toMatch(new RegExp(`^<rec>/calls/q1\\.jsonl:${lineOf(edited.dir, 'calls/q1.jsonl', '{"question_id"')}: key sha256:[0-9a-f]{64} does not match its request \\(recomputed sha256:`));
    expect((await replayed(editFile('calls/q1.jsonl', 'Question: q1?', 'Question: q1!'))).message).toMatch(/^<rec>\/calls\/q1\.jsonl:\d+: blob [0-9a-f]{32} does not match its value/);
    const sharedEdit = (dir: string): void => {
      const name = readdirSync(join(dir, 'blobs')).find((n) => readFileSync(join(dir, 'blobs', n), 'utf8').includes('Schema'));
      editFile(`blobs/${name!}`, 'Schema', 'Schemb')(dir);
    };
    expect((await replayed(sharedEdit)).message).toMatch(/^<rec>\/blobs\/[0-9a-f]{32}\.json: the blob does not match its name/);
    const noBlobs = (dir: string): void => {
      for (const name of readdirSync(join(dir, 'blobs'))) rmSync(join(dir, 'blobs', name));
    };
    expect((await replayed(noBlobs)).message).toMatch(/^<rec>\/calls\/q1\.jsonl:\d+: refers to blob [0-9a-f]{32}, which is neither in the recording's blobs\/ folder nor in this file/);
    expect((await replayed((dir) => appendFileSync(join(dir, 'calls/q2.jsonl'), '{not json\n'))).message).toMatch(/^<rec>\/calls\/q2\.jsonl:\d+: not valid JSON/);
    expect((await replayed((dir) => appendFileSync(join(dir, 'calls/q2.jsonl'), '{"question_id":"q2","seed":0}\n'))).message).toMatch(/^<rec>\/calls\/q2\.jsonl:\d+: missing field 'key'/);
    const moved = (dir: string): void => {
      const text = readFileSync(join(dir, 'calls/q2.jsonl'), 'utf8');
      rmSync(join(dir, 'calls/q2.jsonl'));
      appendFileSync(join(dir, 'calls/q1.jsonl'), text);
    };
    expect((await replayed(moved)).message).toMatch(/^<rec>\/calls\/q1\.jsonl:\d+: question 'q2' belongs in calls\/q2\.jsonl, not in calls\/q1\.jsonl/);
    const twin = (dir: string): void => {
      const file = join(dir, 'calls/q1.jsonl');
      const call = readFileSync(file, 'utf8').split('\n').find((l) => l.startsWith('{"question_id":"q1","seed":0'))!;
      appendFileSync(file, `${call.replace('SELECT 1"', 'SELECT 2"')}\n`);
    };
    expect((await replayed(twin)).message).toMatch(/^<rec>\/calls\/q1\.jsonl:(\d+): lines \d+ and \1 record the same request for question 'q1', seed 0, call 0 with different replies/);
  });

  it('what costs no reading is checked on open: folders, links and stray files', async () => {
    expect((await replayed((dir) => mkdirSync(join(dir, 'calls/q9.jsonl')))).message).toMatch(/^<rec>\/calls\/q9\.jsonl: cannot read the file \(it is a folder, not a file\)/);
    expect((await replayed((dir) => writeFileSync(join(dir, 'calls/notes.txt'), 'x'))).message).toMatch(/^<rec>\/calls\/notes\.txt: not a calls file/);
    expect((await replayed((dir) => writeFileSync(join(dir, 'blobs/notes.txt'), 'x'))).message).toMatch(/^<rec>\/blobs\/notes\.txt: not a blob file/);
    const linked = (dir: string): void => {
      const file = join(dir, 'calls/q2.jsonl');
      const outside = join(temp(), 'q2.jsonl');
      writeFileSync(outside, readFileSync(file));
      rmSync(file);
      symlinkSync(outside, file);
    };
    expect((await replayed(linked)).message).toMatch(/^<rec>\/calls\/q2\.jsonl: is a symbolic link; a recording holds regular files only/);
    // A named pipe would block the open for ever, waiting for a writer: it is refused at once.
    if (process.platform !== 'win32') expect((await replayed((dir) => execFileSync('mkfifo', [join(dir, 'calls/q9.jsonl')]))).message).toMatch(/^<rec>\/calls\/q9\.jsonl: cannot read the file \(not a regular file\)/);
  });

  it("a damaged file of a question not replayed is not read; a miss reads and checks everything first (damage never reads as a missing recording)", async () => {
    const damageQ2 = (dir: string): void => appendFileSync(join(dir, 'calls/q2.jsonl'), '{not json\n');
    expect((await replayed(damageQ2, 'q1')).message).toBe('');
    const dir = writeRecording(temp(), calls);
    damageQ2(dir);
    const recording = await Recording.open(dir, { check: 'use' });
    try {
      expect(() => recording.lookup(requestKey({ ...calls[0]!.request, seed: 7 }), site('q1', 7))).toThrow(/calls\/q2\.jsonl:\d+: not valid JSON/);
    } finally {
      recording.close();
    }
  });

  it('gives the same calls, reads and order as a recording checked on open', async () => {
    const dir = writeRecording(temp(), [...calls, chatCall('q3', 0, 'SELECT 3')]);
    const [eager, lazy] = [await Recording.open(dir), await Recording.open(dir, { check: 'use' })];
    try {
      for (const r of [eager, lazy]) for (const c of [calls[2]!, calls[0]!]) expect(r.lookup(requestKey(c.request), site(c.question_id, c.seed))?.reply).toEqual(c.reply);
      const place = ({ id, ...c }: CallRef): Omit<CallRef, 'id'> => c; // ids are internal (the order files were read in)
      expect(lazy.readCalls().map(place)).toEqual(eager.readCalls().map(place));
      expect(lazy.calls().map((c) => lazy.readCall(c))).toEqual(eager.calls().map((c) => eager.readCall(c)));
      expect(lazy.runs()).toEqual(eager.runs());
      expect(lazy.size).toBe(eager.size);
    } finally {
      eager.close();
      lazy.close();
    }
  });
});
