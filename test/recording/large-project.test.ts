/**
 * The generated tools-agent project (scripts/generate-tools-project.mjs, recorded through
 * `replaygate record`'s own code): format 2 is at least 5× smaller than format 1, and a
 * re-record of 10 questions changes only those questions' files. Smaller than the benchmark's
 * 1,000 × 5 (bench/recordings.mjs measures that one) to keep the suite quick.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingBytes } from '../../src/recording/size.js';
import { Recording } from '../../src/recording/recording.js';

const REPO = resolve(import.meta.dirname, '../..');
const GIT_ENV = { GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

type Load = (module: string) => Promise<unknown>;
interface Generator {
  generateToolsProject(out: string, o: { questions: number; seeds: number; load: Load }): Promise<{ config: string; golden: { id: string }[] }>;
  recordProject(config: string, golden: unknown[], o: { questions?: string[]; force?: boolean; version?: number; seeds?: number[]; load: Load }): Promise<{ stats: { sent: number } }>;
}
/** The generator loads the product from build/; here, from the TypeScript sources. */
const load: Load = (module) => import(join(REPO, 'src', module.replace(/\.js$/, '.ts')));

describe('a generated tools-agent project (60 questions × 5 seeds)', () => {
  let out: string;
  let gen: Generator;
  let project: { config: string; golden: { id: string }[] };
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: out, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();

  beforeAll(async () => {
    gen = (await import(join(REPO, 'scripts/generate-tools-project.mjs'))) as Generator;
    out = mkdtempSync(join(tmpdir(), 'rg-large-'));
    project = await gen.generateToolsProject(out, { questions: 60, seeds: 5, load });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'generated');
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('is at least 5× smaller than the same calls in format 1', async () => {
    const two = recordingBytes(join(out, 'recordings/tools'));
    const one = recordingBytes(join(out, 'recordings/tools-format1'));
    const recording = await Recording.open(join(out, 'recordings/tools'));
    const calls = recording.size;
    recording.close();
    expect(calls).toBeGreaterThan(60 * 5 * 2);
    expect(one / two).toBeGreaterThanOrEqual(5);
  });

  it('a re-record of 10 questions changes only their files, the manifest and new blobs', async () => {
    const ten = project.golden.slice(20, 30).map((q) => q.id);
    const r = await gen.recordProject(project.config, project.golden, { questions: ten, force: true, version: 2, seeds: [0, 1, 2, 3, 4], load });
    expect(r.stats.sent).toBeGreaterThanOrEqual(50);
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: out, encoding: 'utf8' }).split('\n').filter(Boolean);
    const modified = changed.filter((l) => !l.startsWith('??')).map((l) => l.slice(3));
    const added = changed.filter((l) => l.startsWith('??')).map((l) => l.slice(3));
    expect(modified.sort()).toEqual([...ten.map((id) => `recordings/tools/calls/${id}.jsonl`), 'recordings/tools/manifest.yml'].sort());
    // The first writer in a git work tree also gives the folder holding the recording its .gitignore
    // (src/recording/ignore-beside.ts): the project was generated before `git init`.
    expect(added).toContain('recordings/.gitignore');
    for (const f of added.filter((a) => a !== 'recordings/.gitignore')) expect(f).toMatch(/^recordings\/tools\/blobs\/[0-9a-f]{32}\.json$/);
    // Within each file, the lines of the calls that stayed are untouched.
    const diff = git('diff', '--numstat', '--', ...ten.map((id) => `recordings/tools/calls/${id}.jsonl`));
    for (const row of diff.split('\n')) {
      const [plus, minus] = row.split('\t').map(Number);
      expect(plus).toBeGreaterThan(0);
      expect(minus).toBeLessThanOrEqual(plus!);
    }
  });
});
