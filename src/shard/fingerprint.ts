import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ProjectConfig } from '../config/types.js';
import { MANIFEST_FILE } from '../recording/manifest.js';
import { TOOL_NAME } from '../version.js';
import type { DatabaseConfig } from '../warehouse/types.js';
import { fileDigest, sha256, type FileReading } from './file-digest.js';

/**
 * A configuration fingerprint: the digest written into every JSON report (`fingerprint`), and
 * the digest of each part it is made of (`shard.configuration` of a shard's report), so that
 * `replaygate merge` can say which part differs between two shards, not only that they differ.
 */
export interface Fingerprint {
  /** `sha256:` of every part: the report's `fingerprint`. */
  readonly digest: string;
  /** Part → `sha256:` of that part, keyed by what the merge names: `warehouse file warehouse/x.sqlite (database x)`. */
  readonly parts: Readonly<Record<string, string>>;
}

/** A file a command reads besides the config's own (a labels file, a migration, a runs file). */
export interface FingerprintFile {
  /** What it is, as the merge names it: `labels file`, `migration file`. */
  readonly label: string;
  /** Absolute path. */
  readonly file: string;
  /** `text` when its reader treats CRLF as LF (YAML, JSON, CSV), else `bytes`. */
  readonly reading: FileReading;
}

/** What a fingerprinted run covers: its command, agents and question selection, and command-specific settings. */
export interface FingerprintInput {
  readonly kind: string;
  /** Agents whose configuration, prompt and recording manifest count. */
  readonly agents: readonly string[];
  readonly match: string;
  readonly seeds: readonly number[] | undefined;
  /** Question selection before sharding (`--split`, `--questions`). */
  readonly selection: { readonly split?: string; readonly questions?: ReadonlySet<string> | readonly string[] };
  /** Files the command reads besides those the config names (labels, definitions, migration, runs files). */
  readonly files?: readonly FingerprintFile[];
  /** Anything else that changes the result (gate rules, side names, command flags): one part per key. */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** Where PostgreSQL URLs are read from (default `process.env`, as the warehouse reads them). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Commands whose result the `gate:` section decides (the CLI's gate also passes its parsed rules, flags applied). */
const READS_GATE_RULES = new Set(['gate', 'gate-base-ref']);
/** Commands that read `confidence.thresholds`: confidence gates with it; `gate` and the Action's gate print a note about it (`gate --base-ref` does not). */
const READS_THRESHOLDS = new Set(['gate', 'confidence']);

/**
 * The configuration fingerprint of a run: the digest of what decides its result, part by part.
 * Shards of one run share it; `replaygate merge` refuses reports whose fingerprints differ and
 * names the parts that do. Every key of `replaygate.yml` is in or out of it for a stated reason
 * (src/shard/fingerprint-fields.ts, shown in docs/fingerprint.md; test/shard/fingerprint-fields.test.ts
 * checks it against the config loader's keys and changes each key on disk):
 *
 * - the tool's version, the command, match mode, seeds, the question selection (not the shard)
 *   and the command's own settings (`extra`, one part per key) and files (`files`);
 * - the warehouse's limits (`max_rows`, `timeout_ms`, `isolation`) and each database: a SQLite
 *   or DuckDB file by the SHA-256 of its bytes (streamed; its settings `memory_limit_mb` and
 *   `threads` with it), a PostgreSQL database by its variable's name and the connection target
 *   its URL names (host, port, database, user — never the password; the server's data is the
 *   user's to keep equal between shards);
 * - each golden and semantic file's content and their order; each agent's settings (those of
 *   `kind: command` too: `command`, its folder, `timeout_ms`, `ignore_fields`), prompt, module
 *   and recording manifest; the `gate:` rules and the thresholds file for the commands that read them.
 *
 * Nothing in it depends on where the project is checked out (paths count relative to the
 * config's folder; a file outside it by its name and content), on line ends (a file whose reader
 * treats CRLF as LF counts so: YAML, JSON, JavaScript; a prompt counts by its bytes, which are in
 * the requests and so in the keys), on the order a folder is listed in (files are sorted by the
 * loader), or on the environment (but for the PostgreSQL target, which is the warehouse's
 * identity). Files count by their content, not by what was loaded from them: every shard reads
 * them all the same, so a golden question of another shard edited, or a recording re-recorded,
 * imported or upgraded (its manifest rewritten) between two shards, still changes the
 * fingerprint — for a few reads and hashes instead of serialising every question (issue #13:
 * each shard's fixed cost).
 */
export async function configFingerprint(config: ProjectConfig, input: FingerprintInput): Promise<Fingerprint> {
  const parts = new Parts();
  const path = (file: string): string => portablePath(config.root, file);
  parts.add('replaygate version', TOOL_NAME);
  parts.add('command', input.kind);
  parts.add('match mode', input.match);
  parts.add('seed list', input.seeds ?? null);
  const questions = input.selection.questions === undefined ? null : [...input.selection.questions].sort();
  parts.add('question selection (--split, --questions)', { split: input.selection.split ?? null, questions });
  // `memo` is out: a remembered result is the statement's own (statements whose result can change
  // between executions are never remembered), so it changes how often a statement runs, not what it returns.
  parts.add('warehouse limits (max_rows, timeout_ms, isolation)', {
    maxRows: config.warehouse.maxRows,
    timeoutMs: config.warehouse.timeoutMs,
    // `inline` cannot stop a statement at its time limit: a slow statement answers instead of failing.
    isolation: config.warehouse.isolation,
  });
  // Each distinct file is read once, however many databases (or agents, for a shared prompt) name it.
  const digests = new Map<string, Promise<string>>();
  const digestOnce = (file: string, reading: FileReading): Promise<string> => {
    const key = `${reading}\0${file}`;
    let digest = digests.get(key);
    if (digest === undefined) digests.set(key, (digest = fileDigest(file, reading)));
    return digest;
  };
  const content = (file: string): Promise<string> => digestOnce(file, 'bytes');
  for (const [name, db] of config.warehouse.databases) {
    const part = await databasePart(name, db, path, content, input.env ?? process.env);
    parts.add(part.label, part.value);
  }
  parts.add('golden files and their order', await fileParts(parts, 'golden file', config.goldenFiles, path, 'text'));
  parts.add('semantic files and their order', await fileParts(parts, 'semantic file', config.semanticFiles, path, 'text'));
  for (const name of input.agents) {
    const agent = config.agents.get(name);
    if (agent === undefined) {
      parts.add(`configuration of agent ${name}`, 'not configured');
      continue;
    }
    parts.add(`configuration of agent ${name}`, {
      kind: agent.kind,
      model: agent.model,
      temperature: agent.temperature,
      topP: agent.topP,
      maxTokens: agent.maxTokens,
      maxCalls: agent.maxCalls,
      // tools: tool_rows; module: its own settings
      options: agent.options,
      recording: path(agent.recording),
      golden: agent.golden === undefined ? null : agent.golden.map(path),
      // kind: command. `concurrency` is out: each run has its own process and its own endpoint
      // (replies by the run's key, its calls in key order), so runs at once change when a run
      // ends, never what it answers; like `--concurrency`, a runner's choice.
      command: agent.command ?? null,
      cwd: agent.cwd === undefined ? null : path(agent.cwd),
      timeoutMs: agent.timeoutMs ?? null,
      ignoreFields: agent.ignoreFields ?? null,
    });
    // A prompt's line ends are in the messages it renders, so in the requests' keys: its bytes count.
    // (For kind: command it is the agent's own file, e.g. a script, whose line ends may matter to its interpreter.)
    parts.add(`prompt ${path(agent.prompt)} of agent ${name}`, await digestOnce(agent.prompt, 'bytes'));
    // JavaScript reads CRLF as LF (ECMA-262, "Template Literal Lexical Components": even a template's text has LF for CR LF).
    if (agent.module !== undefined) parts.add(`module ${path(agent.module)} of agent ${name}`, await digestOnce(agent.module, 'text'));
    const manifest = join(agent.recording, MANIFEST_FILE);
    parts.add(`recording manifest ${path(manifest)} of agent ${name}`, await fileDigest(manifest, 'text'));
  }
  if (READS_GATE_RULES.has(input.kind)) parts.add('gate rules (gate:)', config.gate);
  const thresholds = config.confidence['thresholds'];
  if (READS_THRESHOLDS.has(input.kind) && typeof thresholds === 'string' && thresholds.trim() !== '') {
    const file = resolve(config.root, thresholds);
    parts.add(`confidence thresholds file ${path(file)}`, await fileDigest(file, 'text'));
  }
  for (const f of input.files ?? []) parts.add(`${f.label} ${path(f.file)}`, await fileDigest(f.file, f.reading));
  for (const [key, value] of Object.entries(input.extra ?? {})) parts.add(`command setting ${key}`, value);
  return parts.fingerprint();
}

/**
 * The fingerprint of a run that writes no JSON report (no `--json`): a fingerprint appears only
 * there, so nothing is read or hashed for it (a warehouse file of gigabytes costs seconds).
 */
export const UNREPORTED: Fingerprint = { digest: 'none (no JSON report written)', parts: {} };

/**
 * The fingerprint of a run that opened no project (a gate of two runs files): one part per key
 * of `values`, and one per file (paths relative to `root`).
 */
export async function fingerprintWithoutProject(values: Readonly<Record<string, unknown>>, files: readonly FingerprintFile[] = [], root = process.cwd()): Promise<Fingerprint> {
  const parts = new Parts();
  parts.add('replaygate version', TOOL_NAME);
  for (const [key, value] of Object.entries(values)) parts.add(key, value);
  for (const f of files) parts.add(`${f.label} ${portablePath(root, f.file)}`, await fileDigest(f.file, f.reading));
  return parts.fingerprint();
}

/**
 * The fingerprint of a run over two projects (a gate's base and head): each side's parts
 * named with the side (`golden file golden/a.yml on the base`), and `values`, one part per key.
 * @example combinedFingerprint({ head, base: baseAtRef }, { 'base commit': sha })
 */
export function combinedFingerprint(sides: Readonly<Record<string, Fingerprint>>, values: Readonly<Record<string, unknown>> = {}): Fingerprint {
  const parts = new Parts();
  for (const [key, value] of Object.entries(values)) parts.add(key, value);
  for (const [side, fingerprint] of Object.entries(sides)) {
    for (const [label, digest] of Object.entries(fingerprint.parts)) parts.addDigest(`${label} on the ${side}`, digest);
  }
  return parts.fingerprint();
}

/**
 * A path as every checkout names it: relative to the project's folder with `/` separators, or,
 * outside it (where the runner's own folders would show), the file's name and that it is outside.
 * @example portablePath('/home/runner/work/r/r', '/home/runner/work/r/r/golden/a.yml') // 'golden/a.yml'
 */
export function portablePath(root: string, file: string): string {
  const rel = relative(root, file);
  if (rel === '') return '.';
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return `${basename(file)} (outside the project)`;
  return rel.split(sep).join('/');
}

/** The parts of a fingerprint, by label; a label given twice (two files outside the project of one name) gets a number. */
class Parts {
  private readonly digests: Record<string, string> = {};

  add(label: string, value: unknown): string {
    return this.addDigest(label, sha256(stableJson(value)));
  }

  addDigest(label: string, digest: string): string {
    let key = label;
    for (let n = 2; Object.hasOwn(this.digests, key); n++) key = `${label} (${n})`;
    this.digests[key] = digest;
    return key;
  }

  fingerprint(): Fingerprint {
    return { digest: sha256(stableJson({ v: 3, parts: this.digests })), parts: { ...this.digests } };
  }
}

/** One part per file (content as `reading` says) and the list of their labels, in order: the value of the list's own part. */
async function fileParts(parts: Parts, label: string, files: readonly string[], path: (file: string) => string, reading: FileReading): Promise<string[]> {
  const digests = await Promise.all(files.map((file) => fileDigest(file, reading)));
  return files.map((file, i) => parts.addDigest(`${label} ${path(file)}`, digests[i] as string));
}

/** A database's part: a file by its content and engine settings; PostgreSQL by its variable and target. */
async function databasePart(
  name: string,
  db: DatabaseConfig,
  path: (file: string) => string,
  content: (file: string) => Promise<string>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ label: string; value: unknown }> {
  if (db.engine === 'postgres') {
    return {
      label: `warehouse database ${name} (PostgreSQL, $${db.urlEnv})`,
      // max_connections is out: how many statements run at once, not what they return.
      value: {
        engine: db.engine,
        urlEnv: db.urlEnv,
        target: postgresTarget(env[db.urlEnv]),
        migrationUrlEnv: db.migrationUrlEnv ?? null,
        migrationTarget: db.migrationUrlEnv === undefined ? null : postgresTarget(env[db.migrationUrlEnv]),
      },
    };
  }
  return {
    label: `warehouse file ${path(db.file)} (database ${name})`,
    // DuckDB: a statement over the memory limit fails, and the threads may order an unordered result otherwise.
    value: { engine: db.engine, memoryLimitMb: 'memoryLimitMb' in db ? (db.memoryLimitMb ?? null) : null, threads: 'threads' in db ? (db.threads ?? null) : null, content: await content(db.file) },
  };
}

/**
 * What a PostgreSQL URL connects to, without its secrets: host (lower case), port (default
 * 5432), database (default: the user's name, as libpq does), user and the `options` parameter
 * (a `search_path` there changes which tables a statement reads). The password and the other
 * parameters (TLS files, timeouts, application name) are left out: they change how the
 * connection is made, not what it reads. What the server holds is not known here.
 * @example postgresTarget('postgres://ro:secret@DB.example:6432/sales?sslmode=require') // { host: 'db.example', port: '6432', database: 'sales', user: 'ro', options: null }
 */
export function postgresTarget(url: string | undefined): unknown {
  if (url === undefined || url.trim() === '') return 'not set';
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return 'not a URL';
  }
  const param = (key: string): string | null => parsed.searchParams.get(key);
  const decode = (text: string): string => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  const user = param('user') ?? decode(parsed.username);
  return {
    host: (param('host') ?? decode(parsed.hostname)).toLowerCase(),
    port: param('port') ?? (parsed.port || '5432'),
    database: param('dbname') ?? (decode(parsed.pathname.replace(/^\//, '')) || user),
    user,
    options: param('options'),
  };
}

/** JSON with object keys sorted at every depth; values JSON has no form for (bigint, NaN) count by their text. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return `${v}n`;
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
    if (v instanceof Set) return [...(v as Set<unknown>)];
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  }) ?? 'undefined';
}
