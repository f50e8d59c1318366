// A configured agent without a recording (e.g. a typo in `recording:`) is a failing replay
// check, as it is for `score` and `gate`: `replaygate check` lists it and exits 1, never
// "(no recording yet) … PASS". Real database: Spider's concert_singer.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import type { CheckReportJson } from '../../src/cli/commands/check.js';
import { renderSchemaChecks, runSchemaChecks } from '../../src/checks/index.js';
import { tempProject, type TempProject } from '../helpers/temp-project.js';

const GOLDEN = `questions:
  - {id: count, question: How many singers do we have?, db: concert_singer, golden_sql: SELECT count(*) FROM singer}
`;
// Agent `newrec` points at a folder that does not exist (the typo case); `b` is never recorded.
const EXTRA = '  newrec:\n    kind: sql\n    model: m\n    prompt: prompts/sql.md\n    recording: recordings/newrec\n';

async function cli(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { cwd, stdout: (s) => void (out += s), stderr: (s) => void (err += s), isTTY: false });
  return { code, out, err };
}

describe('replaygate check: configured agents without a recording', () => {
  let project: TempProject;
  beforeAll(async () => {
    project = tempProject(GOLDEN, EXTRA);
    await project.record('a', { count: 'SELECT count(*) FROM singer' });
  });
  afterAll(() => project?.remove());

  it('lists each agent with no recording and exits 1; the JSON has schemaVersion and kind', async () => {
    const r = await cli(project.dir, 'check', '--json', 'check.json');
    expect(r.err).toBe('');
    expect(r.code).toBe(1);
    expect(r.out).toContain("  agent newrec: no recording at recordings/newrec (manifest.yml missing); record it (replaygate record -a newrec), import one, or fix agents.newrec.recording in replaygate.yml");
    // Agent b has no `recording:`: the hint says where the default folder is instead of naming a key it does not have.
    expect(r.out).toContain('or set agents.b.recording in replaygate.yml (without it, the recording is looked for in recordings/b)');
    expect(r.out).toMatch(/ {2}agent b: no recording at recordings\/b \(manifest\.yml missing\)/);
    expect(r.out).toContain('replays: 0 of 1 recorded runs do not replay (MissingRecording)');
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('schema checks: FAIL (replays)');
    const json = JSON.parse(readFileSync(join(project.dir, 'check.json'), 'utf8')) as CheckReportJson;
    expect(json).toMatchObject({ schemaVersion: 1, kind: 'check', passed: false });
    expect(json.replays.missingRecordings).toEqual([
      { agent: 'b', folder: join(project.dir, 'recordings/b'), problem: 'manifest.yml missing', hint: expect.any(String) },
      { agent: 'newrec', folder: join(project.dir, 'recordings/newrec'), problem: 'manifest.yml missing', hint: expect.any(String) },
    ]);
  });

  it('passes when only recorded agents are checked', async () => {
    const r = await cli(project.dir, 'check', '--agent', 'a');
    expect(r.code).toBe(0);
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('schema checks: PASS');
  });

  it('runSchemaChecks: passed is false and the renderer names the folder', async () => {
    const p = await project.open();
    try {
      const report = await runSchemaChecks(p, { agents: ['newrec'] });
      expect(report.passed).toBe(false);
      expect(report.replays.failures).toEqual([]);
      expect(renderSchemaChecks(report, { relativeTo: project.dir })).toContain('agent newrec: no recording at recordings/newrec (manifest.yml missing)');
    } finally {
      await p.close();
    }
  });
});
