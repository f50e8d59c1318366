/**
 * A command prints each distinct warning once: repeats are counted and said once at the end,
 * and warnings of one kind that differ only in what they name are one line with a count
 * (configured paths outside the project, a rule's applies_to patterns, a candidates file's
 * items left out for one reason). test/confidence/calibrate-cli.test.ts checks the applies_to
 * line through the CLI.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import type { CliContext } from '../../src/cli/context.js';
import { flushWarnings, listed, warn } from '../../src/cli/warnings.js';
import { appliesToWarnings } from '../../src/definitions/check.js';
import { tempProject } from '../helpers/temp-project.js';

function fakeCtx(): { ctx: CliContext; err: () => string } {
  let err = '';
  const ctx: CliContext = { stdout: () => undefined, stderr: (s) => (err += s), isTTY: false, cwd: '.', env: {}, protectedPaths: new Set(), exitCode: 0 };
  return { ctx, err: () => err };
}

describe('warn', () => {
  it('prints a warning the first time, counts repeats, and says the count once at the end', () => {
    const { ctx, err } = fakeCtx();
    for (let i = 0; i < 4; i++) warn(ctx, 'th.yml: label_policy: fitted on spider labels');
    warn(ctx, 'another');
    expect(err()).toBe('warning: th.yml: label_policy: fitted on spider labels\nwarning: another\n');
    flushWarnings(ctx);
    expect(err()).toBe(
      'warning: th.yml: label_policy: fitted on spider labels\nwarning: another\n(the warning above was given 4 times, printed once: warning: th.yml: label_policy: fitted on spider labels)\n',
    );
    // A second flush (or a new command on another context) starts afresh.
    flushWarnings(ctx);
    expect(err().split('\n')).toHaveLength(4);
    const other = fakeCtx();
    warn(other.ctx, 'another');
    expect(other.err()).toBe('warning: another\n');
  });

  it('lists the first items and counts the rest', () => {
    expect(listed([])).toBe('');
    expect(listed(['a'])).toBe('a');
    expect(listed(['a', 'b', 'c'])).toBe('a, b and c');
    expect(listed(['a', 'b', 'c', 'd'], 2)).toBe('a, b and 2 more');
  });

  it("groups a rule's applies_to patterns that select nothing into one warning", () => {
    const misses = [
      { where: 'd.yml:2', id: 'r', kind: 'tags' as const, pattern: 'x', database: 'main' },
      { where: 'd.yml:2', id: 'r', kind: 'words' as const, pattern: 'y z', database: 'main' },
      { where: 'd.yml:9', id: 's', kind: 'questions' as const, pattern: 'q-1', database: 'main' },
    ];
    expect(appliesToWarnings({ misses, questions: { main: 1 } })).toEqual([
      `d.yml:2: rule 'r': 2 patterns (applies_to.tags "x", applies_to.words "y z") match none of the 1 question of this run (database main)`,
      `d.yml:9: rule 's': applies_to.questions "q-1" matches none of the 1 question of this run (database main)`,
    ]);
  });
});

describe('the outside-the-project warning through the CLI', () => {
  const project = tempProject('- id: q1\n  question: How many singers?\n  db: concert_singer\n  golden_sql: SELECT count(*) FROM singer\n');
  const outside = mkdtempSync(join(tmpdir(), 'replaygate-outside-'));
  afterAll(() => {
    project.remove();
    rmSync(outside, { recursive: true, force: true });
  });

  it('is one line however many configured paths lead outside, naming the first and counting the rest', async () => {
    mkdirSync(join(outside, 'prompts'));
    writeFileSync(join(outside, 'prompts', 'sql.md'), 'Write one SQLite query.\n--- user ---\n{{schema}}\n{{question}}\n');
    const agents = ['a', 'b', 'c', 'd', 'e'].map((n) => `  ${n}:\n    kind: sql\n    model: m\n    prompt: ${join(outside, 'prompts', 'sql.md')}\n`).join('');
    writeFileSync(join(project.dir, 'replaygate.yml'), `warehouse:\n  databases:\n    concert_singer: concert_singer.sqlite\ngolden: golden\nagents:\n${agents}`);
    let err = '';
    const code = await main(['check', '--no-progress'], { cwd: project.dir, stdout: () => undefined, stderr: (s) => (err += s), isTTY: false });
    // The agents have no recordings (check reports their replays): only the warning matters here.
    expect([0, 1], err).toContain(code);
    const lines = err.split('\n').filter((l) => l.includes('outside the project folder'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^replaygate: warning: replaygate\.yml: 5 configured paths lead outside the project folder: 'agents\.a\.prompt' \(.*sql\.md\), 'agents\.b\.prompt' .* and 2 more; the GitHub Action refuses such paths$/);
  });
});

describe('a command run outside its project', () => {
  it.each([['score'], ['check'], ['gate', '--base', 'a', '--candidate', 'b'], ['confidence', '-a', 'a'], ['recordings', 'prune']])(
    '%s: exit 2, naming the missing config and what to do',
    async (...argv) => {
      const empty = mkdtempSync(join(tmpdir(), 'replaygate-no-project-'));
      try {
        let err = '';
        const code = await main(argv, { cwd: empty, stdout: () => undefined, stderr: (s) => (err += s), isTTY: false });
        expect(code, err).toBe(2);
        expect(err).toMatch(/replaygate\.yml: no such project config: run the command in the project's folder .*give -c FILE, or create a project with replaygate init\n$/);
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
    },
  );
});
