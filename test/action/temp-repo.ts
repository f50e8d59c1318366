/** A throw-away git repository for the Action's tests: write files, commit, read SHAs. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Ada Analyst',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada Analyst',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
  GIT_AUTHOR_DATE: '2025-05-01T09:00:00Z',
  GIT_COMMITTER_DATE: '2025-05-01T09:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

export class TempRepo {
  readonly dir: string;

  constructor(prefix = 'rg-action-repo-') {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    this.git('init', '-q', '-b', 'main');
  }

  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.dir, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
  }

  write(path: string, text: string | Buffer): this {
    const file = join(this.dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return this;
  }

  /** Copies a file or folder from outside into the repository. */
  copy(from: string, to: string): this {
    mkdirSync(dirname(join(this.dir, to)), { recursive: true });
    cpSync(from, join(this.dir, to), { recursive: true });
    return this;
  }

  remove(path: string): this {
    rmSync(join(this.dir, path), { recursive: true, force: true });
    return this;
  }

  /** Stages everything and commits; returns the new commit's SHA. */
  commit(message: string): string {
    this.git('add', '-A');
    this.git('commit', '-q', '--allow-empty', '-m', message);
    return this.git('rev-parse', 'HEAD');
  }

  destroy(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
