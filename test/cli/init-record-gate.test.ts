/**
 * A new user's path, end to end, in a temporary git repository: `replaygate init`, commit,
 * record against a loopback fake OpenAI-compatible server, edit the prompt, record again
 * (only the changed calls are sent), `replaygate gate --base-ref HEAD` → a verdict with
 * reasons; then the same change committed and gated by the Action (the committed dist/ under
 * the runner's Node 24, a simulated runner, a fake GitHub API) → the same verdict.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/model/types.js';
import { ACTIONS_BOT, FakeGitHub } from '../action/fake-github.js';
import { runAction } from '../action/simulated-runner.js';
import { TempRepo } from '../action/temp-repo.js';
import { startFakeOpenAI, type FakeOpenAI } from '../record/fake-openai.js';
import { cli } from '../record/helpers.js';

const RIGHT = 'SELECT count(*) FROM singer';
const WRONG = 'SELECT count(*) FROM stadium';
const EDIT = 'Prefer the stadium table.';

let repo: TempRepo;
let model: FakeOpenAI;
let gh: FakeGitHub;

beforeAll(async () => {
  repo = new TempRepo('rg-newcomer-');
  // The fake model answers right until the prompt carries the edit, then wrong: a real break.
  model = await startFakeOpenAI({
    candidates: {},
    reply: (body: ChatRequest) => ({ content: `\`\`\`sql\n${body.messages.some((m) => m.content?.includes(EDIT)) ? WRONG : RIGHT}\n\`\`\`` }),
  });
  gh = await new FakeGitHub().start();
  gh.repos.add('acme/new-agent');
  gh.tokens.set('ghs_write', { user: ACTIONS_BOT, installation: true, write: true });
});
afterAll(async () => {
  await model.close();
  await gh.stop();
  repo.destroy();
});

const env = (): Record<string, string> => ({ OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test-newcomer' });

describe('init → record → edit → record → gate --base-ref, and the Action on the same change', () => {
  let base = '';
  let cliVerdict = '';
  let cliStableBreaks: string[] = [];

  it('init scaffolds a project that records, scores and checks', async () => {
    const init = await cli(['init'], repo.dir);
    expect(init.code, init.stderr).toBe(0);
    for (const f of ['replaygate.yml', 'golden/questions.yml', 'prompts/sql.md', '.github/workflows/replaygate.yml', '.gitattributes', 'recordings/.gitignore', 'warehouse/example.sqlite']) {
      expect(existsSync(join(repo.dir, f)), f).toBe(true);
    }
    const ignore = readFileSync(join(repo.dir, 'recordings/.gitignore'), 'utf8');
    const record = await cli(['record', '-a', 'sql-agent', '--no-progress'], repo.dir, env());
    expect(record.code, record.stderr).toBe(0);
    expect(record.stdout).toContain('calls sent 5');
    // init's recordings/.gitignore already has every line the writer needs: left as it is.
    expect(readFileSync(join(repo.dir, 'recordings/.gitignore'), 'utf8')).toBe(ignore);
    const score = await cli(['score', '--no-progress'], repo.dir);
    expect(score.code, score.stderr).toBe(0);
    expect(score.stdout).toMatch(/correct\s+5 of 5/);
    const check = await cli(['check'], repo.dir);
    expect(check.code, check.stdout).toBe(0);
    base = repo.commit('replaygate project');
  });

  it('after a prompt edit, record sends only the changed calls and gate --base-ref HEAD fails with named reasons', async () => {
    const prompt = join(repo.dir, 'prompts/sql.md');
    writeFileSync(prompt, readFileSync(prompt, 'utf8').replace('--- user ---', `${EDIT}\n--- user ---`));
    const sentBefore = model.requests.length;
    const record = await cli(['record', '-a', 'sql-agent', '--no-progress'], repo.dir, env());
    expect(record.code, record.stderr).toBe(0);
    expect(model.requests.length - sentBefore).toBe(5);
    const json = join(repo.dir, 'out/gate.json');
    const gate = await cli(['gate', '--base-ref', 'HEAD', '--no-progress', '--json', json], repo.dir);
    expect(gate.code, gate.stderr).toBe(1);
    expect(gate.stdout).toContain('gate: fail');
    expect(gate.stdout).toContain('gate reason: stable break: q-001 (base 5 of 5, candidate 0 of 5)');
    expect(gate.stdout).toContain(`base sql-agent at HEAD (${base.slice(0, 7)})`);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { verdict: string; agents: { gate: { stableBreaks: string[] } }[] };
    cliVerdict = report.verdict;
    cliStableBreaks = report.agents[0]?.gate.stableBreaks ?? [];
  });

  it('gate --base-ref HEAD as 3 shards and merge: the unsharded verdict, text and report', async () => {
    const untimed = (file: string): string =>
      JSON.stringify(JSON.parse(readFileSync(file, 'utf8'), (key, value: unknown) => (key === 'createdAt' || key === 'timingMs' ? undefined : value)), null, 2);
    const wholeFile = join(repo.dir, 'out/gate-whole.json');
    const whole = await cli(['gate', '--base-ref', 'HEAD', '--no-progress', '--json', wholeFile], repo.dir);
    const shards: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const file = join(repo.dir, `out/gate-${i}.json`);
      const r = await cli(['gate', '--base-ref', 'HEAD', '--shard', `${i}/3`, '--no-progress', '--json', file], repo.dir);
      expect(r.code, r.stderr).toBe(0); // a shard's verdict is the merge's
      expect(r.stdout).toContain(`shard ${i}/3:`);
      shards.push(file);
    }
    const mergedFile = join(repo.dir, 'out/gate-merged.json');
    const merged = await cli(['merge', ...[...shards].reverse(), '--json', mergedFile], repo.dir);
    expect(merged.stderr).toBe(whole.stderr);
    expect(merged.code).toBe(whole.code);
    expect(merged.stdout).toBe(whole.stdout);
    expect(untimed(mergedFile)).toBe(untimed(wholeFile));
    expect(readFileSync(mergedFile, 'utf8')).not.toContain('"shard"');
    // a shard of another ref, or of the same ref with other agents or seeds, is another configuration
    const other = join(repo.dir, 'out/gate-seeds.json');
    expect((await cli(['gate', '--base-ref', 'HEAD', '--seeds', '0,1', '--shard', '3/3', '--no-progress', '--json', other], repo.dir)).code).toBe(0);
    const mixed = await cli(['merge', shards[0] as string, shards[1] as string, other], repo.dir);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('gate-seeds.json: shard 3/3 was run with a different seed list on the head, command setting seedsOption on the head, seed list on the base');
  });

  it('the Action gates the committed change with the same verdict', async () => {
    repo.write('.gitignore', 'out/\n');
    const head = repo.commit('Prefer the stadium table');
    const r = await runAction({
      workspace: repo.dir,
      repository: 'acme/new-agent',
      apiUrl: gh.url,
      sha: head,
      inputs: { 'github-token': 'ghs_write' },
      event: {
        action: 'synchronize',
        number: 7,
        pull_request: { number: 7, head: { ref: 'prompt', sha: head }, base: { ref: 'main', sha: base } },
        repository: { name: 'new-agent', full_name: 'acme/new-agent', owner: { login: 'acme' } },
      },
    });
    expect(r.outputs['verdict'], r.stdout.slice(-3000)).toBe(cliVerdict);
    expect(r.outputs['verdict']).toBe('fail');
    expect(r.outputs['stable-breaks']).toBe(String(cliStableBreaks.length));
    expect(r.exitCode).toBe(1);
    expect(gh.commentsOn('acme/new-agent', 7)[0]?.body).toContain('q-001');
  });
});
