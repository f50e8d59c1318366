// The CLI loads only the command it runs: `replaygate --version` and `--help` list every command
// by name and summary without importing any of them.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { main } from '../../src/cli/index.js';
import { buildProgram } from '../../src/cli/program.js';

const ctx = (): CliContext & { out: string[] } => {
  const out: string[] = [];
  return { out, stdout: (s) => void out.push(s), stderr: (s) => void out.push(s), isTTY: false, cwd: process.cwd(), env: {}, protectedPaths: new Set<string>(), exitCode: 0 };
};

describe('lazy command loading', () => {
  it('--version defines no command; the named command alone is loaded', async () => {
    const names = ['init', 'score', 'import', 'gate', 'merge', 'record', 'recordings', 'check', 'confidence', 'judge'];
    const bare = await buildProgram(ctx(), ['--version']);
    expect(bare.commands.map((c) => c.name())).toEqual(names);
    expect(bare.commands.every((c) => c.options.length === 0)).toBe(true);
    const score = await buildProgram(ctx(), ['score', '--help']);
    expect(score.commands.find((c) => c.name() === 'score')?.options.map((o) => o.long)).toContain('--shard');
    expect(score.commands.find((c) => c.name() === 'gate')?.options).toHaveLength(0);
    const all = await buildProgram(ctx());
    expect(all.commands.every((c) => c.options.length > 0 || c.commands.length > 0)).toBe(true);
  });

  it('--help lists every command with its summary; help <command> shows that command', async () => {
    const c = ctx();
    expect(await main(['--help'], c)).toBe(0);
    expect(c.out.join('')).toMatch(/merge +merge the JSON reports of --shard i\/n runs/);
    const h = ctx();
    expect(await main(['help', 'gate'], h)).toBe(0);
    expect(h.out.join('')).toContain('--shard <i/n>');
    const bad = ctx();
    expect(await main(['scroe'], bad)).toBe(2);
    expect(bad.out.join('')).toContain("(Did you mean score?)");
  });

  it("the built CLI answers --version loading no command's own module", () => {
    const root = join(import.meta.dirname, '..', '..');
    // A resolve hook that names every module of build/ the process loads.
    const hook = 'data:text/javascript,export async function resolve(s,c,n){const r=await n(s,c);if(r.url.includes("/build/"))console.error("LOADED "+r.url.split("/build/")[1]);return r}';
    // Inside a GitHub Actions step (this suite on CI) the CLI also loads its workflow-command filter (src/report/inert-commands.ts).
    const outsideActions = { ...process.env, GITHUB_ACTIONS: undefined };
    const run = spawnSync(process.execPath, ['--import', `data:text/javascript,import{register}from"node:module";register(${JSON.stringify(hook)})`, join(root, 'bin', 'replaygate.js'), '--version'], { encoding: 'utf8', env: outsideActions });
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const loaded = [...new Set(run.stderr.split('\n').filter((l) => l.startsWith('LOADED ')).map((l) => l.slice(7)))].sort();
    if (loaded.every((file) => file.startsWith('bundle/'))) {
      // The bundled CLI (scripts/build-cli.mjs): its entry and shared chunks, no command's own chunk.
      expect(loaded).toContain('bundle/cli.js');
      expect(loaded.filter((file) => !/^bundle\/(cli|chunk-[A-Z0-9]+)\.js$/.test(file))).toEqual([]);
      expect(loaded.length).toBeLessThanOrEqual(8);
    } else {
      expect(loaded).toEqual(['cli/context.js', 'cli/index.js', 'cli/program.js', 'util/errors.js', 'version.js']);
    }
  });
});
