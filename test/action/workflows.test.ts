/**
 * The workflows are true: every workflow file parses, every step that uses the Action passes only
 * inputs action.yml declares, the fork pattern's posting workflow never checks out code, the
 * record workflow runs on a manual trigger with its key from secrets, and the README and
 * docs/action.md show the example workflows exactly as the files in docs/workflows/ hold them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from './simulated-runner.js';

interface Step {
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, string>;
}
interface Workflow {
  readonly name: string;
  readonly on: unknown;
  readonly permissions?: Record<string, string>;
  readonly jobs: Record<string, { readonly steps: readonly Step[]; readonly permissions?: Record<string, string> }>;
}

const action = parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, unknown> };
const files = ['.github/workflows', 'docs/workflows'].flatMap((dir) => readdirSync(join(REPO_ROOT, dir)).filter((f) => f.endsWith('.yml')).map((f) => join(dir, f)));
const workflow = (file: string): Workflow => parse(readFileSync(join(REPO_ROOT, file), 'utf8')) as Workflow;
const steps = (w: Workflow): Step[] => Object.values(w.jobs).flatMap((j) => j.steps);

describe('workflows', () => {
  it.each(files)('%s parses and passes the Action only declared inputs', (file) => {
    const w = workflow(file);
    expect(w.name.length).toBeGreaterThan(0);
    for (const step of steps(w).filter((s) => s.uses === './' || s.uses?.startsWith('replaygate/replaygate@'))) {
      for (const input of Object.keys(step.with ?? {})) expect(Object.keys(action.inputs), `${file}: ${input}`).toContain(input);
    }
  });

  it('the repository runs its tests, the Action on itself, a dist/ check and a release that moves v1', () => {
    expect(steps(workflow('.github/workflows/ci.yml')).some((s) => s.uses === './')).toBe(true);
    expect(steps(workflow('.github/workflows/ci.yml')).some((s) => s.run?.includes('.ci/run'))).toBe(true);
    expect(steps(workflow('.github/workflows/check-dist.yml')).some((s) => s.run?.includes('git diff --exit-code'))).toBe(true);
    const release = steps(workflow('.github/workflows/release.yml'));
    expect(release.some((s) => s.run?.includes('git push origin "refs/tags/$major" --force'))).toBe(true);
    // The tag moved is the package version's major, and the docs name @v1: the version is 1.x.
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(version).toMatch(/^1\.\d+\.\d+$/);
    for (const doc of ['README.md', 'docs/action.md']) {
      const tags = [...readFileSync(join(REPO_ROOT, doc), 'utf8').matchAll(/uses: replaygate\/replaygate@(v\d+)/g)].map((m) => m[1]);
      expect(new Set(tags), doc).toEqual(new Set([`v${version.split('.')[0]}`]));
    }
    expect(readFileSync(join(REPO_ROOT, '.gitattributes'), 'utf8')).toMatch(/^dist\/\*\* linguist-generated=true -diff$/m);
  });

  it('the fork pattern: the gate has a read-only token and uploads its report; the poster never checks out code', () => {
    const gate = workflow('docs/workflows/replaygate-fork-gate.yml');
    expect(gate.on).toBe('pull_request');
    expect(gate.permissions).toEqual({ contents: 'read' });
    expect(steps(gate).find((s) => s.uses?.startsWith('actions/upload-artifact'))?.with?.['path']).toBe('${{ steps.gate.outputs.report-path }}');
    const post = workflow('docs/workflows/replaygate-fork-comment.yml');
    expect(Object.keys(post.on as object)).toEqual(['workflow_run']);
    expect((post.on as { workflow_run: { workflows: string[] } }).workflow_run.workflows).toEqual([gate.name]);
    expect(steps(post).some((s) => s.uses?.startsWith('actions/checkout'))).toBe(false);
    expect(steps(post).find((s) => s.uses?.startsWith('replaygate/'))?.with).toMatchObject({ command: 'comment' });
  });

  it('recording runs on a manual trigger with the key from secrets, passed to one step only', () => {
    const w = workflow('docs/workflows/record.yml');
    expect(Object.keys(w.on as object)).toEqual(['workflow_dispatch']);
    const withKey = steps(w).filter((s) => JSON.stringify(s).includes('secrets.OPENAI_API_KEY'));
    expect(withKey).toHaveLength(1);
    expect(withKey[0]?.env?.['OPENAI_API_KEY']).toBe('${{ secrets.OPENAI_API_KEY }}');
    expect(withKey[0]?.run).toContain('replaygate record --agent "$AGENT"');
  });

  it('README and docs/action.md show the example workflows as the files hold them', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const docs = readFileSync(join(REPO_ROOT, 'docs/action.md'), 'utf8');
    for (const f of ['replaygate.yml', 'replaygate-fork-gate.yml', 'replaygate-fork-comment.yml']) {
      const text = readFileSync(join(REPO_ROOT, 'docs/workflows', f), 'utf8');
      expect(readme, `README.md shows docs/workflows/${f}`).toContain(`\`\`\`yaml\n${text}\`\`\``);
    }
    for (const f of readdirSync(join(REPO_ROOT, 'docs/workflows'))) {
      expect(docs, `docs/action.md shows docs/workflows/${f}`).toContain(`\`\`\`yaml\n${readFileSync(join(REPO_ROOT, 'docs/workflows', f), 'utf8')}\`\`\``);
    }
  });
});
