// The configuration fingerprint counts the golden files and each agent's recording manifest by
// their bytes (issue #13: a shard no longer serialises every golden question). It must still tell
// a mixed configuration: a golden question of ANOTHER shard edited between two shards, or a
// recording re-recorded, is refused at merge time, naming the file; a checkout elsewhere, or with
// CRLF line ends (golden, semantic and manifest files alike), is the same configuration.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { configFingerprint } from '../../src/shard/fingerprint.js';
import { shardOf } from '../../src/shard/shard.js';
import { cli, ROOT } from './cli.js';

const out = mkdtempSync(join(tmpdir(), 'replaygate-fingerprint-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** A copy of the bundled example with the one recording the tests replay. */
function project(name: string): string {
  const dir = join(out, name);
  for (const part of ['replaygate.yml', 'golden', 'semantic', 'prompts', 'warehouse', 'definitions', join('recordings', 'din-sql-gpt4')]) {
    cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  }
  return dir;
}

const GOLDEN = join('golden', 'spider', 'pets_1.yml');
const MANIFEST = join('recordings', 'din-sql-gpt4', 'manifest.yml');
const SEMANTIC = join('semantic', 'pets_1.yml');

/** The golden file with the question of `id` asked in other words. */
function editQuestion(dir: string, id: string): void {
  const file = join(dir, GOLDEN);
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(`- id: ${id}\n`);
  expect(at).toBeGreaterThanOrEqual(0);
  const question = text.indexOf('    question: ', at);
  writeFileSync(file, `${text.slice(0, question)}    question: (edited) ${text.slice(question + '    question: '.length)}`);
}

async function fingerprint(dir: string): Promise<string> {
  const config = await loadConfig(join(dir, 'replaygate.yml'));
  return (await configFingerprint(config, { kind: 'score', agents: ['din-sql-gpt4'], match: config.match, seeds: config.seeds, selection: {} })).digest;
}

/** The ids of the golden file's questions. */
const ids = (dir: string): string[] => [...readFileSync(join(dir, GOLDEN), 'utf8').matchAll(/^ {2}- id: (\S+)$/gm)].map((m) => m[1] as string);

describe('configuration fingerprint', () => {
  it('is the same for a checkout elsewhere and with CRLF line ends (golden, semantic, manifest); differs for any golden or manifest edit', async () => {
    const a = project('a');
    const b = project('b');
    const base = await fingerprint(a);
    expect(await fingerprint(b)).toBe(base);
    for (const file of [GOLDEN, MANIFEST, SEMANTIC]) writeFileSync(join(b, file), readFileSync(join(b, file), 'utf8').replace(/\n/g, '\r\n'));
    expect(await fingerprint(b)).toBe(base);
    const c = project('c');
    editQuestion(c, ids(c).find((id) => shardOf(id, 4) === 3) as string);
    expect(await fingerprint(c)).not.toBe(base);
    const d = project('d');
    writeFileSync(join(d, MANIFEST), readFileSync(join(d, MANIFEST), 'utf8').replace(/^created: .*$/m, 'created: 2030-01-01T00:00:00.000Z'));
    expect(await fingerprint(d)).not.toBe(base);
  });

  it('merge refuses shards run before and after an edit of a question of another shard, or of the recording', async () => {
    const dir = project('merge');
    const score = ['score', '-a', 'din-sql-gpt4', '--no-progress'];
    const shard = async (i: number, name: string): Promise<string> => {
      const file = join(out, `${name}.json`);
      const r = await cli([...score, '--shard', `${i}/2`, '--json', file], dir);
      expect(r.code, r.stderr).toBe(0);
      return file;
    };
    const s1 = await shard(1, 'm1');
    const s2 = await shard(2, 'm2');
    expect((await cli(['merge', s1, s2], dir)).code).toBe(0);
    // Shard 1 ran; then a question of shard 2 is edited, and shard 2 runs.
    editQuestion(dir, ids(dir).find((id) => shardOf(id, 2) === 2) as string);
    const edited = await shard(2, 'm2-edited');
    let r = await cli(['merge', s1, edited], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('m2-edited.json: shard 2/2 was run with a different golden file golden/spider/pets_1.yml than shard 1/2');
    // Back to the first golden file, then the recording's manifest is rewritten (re-recorded, imported or upgraded).
    cpSync(join(ROOT, GOLDEN), join(dir, GOLDEN));
    expect((await cli(['merge', s1, await shard(2, 'm2-again')], dir)).code).toBe(0);
    writeFileSync(join(dir, MANIFEST), readFileSync(join(dir, MANIFEST), 'utf8').replace(/^created: .*$/m, 'created: 2030-01-01T00:00:00.000Z'));
    r = await cli(['merge', s1, await shard(2, 'm2-rerecorded')], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('m2-rerecorded.json: shard 2/2 was run with a different recording manifest recordings/din-sql-gpt4/manifest.yml of agent din-sql-gpt4 than shard 1/2');
  }, 120_000);
});
