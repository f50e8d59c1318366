import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openProject, type Project } from '../../src/pipeline/project.js';
import { RecordingWriter } from '../../src/recording/writer.js';

/** Spider's concert_singer database from the shared data set (tests may read ../shared). */
export const CONCERT_SINGER = join(import.meta.dirname, '../../../shared/data/spider/database/concert_singer/concert_singer.sqlite');

export const PROMPT = 'Write one SQLite query.\n--- user ---\nSchema:\n{{schema}}\nQuestion: {{question}}\n';

export interface TempProject {
  readonly dir: string;
  readonly config: string;
  open(): Promise<Project>;
  /** Writes a recording for `agent` with the given replies (question id → reply text), seed 0 unless given. */
  record(agent: string, replies: Readonly<Record<string, string>>, seeds?: readonly number[]): Promise<void>;
  remove(): void;
}

/**
 * A throwaway replaygate project over concert_singer with the given golden YAML and one `sql`
 * agent `a` (and `b`), written to a temp dir.
 */
export function tempProject(golden: string, extraConfig = ''): TempProject {
  const dir = mkdtempSync(join(tmpdir(), 'replaygate-test-'));
  mkdirSync(join(dir, 'golden'));
  mkdirSync(join(dir, 'prompts'));
  copyFileSync(CONCERT_SINGER, join(dir, 'concert_singer.sqlite'));
  writeFileSync(join(dir, 'golden', 'q.yml'), golden);
  writeFileSync(join(dir, 'prompts', 'sql.md'), PROMPT);
  const config = join(dir, 'replaygate.yml');
  writeFileSync(
    config,
    `warehouse:\n  databases:\n    concert_singer: concert_singer.sqlite\n  timeout_ms: 2000\ngolden: golden\nagents:\n` +
      `  a:\n    kind: sql\n    model: m\n    prompt: prompts/sql.md\n  b:\n    kind: sql\n    model: m\n    prompt: prompts/sql.md\n${extraConfig}`,
  );
  return {
    dir,
    config,
    open: () => openProject(config),
    async record(agent, replies, seeds = [0]) {
      const project = await openProject(config);
      try {
        const a = await project.agent(agent);
        const cfg = project.config.agents.get(agent)!;
        const writer = RecordingWriter.open(cfg.recording, 'create');
        for (const q of project.golden) {
          const reply = replies[q.id];
          if (reply === undefined) continue;
          for (const seed of seeds) {
            const request = await a.firstRequest!({ question: q, seed, engine: project.engineFor(q), maxRows: 10_000, timeoutMs: 2000 });
            writer.write({ request, reply: { content: reply }, usage: { prompt_tokens: 100, completion_tokens: 10 }, question_id: q.id, seed, call_index: 0 });
          }
        }
        const now = new Date().toISOString();
        writer.commit({
          name: agent, agent, model: 'm', sampling: { temperature: 0, top_p: 1, max_tokens: 1024 }, seeds: [...seeds], prompt_files: {},
          recorder: 'test', created: now, updated: now, recorded_splits: { dev: 1 }, constructed: true, extra: {},
        });
      } finally {
        await project.close();
      }
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
