import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { ProjectConfig } from '../config/types.js';
import type { GoldenQuestion } from '../golden/types.js';
import { readManifest } from '../recording/manifest.js';
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
 * The configuration fingerprint written into every JSON report: `sha256:` of the canonical JSON
 * of what decides the result — the tool's version, the command, match mode, seeds, warehouse
 * limits and database names, every golden question, the semantic layer's files, each agent's
 * settings, prompt file and recording manifest, the question selection (not the shard) and the
 * command's own settings. Paths count relative to the config's folder, so CI jobs that check
 * the repository out in different places agree. Shards of one run share it; `replaygate merge`
 * refuses reports whose fingerprints differ.
 */
export async function configFingerprint(config: ProjectConfig, golden: readonly GoldenQuestion[], input: FingerprintInput): Promise<string> {
  const rel = (path: string): string => relative(config.root, path).split('\\').join('/');
  const agents = [];
  for (const name of input.agents) {
    const agent = config.agents.get(name);
    if (agent === undefined) {
      agents.push({ name });
      continue;
    }
    const manifest = await readManifest(agent.recording).catch(() => undefined);
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
      ...(agent.module !== undefined ? { module: { path: rel(agent.module), digest: await fileDigest(agent.module) } } : {}),
      manifest: manifest === undefined ? null : { name: manifest.name, updated: manifest.updated, seeds: manifest.seeds },
    });
  }
  const semantic = [];
  for (const file of config.semanticFiles) semantic.push({ path: rel(file), digest: await fileDigest(file) });
  // Every shard digests every golden question (the whole run's): plain JSON of the loader's
  // objects (their keys are in a fixed order), each source made relative once per file.
  const sources = new Map<string, string>();
  const relSource = (source: string): string => {
    const colon = source.lastIndexOf(':');
    const file = colon > 0 && /^\d+$/.test(source.slice(colon + 1)) ? source.slice(0, colon) : source;
    let relFile = sources.get(file);
    if (relFile === undefined) sources.set(file, (relFile = rel(file)));
    return relFile + source.slice(file.length);
  };
  // `sha256:` of JSON.stringify(questions) hashed question by question: the same bytes, never
  // one string of them all (10,000 questions are megabytes of JSON).
  const questions = createHash('sha256').update('[');
  golden.forEach((q, i) => questions.update(`${i === 0 ? '' : ','}${JSON.stringify({ ...q, source: relSource(q.source) }, jsonSafe)}`));
  const document = {
    v: 1,
    tool: TOOL_NAME,
    kind: input.kind,
    match: input.match,
    seeds: input.seeds ?? null,
    warehouse: {
      maxRows: config.warehouse.maxRows,
      timeoutMs: config.warehouse.timeoutMs,
      databases: [...config.warehouse.databases].map(([name, db]) => [name, 'file' in db ? { ...db, file: rel(db.file), declaredAt: null } : { ...db, declaredAt: null }]),
    },
    golden: `sha256:${questions.update(']').digest('hex')}`,
    semantic,
    agents,
    selection: { split: input.selection.split ?? null, questions: input.selection.questions === undefined ? null : [...input.selection.questions].sort() },
    extra: input.extra ?? null,
  };
  return sha256(stableJson(document));
}

/** JSON.stringify replacer: values JSON has no form for (bigint, NaN) by their text. */
function jsonSafe(_key: string, v: unknown): unknown {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return v;
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
