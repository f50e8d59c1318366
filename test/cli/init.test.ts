import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { loadConfig } from '../../src/config/load.js';
import { cli } from '../record/helpers.js';

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
    expect(r.stdout).toContain('created in shop: replaygate.yml, golden/questions.yml, prompts/sql.md, .github/workflows/replaygate.yml, .gitattributes');
    const config = await loadConfig(join(dir, 'shop/replaygate.yml'));
    expect([...config.agents.keys()]).toEqual(['sql-agent']);
    expect(config.seeds).toEqual([0, 1, 2, 3, 4]);
    expect(readFileSync(join(dir, 'shop/.github/workflows/replaygate.yml'), 'utf8')).toContain('uses: replaygate/replaygate@v1');
    expect(readFileSync(join(dir, 'shop/.gitattributes'), 'utf8')).toContain('recordings/** -text');
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

  it('names a bad agent name or a missing warehouse file', async () => {
    const dir = temp();
    expect((await cli(['init', '--agent', 'My Agent'], dir)).stderr).toContain('--agent: "My Agent" is not a usable agent name');
    expect((await cli(['init', '--warehouse', 'nope.sqlite'], dir)).stderr).toContain('--warehouse: nope.sqlite does not exist');
    expect(readdirSync(dir)).toEqual([]);
  });
});
