/**
 * Hostile `replaygate init` (a folder that is not empty, a file, an immutable folder) and
 * `replaygate gate --base-ref` (no git repository, refs that are not commits or look like
 * options and shell, a base without the config, a base whose config is broken, flags that do
 * not go with it). The base side is written to a temporary folder: the project's warehouse and
 * recordings stay byte-identical.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { buildMini } from './fixtures.js';
import { fixtureOnce, hostileSuite, type HostileProject } from './harness.js';

const mini = fixtureOnce(buildMini);

/** Makes the copied project a git repository with one commit of everything. */
function commitAll(p: HostileProject): void {
  const git = (...args: string[]): void => void execFileSync('git', ['-c', 'user.email=h@example.com', '-c', 'user.name=hostile', ...args], { cwd: p.dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'project');
}

const gate = (...ref: string[]): string[] => ['gate', ...ref, '--no-progress'];

hostileSuite('init', mini, [
  {
    name: 'a folder that already holds a project: nothing written',
    args: ['init'],
    setup: (p) => void p.write('prompts/sql.md', 'mine\n'),
    names: ['never overwrites a file and wrote nothing'],
    check: (_r, p) => {
      if (p.read('prompts/sql.md') !== 'mine\n') throw new Error('init overwrote a file');
    },
  },
  {
    name: 'DIR is a file',
    args: ['init', 'notes.txt'],
    setup: (p) => void p.write('notes.txt', 'x\n'),
    names: ['notes.txt'],
  },
  {
    name: 'DIR is immutable',
    args: ['init', 'locked'],
    setup: (p) => void p.mkdir('locked').lock('locked'),
    names: [/locked/],
    check: (_r, p) => {
      if (existsSync(p.path('locked/replaygate.yml'))) throw new Error('wrote into an immutable folder');
    },
  },
  {
    name: 'DIR below a file',
    args: ['init', 'notes.txt/sub'],
    setup: (p) => void p.write('notes.txt', 'x\n'),
    names: ['notes.txt'],
  },
]);

hostileSuite('gate --base-ref', mini, [
  { name: 'not inside a git repository', args: gate('--base-ref', 'main'), names: ['not inside a git repository', '--base-ref'] },
  { name: 'a ref that is not a commit', setup: commitAll, args: gate('--base-ref', 'nope'), names: ['--base-ref', '"nope" is not a commit'] },
  { name: 'a ref that looks like an option', setup: commitAll, args: gate('--base-ref=--output=/tmp/x'), names: ['--base-ref', 'is not a commit'] },
  { name: 'a ref with shell in it', setup: commitAll, args: gate('--base-ref', 'HEAD;touch pwned'), names: ['is not a commit'], check: (_r, p) => void expectNoFile(p, 'pwned') },
  {
    name: 'a base commit without the config',
    setup: (p) => {
      commitAll(p);
      execFileSync('git', ['-c', 'user.email=h@example.com', '-c', 'user.name=hostile', 'commit', '-q', '--allow-empty', '-m', 'empty'], { cwd: p.dir });
      execFileSync('git', ['rm', '-q', '--cached', 'replaygate.yml'], { cwd: p.dir });
      execFileSync('git', ['-c', 'user.email=h@example.com', '-c', 'user.name=hostile', 'commit', '-q', '-m', 'no config'], { cwd: p.dir });
    },
    args: gate('--base-ref', 'HEAD'),
    names: ['has no replaygate.yml'],
  },
  {
    name: 'a base whose config is broken',
    setup: (p) => {
      p.replace('replaygate.yml', 'seeds: [0, 1]', 'sedes: [0, 1]');
      commitAll(p);
      p.replace('replaygate.yml', 'sedes: [0, 1]', 'seeds: [0, 1]');
    },
    args: gate('--base-ref', 'HEAD'),
    names: ['the base (HEAD at', 'could not be loaded', "did you mean 'seeds'?"],
  },
  { name: '--base-ref with --base', setup: commitAll, args: gate('--base-ref', 'HEAD', '--base', 'base'), names: ['--base cannot be combined with it'] },
  { name: '--base-ref with an agent neither side has', setup: commitAll, args: gate('--base-ref', 'HEAD', '--agent', 'nobody'), names: ["no agent 'nobody'"] },
  { name: '--base-ref HEAD with nothing changed passes', setup: commitAll, args: gate('--base-ref', 'HEAD'), exit: 0, names: ['gate: pass'] },
]);

function expectNoFile(p: HostileProject, rel: string): void {
  if (existsSync(p.path(rel))) throw new Error(`${rel} was created: the ref reached a shell`);
}
