// A calls file's blob lines as replaygate writes them are read without parsing the whole line or
// hashing it (parseQuestionFile's fast path); with checkBlobs: false (replay) the id is checked
// when the blob is first used (checkedBlob), naming the blob's line.
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/recording/canonical.js';
import { blobId } from '../../src/recording/compact.js';
import { blobLine, checkedBlob, parseQuestionFile } from '../../src/recording/question-file.js';
import { DataError } from '../../src/util/errors.js';

const value = 'SELECT count(*) FROM singer WHERE '.repeat(8);
const raw = canonicalJson(value);
const id = blobId(raw);
const call = `{"question_id":"q1","seed":0,"call_index":0,"key":"sha256:${'0'.repeat(64)}","reply":{"content":"§{${id}}"},"usage":{"prompt_tokens":0,"completion_tokens":0},"request":{"model":"m"}}`;
const where = (line: number): string => `calls/q1.jsonl:${line}`;

describe('parseQuestionFile blob lines', () => {
  it('takes a blob line as written (bytes kept, checked on use) when the blob check is deferred', () => {
    const parsed = parseQuestionFile(Buffer.from(`${blobLine(id, raw)}\n${call}\n`), where, { checkBlobs: false });
    const blob = parsed.blobs.get(id)!;
    expect(blob).toMatchObject({ value, raw, checked: false, line: 1 });
    expect(checkedBlob(id, blob, where).checked).toBe(true);
    expect(parsed.calls).toHaveLength(1);
  });

  it('checks a written blob line at once by default, and a damaged one fails on use naming its line', () => {
    expect(parseQuestionFile(Buffer.from(`${blobLine(id, raw)}\n${call}\n`), where).blobs.get(id)).toMatchObject({ raw, checked: true });
    const damaged = blobLine(id, canonicalJson(`${value}!`));
    expect(() => parseQuestionFile(Buffer.from(`${damaged}\n${call}\n`), where)).toThrow(/^calls\/q1\.jsonl:1: blob [0-9a-f]{32} does not match its value/);
    const deferred = parseQuestionFile(Buffer.from(`${damaged}\n${call}\n`), where, { checkBlobs: false }).blobs.get(id)!;
    expect(() => checkedBlob(id, deferred, where)).toThrow(DataError);
    try {
      checkedBlob(id, deferred, where);
    } catch (error) {
      expect((error as DataError).message).toMatch(/^calls\/q1\.jsonl:1: blob/);
    }
  });
});
