/** An agent's `golden:` scope: it answers only those golden files, in every command. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { selectQuestions } from '../../src/pipeline/replay.js';
import { cli } from '../record/helpers.js';
import { tempProject } from '../helpers/temp-project.js';

const project = tempProject(
  `questions:
  - {id: q0, question: How many singers do we have?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}
`,
  '    golden: [golden/q.yml]\n',
);
writeFileSync(join(project.dir, 'golden', 'more.yml'), 'questions:\n  - {id: q1, question: How many concerts are there?, db: concert_singer, golden_sql: SELECT count(*) FROM concert}\n');
afterAll(() => project.remove());

describe('agents.<name>.golden', () => {
  it('limits the agent to its golden files; other agents answer all', async () => {
    const p = await project.open();
    try {
      expect(selectQuestions(p, { agent: 'b' }).map((q) => q.id)).toEqual(['q0']);
      expect(selectQuestions(p, { agent: 'a' }).map((q) => q.id).sort()).toEqual(['q0', 'q1']);
    } finally {
      await p.close();
    }
  });

  it('score replays only the scoped questions: no missing recording for the others', async () => {
    await project.record('a', { q0: 'SELECT count(*) FROM singer', q1: 'SELECT count(*) FROM concert' });
    await project.record('b', { q0: 'SELECT count(*) FROM singer' });
    const r = await cli(['score', '--no-progress'], project.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/runs \(questions × seeds\)\s+2 \(2 × 1\)\s+1 \(1 × 1\)/);
  });

  it('refuses a file that is not one of the project golden files, naming the key and line', async () => {
    writeFileSync(join(project.dir, 'other.yml'), 'questions: []\n');
    const config = join(project.dir, 'scoped.yml');
    writeFileSync(
      config,
      'warehouse:\n  databases:\n    concert_singer: concert_singer.sqlite\ngolden: golden\nagents:\n  a:\n    model: m\n    prompt: prompts/sql.md\n    golden: other.yml\n',
    );
    await expect(loadConfig(config)).rejects.toThrow(/scoped\.yml:9: 'agents\.a\.golden' names other\.yml, which is not one of the project's golden files/);
  });
});

describe('hints name the keys the config uses', () => {
  it('a missing database file names warehouse.path when the config uses path:', async () => {
    const dir = project.dir;
    mkdirSync(join(dir, 'nodb'), { recursive: true });
    writeFileSync(join(dir, 'nodb', 'q.yml'), '- {id: n1, question: How many?, golden_sql: SELECT 1}\n');
    writeFileSync(join(dir, 'one.yml'), 'warehouse:\n  path: missing.sqlite\ngolden: nodb\nagents:\n  a:\n    model: m\n    prompt: prompts/sql.md\n');
    const r = await cli(['check', '-c', 'one.yml'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the SQLite file of database "main" does not exist (check warehouse.path in one.yml:2)');
    writeFileSync(join(dir, 'two.yml'), 'warehouse:\n  databases:\n    concert_singer: gone.sqlite\ngolden: golden\nagents: {}\n');
    expect((await cli(['check', '-c', 'two.yml'], dir)).stderr).toContain('(check warehouse.databases.concert_singer in two.yml:3)');
  });
});
