import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { loadConfig } from '../../src/config/load.js';
import { cli } from '../record/helpers.js';
import { besideIgnoreText } from '../../src/recording/layout.js';

const SPIDER = join(import.meta.dirname, '../../../shared/data/spider/database');
const dirs: string[] = [];
const temp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'rg-init-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('replaygate init', () => {
  it('asks nothing when not on a terminal and writes a project that loads', async () => {
    const dir = temp();
    const r = await cli(['init', 'shop'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('created in shop: replaygate.yml, golden/questions.yml, prompts/sql.md, .github/workflows/replaygate.yml, .gitattributes, recordings/.gitignore');
    const config = await loadConfig(join(dir, 'shop/replaygate.yml'));
    expect([...config.agents.keys()]).toEqual(['sql-agent']);
    expect(config.seeds).toEqual([0, 1, 2, 3, 4]);
    expect(readFileSync(join(dir, 'shop/.github/workflows/replaygate.yml'), 'utf8')).toContain('uses: replaygate/replaygate@v1');
    expect(readFileSync(join(dir, 'shop/.gitattributes'), 'utf8')).toContain('recordings/** -text');
    // What every writer of recordings/sql-agent makes sure of, there from the first commit.
    expect(readFileSync(join(dir, 'shop/recordings/.gitignore'), 'utf8')).toBe(besideIgnoreText('sql-agent'));
    expect(readFileSync(join(dir, 'shop/replaygate.yml'), 'utf8')).toMatch(/^# replaygate project/);
  });

  it('refuses to overwrite and writes nothing when any file exists', async () => {
    const dir = temp();
    writeFileSync(join(dir, '.gitattributes'), '* text=auto\n');
    const r = await cli(['init'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('already has .gitattributes: replaygate init never overwrites a file and wrote nothing');
    expect(readdirSync(dir)).toEqual(['.gitattributes']);
    expect(readFileSync(join(dir, '.gitattributes'), 'utf8')).toBe('* text=auto\n');
  });

  it("on a terminal asks for the warehouse, model and agent; the example question reads the user's first table", async () => {
    const dir = temp();
    mkdirSync(join(dir, 'data'));
    copyFileSync(join(SPIDER, 'pets_1/pets_1.sqlite'), join(dir, 'data/pets.sqlite'));
    const asked: string[] = [];
    const replies = ['data/pets.sqlite', '', 'pets-agent'];
    let stdout = '';
    const code = await main(['init', 'project'], {
      cwd: dir,
      env: {},
      isTTY: false,
      stdout: (s) => void (stdout += s),
      stderr: () => {},
      ask: async (q) => {
        asked.push(q);
        return replies.shift() ?? '';
      },
    });
    expect(code, stdout).toBe(0);
    expect(asked).toEqual(['SQLite warehouse file (Enter: copy an example database) []: ', 'Model [gpt-4o-mini]: ', 'Agent name [sql-agent]: ']);
    const yml = readFileSync(join(dir, 'project/replaygate.yml'), 'utf8');
    expect(yml).toContain('path: "../data/pets.sqlite"');
    expect(yml).toContain('  pets-agent:\n');
    expect(yml).toContain('model: "gpt-4o-mini"');
    expect(existsSync(join(dir, 'project/warehouse'))).toBe(false);
    expect(readFileSync(join(dir, 'project/golden/questions.yml'), 'utf8')).toContain('golden_sql: "SELECT count(*) FROM \\"Student\\""');
    const check = await cli(['check'], join(dir, 'project'));
    expect(check.stdout).toContain('golden SQL: 0 of 1 fail');
  });

  it('warns when the warehouse is outside the repository (CI will not have it); --copy-warehouse copies it in', async () => {
    const dir = temp();
    mkdirSync(join(dir, 'data'));
    copyFileSync(join(SPIDER, 'pets_1/pets_1.sqlite'), join(dir, 'data/shop.sqlite'));
    const outside = await cli(['init', 'analytics', '--warehouse', 'data/shop.sqlite'], dir);
    expect(outside.code, outside.stderr).toBe(0);
    expect(outside.stderr).toContain(
      'warning: the warehouse data/shop.sqlite is outside the project folder: replaygate.yml points at ../data/shop.sqlite, which a CI checkout (the GitHub Action) will not have. ' +
        'Copy it in (replaygate init analytics --warehouse data/shop.sqlite --copy-warehouse)',
    );
    // Inside the git repository that holds the project: no warning.
    execFileSync('git', ['init', '-q'], { cwd: dir });
    const inside = await cli(['init', 'in-repo', '--warehouse', 'data/shop.sqlite'], dir);
    expect(inside.code, inside.stderr).toBe(0);
    expect(inside.stderr).toBe('');
    const copied = await cli(['init', 'copied', '--warehouse', join(dir, 'data/shop.sqlite'), '--copy-warehouse'], join(dir, 'data'));
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stderr).toBe('');
    expect(copied.stdout).toContain('.gitattributes, recordings/.gitignore, warehouse/shop.sqlite\n');
    expect(readFileSync(join(dir, 'data/copied/replaygate.yml'), 'utf8')).toContain('path: "warehouse/shop.sqlite"');
    expect(readFileSync(join(dir, 'data/copied/warehouse/shop.sqlite'))).toEqual(readFileSync(join(dir, 'data/shop.sqlite')));
    expect((await cli(['init', 'x', '--copy-warehouse'], dir)).stderr).toContain('--copy-warehouse copies the file given with --warehouse');
  });

  it("--help's next steps are in the order init prints them (record before check)", async () => {
    const help = await cli(['init', '--help'], temp());
    expect(help.stdout).toContain('Then: OPENAI_API_KEY=… replaygate record -a sql-agent; replaygate score; replaygate check; git add -A && git commit.');
    const dir = temp();
    const init = await cli(['init'], dir);
    const next = init.stdout.split('Next:\n')[1]?.split('\n').filter((l) => l.startsWith('  ')).map((l) => l.replace(/\s+#.*/, '').trim()) ?? [];
    expect(next.slice(0, 3)).toEqual(['OPENAI_API_KEY=… replaygate record -a sql-agent', 'replaygate score', 'replaygate check']);
  });

  it('names a bad agent name or a missing warehouse file', async () => {
    const dir = temp();
    expect((await cli(['init', '--agent', 'My Agent'], dir)).stderr).toContain('--agent: "My Agent" is not a usable agent name');
    expect((await cli(['init', '--warehouse', 'nope.sqlite'], dir)).stderr).toContain('--warehouse: nope.sqlite does not exist');
    expect(readdirSync(dir)).toEqual([]);
  });
});
