import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { ProjectConfig } from '../config/types.js';
import { MANIFEST_FILE } from '../recording/manifest.js';
import { TOOL_NAME } from '../version.js';

/** What a fingerprinted run covers: its command, agents and question selection, and command-specific settings. */
export interface FingerprintInput {
  readonly kind: string;
  /** Agents whose configuration, prompt and recording manifest count. */
  readonly agents: readonly string[];
  readonly match: string;
  readonly seeds: readonly number[] | undefined;
  /** Question selection before sharding (`--split`, `--questions`). */
  readonly selection: { readonly split?: string; readonly questions?: ReadonlySet<string> };
  /** Anything else that changes the result (gate rules, side names, command flags). */
  readonly extra?: unknown;
}

const sha256 = (text: string | Buffer): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

async function fileDigest(file: string): Promise<string> {
  try {
    return sha256(await readFile(file));
  } catch (error) {
    return `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
}

/**
 * {@link fileDigest} of a text file with its line ends as LF: a checkout that writes CRLF (Git's
 * `core.autocrlf` on a Windows runner) holds the same golden questions and manifest.
 */
async function textDigest(file: string): Promise<string> {
  try {
    const bytes = await readFile(file);
    return sha256(bytes.includes(0x0d) ? Buffer.from(bytes.toString('latin1').replace(/\r\n/g, '\n'), 'latin1') : bytes);
  } catch (error) {
    return `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
}

/**
 * The configuration fingerprint written into every JSON report: `sha256:` of the canonical JSON
 * of what decides the result — the tool's version, the command, match mode, seeds, warehouse
 * limits and database names, the golden files, the semantic layer's files, each agent's
 * settings, prompt file and recording manifest, the question selection (not the shard) and the
 * command's own settings. Paths count relative to the config's folder, so CI jobs that check
 * the repository out in different places agree. Shards of one run share it; `replaygate merge`
 * refuses reports whose fingerprints differ.
 *
 * Files count by their bytes (line ends as LF), not by what was loaded from them: every shard
 * reads them all the same, so a golden question edited in another shard's part, or a recording
 * re-recorded, imported or upgraded (its manifest rewritten) between two shards, still changes
 * the fingerprint — for a few reads and hashes instead of serialising every question (issue #13:
 * each shard's fixed cost).
 */
export async function configFingerprint(config: ProjectConfig, input: FingerprintInput): Promise<string> {
  const rel = (path: string): string => relative(config.root, path).split('\\').join('/');
  const agents = [];
  for (const name of input.agents) {
    const agent = config.agents.get(name);
    if (agent === undefined) {
      agents.push({ name });
      continue;
    }
    agents.push({
      name,
      kind: agent.kind,
      model: agent.model,
      temperature: agent.temperature,
      topP: agent.topP,
      maxTokens: agent.maxTokens,
      maxCalls: agent.maxCalls,
      options: agent.options,
      prompt: { path: rel(agent.prompt), digest: await fileDigest(agent.prompt) },
      recording: rel(agent.recording),
      golden: agent.golden === undefined ? null : agent.golden.map(rel),
      ...(agent.module !== undefined ? { module: { path: rel(agent.module), digest: await fileDigest(agent.module) } } : {}),
      manifest: await textDigest(join(agent.recording, MANIFEST_FILE)),
    });
  }
  const semantic = [];
  for (const file of config.semanticFiles) semantic.push({ path: rel(file), digest: await fileDigest(file) });
  // Every golden file, in the config's order (a file's questions are in its order).
  const goldenFiles = [];
  for (const file of config.goldenFiles) goldenFiles.push({ path: rel(file), digest: await textDigest(file) });
  const document = {
    v: 2,
    tool: TOOL_NAME,
    kind: input.kind,
    match: input.match,
    seeds: input.seeds ?? null,
    warehouse: {
      maxRows: config.warehouse.maxRows,
      timeoutMs: config.warehouse.timeoutMs,
      databases: [...config.warehouse.databases].map(([name, db]) => [name, 'file' in db ? { ...db, file: rel(db.file), declaredAt: null } : { ...db, declaredAt: null }]),
    },
    golden: goldenFiles,
    semantic,
    agents,
    selection: { split: input.selection.split ?? null, questions: input.selection.questions === undefined ? null : [...input.selection.questions].sort() },
    extra: input.extra ?? null,
  };
  return sha256(stableJson(document));
}

/** JSON with object keys sorted at every depth; values JSON has no form for (bigint, NaN) count by their text. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return `${v}n`;
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

/** `sha256:` of the stable JSON of `value` (sorted keys): the fingerprint of a run that opened no project. */
export function digestOf(value: unknown): string {
  return sha256(stableJson({ v: 1, tool: TOOL_NAME, value }));
}

/** `sha256:` of a file's bytes, or a note that it could not be read. */
export { fileDigest };
