import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runGate } from '../../src/gate/gate-result.js';
import type { RunRecord } from '../../src/scoring/types.js';
import { chapterBase, chapterCandidate } from './chapter-12.js';

// The constructed fixture on disk is regenerated from chapter-12.ts with
//   REPLAYGATE_UPDATE_FIXTURES=1 npx vitest run test/gate/chapter-12-fixture.test.ts
const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'chapter-12');
const FILES = { 'base.runs.json': chapterBase, 'candidate.runs.json': chapterCandidate } as const;

describe('constructed chapter-12 fixture (test/fixtures/chapter-12)', () => {
  if (process.env['REPLAYGATE_UPDATE_FIXTURES'] === '1' || !existsSync(join(DIR, 'base.runs.json'))) {
    mkdirSync(DIR, { recursive: true });
    for (const [file, build] of Object.entries(FILES)) writeFileSync(join(DIR, file), `${JSON.stringify(build(), null, 1)}\n`);
  }

  it('is what chapter-12.ts builds', () => {
    for (const [file, build] of Object.entries(FILES)) {
      expect(JSON.parse(readFileSync(join(DIR, file), 'utf8'))).toEqual(build());
    }
  });

  it("gates to the chapter's verdict", () => {
    const read = (file: string): RunRecord[] => JSON.parse(readFileSync(join(DIR, file), 'utf8')) as RunRecord[];
    const result = runGate(read('base.runs.json'), read('candidate.runs.json'));
    expect(result.verdict).toBe('fail');
    expect(result.stableBreaks).toEqual(['gq-008']);
  });
});
