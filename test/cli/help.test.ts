/** Every command's --help teaches by example, ends with its exit codes (a command that runs something), and exits 0. */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { buildProgram } from '../../src/cli/program.js';

function paths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((c) => [[...prefix, c.name()], ...paths(c, [...prefix, c.name()])]);
}

const program = await buildProgram({ stdout: () => {}, stderr: () => {}, isTTY: false, cwd: '.', env: {}, protectedPaths: new Set<string>(), exitCode: 0 });

describe('--help', () => {
  for (const path of [[], ...paths(program)]) {
    it(`replaygate ${path.join(' ')} --help has examples`, async () => {
      let out = '';
      const code = await main([...path, '--help'], { stdout: (s) => void (out += s), stderr: () => {}, isTTY: false, env: {} });
      expect(code).toBe(0);
      expect(out).toMatch(/\nExamples:\n {2}[^\n]*replaygate /);
      // A command that runs (it has options of its own, beyond --help) says what its exit codes mean.
      const command = path.reduce<Command | undefined>((c, name) => c?.commands.find((x) => x.name() === name), program);
      if (path.length === 0 || (command?.options.length ?? 0) > 0) expect(out, out).toMatch(/\nExit codes: 0 [^\n]*\b2 /);
    });
  }
});
