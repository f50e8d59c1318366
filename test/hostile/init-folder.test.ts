/**
 * `replaygate init` on a folder that is not empty, holds links, or cannot be written: it never
 * overwrites, never writes outside the folder (a link on the way out is refused), and is all or
 * nothing (a write that fails half-way removes what the run wrote). The built CLI, as a user runs it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CLI = resolve(import.meta.dirname, '../../bin/replaygate.js');
const ROOT = process.getuid?.() === 0;
const CAN_PROTECT = ROOT && spawnSync('chattr', ['--help']).error === undefined;

describe('replaygate init on a hostile folder', () => {
  let base: string;
  let project: string;
  let outside: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'rg-init-hostile-'));
    project = join(base, 'project');
    outside = join(base, 'outside');
    mkdirSync(project);
    mkdirSync(outside);
  });
  afterEach(() => {
    spawnSync('chattr', ['-R', '-i', base]);
    rmSync(base, { recursive: true, force: true });
  });
  const init = (...args: string[]) => {
    const r = spawnSync(process.execPath, [CLI, 'init', ...args], { cwd: project, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
  };
  const listing = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();

  it.each(['.github', 'golden', 'prompts', 'warehouse'])('a folder on the way (%s) that links outside: exit 2 naming it, nothing written anywhere', (folder) => {
    symlinkSync(outside, join(project, folder));
    const r = init();
    expect(r.code, r.out).toBe(2);
    expect(r.out).toContain(`${folder} is a symbolic link to ${outside}, outside .: replaygate init writes only inside the project folder and wrote nothing`);
    expect(listing(outside)).toEqual([]);
    expect(listing(project)).toEqual([folder]);
  });

  it('a dangling link on the way, or in place of a file: refused, the link never followed', () => {
    symlinkSync(join(outside, 'gone'), join(project, '.github'));
    expect(init().code).toBe(2);
    rmSync(join(project, '.github'));
    symlinkSync(join(outside, 'attributes'), join(project, '.gitattributes'));
    const r = init();
    expect(r.code, r.out).toBe(2);
    expect(r.out).toContain('already has .gitattributes: replaygate init never overwrites a file and wrote nothing');
    expect(listing(outside)).toEqual([]);
  });

  it('a link to a folder inside the project is fine', () => {
    mkdirSync(join(project, 'ci'));
    symlinkSync(join(project, 'ci'), join(project, '.github'));
    const r = init();
    expect(r.code, r.out).toBe(0);
    expect(existsSync(join(project, 'ci/workflows/replaygate.yml'))).toBe(true);
  });

  it('existing files are never overwritten, and nothing else is written', () => {
    writeFileSync(join(project, 'replaygate.yml'), 'mine\n');
    mkdirSync(join(project, 'prompts'));
    writeFileSync(join(project, 'prompts/sql.md'), 'my prompt\n');
    const r = init();
    expect(r.code, r.out).toBe(2);
    expect(r.out).toContain('already has replaygate.yml, prompts/sql.md');
    expect(readFileSync(join(project, 'replaygate.yml'), 'utf8')).toBe('mine\n');
    expect(listing(project)).toEqual(['prompts', 'prompts/sql.md', 'replaygate.yml']);
  });

  it.skipIf(!CAN_PROTECT)('a read-only (immutable) subfolder: exit 2 naming the file, and what init wrote before it is removed', () => {
    mkdirSync(join(project, 'golden'));
    execFileSync('chattr', ['+i', join(project, 'golden')]);
    const r = init();
    expect(r.code, r.out).toBe(2);
    expect(r.out).toMatch(/cannot write golden\/questions\.yml \(EPERM: read-only or immutable\); replaygate init removed what it had written, nothing is left/);
    expect(r.out).not.toMatch(/\n\s+at .+:\d+:\d+/);
    expect(listing(project)).toEqual(['golden']);
  });

  it.skipIf(!CAN_PROTECT)('a read-only project folder: exit 2, nothing written', () => {
    execFileSync('chattr', ['+i', project]);
    const r = init();
    expect(r.code, r.out).toBe(2);
    expect(r.out).toMatch(/cannot write replaygate\.yml \(EPERM: read-only or immutable\)/);
  });
});
