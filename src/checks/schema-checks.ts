import { recordingHint } from '../config/load.js';
import type { GoldenQuestion } from '../golden/types.js';
import { GoldenResults } from '../pipeline/golden-results.js';
import { databaseDialect, semanticDialect, type Project } from '../pipeline/project.js';
import { replayAgent } from '../pipeline/replay.js';
import { hasManifest, MANIFEST_FILE } from '../recording/manifest.js';
import { Recording } from '../recording/recording.js';
import { compileMetricQuery } from '../semantic/compile.js';
import { SemanticQueryError } from '../semantic/errors.js';
import { availableDimensions } from '../semantic/graph.js';
import { parseSemanticLayers, validateAgainstWarehouse } from '../semantic/load.js';
import type { SemanticLayer } from '../semantic/types.js';
import { ConfigError } from '../util/errors.js';
import { databaseLabel, SqlError, type DatabaseConfig, type SqlEngine } from '../warehouse/types.js';
import { inShard, type Shard } from '../shard/shard.js';

/** A golden question whose SQL does not run. */
export interface GoldenFailure {
  readonly id: string;
  /** `golden/x.yml:12`. */
  readonly source: string;
  readonly error: string;
}

/** A metric query that does not compile or run: the metric alone (`dimension` undefined) or grouped by one dimension. */
export interface MetricFailure {
  readonly metric: string;
  readonly dimension?: string;
  /** `semantic/metrics.yml:40`. */
  readonly source: string;
  readonly error: string;
}

/** A join of the semantic layer on a table or column the warehouse does not have. */
export interface JoinFailure {
  /** The alias the join introduces (its `as:`, else its `to:` table). */
  readonly join: string;
  /** `semantic/metrics.yml:27`. */
  readonly source: string;
  readonly error: string;
}

/** A recorded run that does not replay (MissingRecording), never skipped. */
export interface ReplayFailure {
  readonly agent: string;
  readonly recording: string;
  readonly questionId: string;
  readonly seed: number;
  /** 0-based model call that had no recording. */
  readonly callIndex: number;
  /** The MissingRecording message (nearest recorded request and its diff). */
  readonly detail: string;
}

/** A configured agent with no recording to replay: a failing replay check (its runs cannot be checked). */
export interface MissingAgentRecording {
  readonly agent: string;
  /** The agent's `recording:` folder (absolute). */
  readonly folder: string;
  /** What is missing, e.g. `manifest.yml missing`. */
  readonly problem: string;
  /** What to do, naming the config key as the config has it (`or set agents.x.recording in replaygate.yml …`). */
  readonly hint?: string;
}

/** Result of the three schema checks (SPEC §9). `passed` only when every failure list is empty. */
export interface SchemaCheckReport {
  /** What was checked: the warehouse label, or the migration applied to a copy of it. */
  readonly target: string;
  readonly golden: { readonly checked: number; readonly failures: readonly GoldenFailure[] };
  readonly metrics: {
    /** Metric queries run: each metric alone and grouped by each of its dimensions. */
    readonly queries: number;
    readonly metrics: number;
    readonly failures: readonly MetricFailure[];
    /** Failing metric names, in definition order. */
    readonly failingMetrics: readonly string[];
    /**
     * Joins that name a table or column the warehouse does not have, whether or not a metric or
     * dimension uses them yet (a join no query follows today is followed by the next one).
     */
    readonly joinFailures: readonly JoinFailure[];
  };
  readonly replays: {
    readonly checked: number;
    readonly failures: readonly ReplayFailure[];
    /** Recorded runs of questions that are no longer golden questions (not replayed, reported). */
    readonly orphaned: number;
    /**
     * Configured agents without a recording (no `manifest.yml` in their `recording:` folder, e.g.
     * a typo in the path): failures, like runs that do not replay.
     */
    readonly missingRecordings: readonly MissingAgentRecording[];
  };
  readonly passed: boolean;
}

export interface SchemaCheckOptions {
  /** Human label of what is checked (default: the warehouse's database files). */
  readonly target?: string;
  /** Only these agents' recordings (default: every agent of the config). */
  readonly agents?: readonly string[];
  /** Runs in flight at once while replaying (default 8). */
  readonly concurrency?: number;
  /** Called for every statement the checks run (golden, metric and replayed agent SQL), with its duration in ms. */
  readonly onStatement?: (sql: string, database: string, ms: number) => void;
  /**
   * Check only this shard: the golden questions and recorded runs of the questions in it, and
   * the metric queries in it (a metric query's shard is fixed by its metric and dimension).
   */
  readonly shard?: Shard;
  /**
   * Called as the checks advance, for a progress display: once when a phase starts (`done` 0)
   * and after each of its statements or runs. Phases come in order (golden SQL, metrics,
   * replays); a phase with nothing to check may not be announced.
   */
  readonly onProgress?: (progress: SchemaCheckProgress) => void;
}

/** How far a phase of the schema checks is: `done` of `total` golden queries, metric queries or recorded runs. */
export interface SchemaCheckProgress {
  readonly phase: 'golden' | 'metrics' | 'replays';
  readonly done: number;
  readonly total: number;
}

/**
 * Where each failure of a report stands in the unsharded check's order (golden order; metric
 * query order; agent, seed, golden order), for merging the reports of shards; and the metrics
 * in definition order.
 */
export interface SchemaCheckRanks {
  readonly golden: readonly (readonly number[])[];
  readonly metrics: readonly (readonly number[])[];
  readonly replays: readonly (readonly number[])[];
  readonly metricOrder: readonly string[];
  /** Shard keys of every metric query (see {@link metricQueryId}), in order. */
  readonly metricQueries: readonly string[];
}

/** The shard key of a metric query. */
export function metricQueryId(query: { readonly metric: string; readonly dimension?: string }): string {
  return query.dimension === undefined ? `metric:${query.metric}` : `metric:${query.metric}:${query.dimension}`;
}

/**
 * The schema checks of the chapter ("Catch a schema change before users do", SPEC §9), against
 * the project's warehouse (open the project on a migrated copy to check a migration):
 * (a) every golden SQL runs; (b) every metric compiles and runs, alone and grouped by each of
 * its dimensions (time dimensions at every grain); (c) every recorded run replays — a
 * MissingRecording is a failure, never a skip, and so is a configured agent with no recording
 * (as `score` and `gate` fail on it). No model is called.
 *
 * @throws ConfigError when a semantic file names a database the warehouse does not have, or has
 *   no `database:` while the warehouse has several databases and none named `main`.
 * @throws DataError naming file and line for an invalid semantic layer file.
 * @example (await runSchemaChecks(project)).passed // true on the unchanged Chinook example
 */
export async function runSchemaChecks(project: Project, options: SchemaCheckOptions = {}): Promise<SchemaCheckReport> {
  return (await runRankedSchemaChecks(project, options)).report;
}

/** {@link runSchemaChecks}, with where each failure stands in the unsharded order (for `--shard`). */
export async function runRankedSchemaChecks(project: Project, options: SchemaCheckOptions = {}): Promise<{ report: SchemaCheckReport; ranks: SchemaCheckRanks }> {
  const observed = options.onStatement ? observeStatements(project, options.onStatement) : project;
  // One set of golden results for check (a) and the replays of check (c): each golden query runs once.
  const goldenResults = new GoldenResults(observed.config.match, observed.config.warehouse);
  const golden = await checkGolden(observed, goldenResults, options.shard, options.onProgress);
  const metrics = await checkMetrics(observed, options.shard, options.onProgress);
  const replays = await checkReplays(observed, options, goldenResults);
  const databases = [...project.config.warehouse.databases.values()];
  return {
    report: {
      target: options.target ?? (databases.length === 1 ? databaseLabel(databases[0] as DatabaseConfig) : `${databases.length} databases`),
      golden: golden.result,
      metrics: metrics.result,
      replays: replays.result,
      passed: isPassed(golden.result, metrics.result, replays.result),
    },
    ranks: { golden: golden.ranks, metrics: metrics.ranks, replays: replays.ranks, metricOrder: metrics.order, metricQueries: metrics.ids },
  };
}

/** Whether every failure list of the three checks is empty. */
export function isPassed(golden: SchemaCheckReport['golden'], metrics: SchemaCheckReport['metrics'], replays: SchemaCheckReport['replays']): boolean {
  return golden.failures.length === 0 && metrics.failures.length === 0 && metrics.joinFailures.length === 0 && replays.failures.length === 0 && replays.missingRecordings.length === 0;
}

type OnProgress = SchemaCheckOptions['onProgress'];

async function checkGolden(project: Project, goldenResults: GoldenResults, shard: Shard | undefined, onProgress: OnProgress): Promise<{ result: SchemaCheckReport['golden']; ranks: number[][] }> {
  const position = new Map(project.golden.map((q, i) => [q.id, i]));
  const withSql = project.golden.filter((q) => q.goldenSql !== undefined && inShard(q.id, shard));
  let done = 0;
  const total = withSql.length;
  onProgress?.({ phase: 'golden', done, total });
  // Every golden query is sent at once (the hosts run them while this process waits); failures keep golden order.
  const results = await Promise.all(withSql.map((q) => goldenResults.get(q, project.engineFor(q)).finally(() => onProgress?.({ phase: 'golden', done: ++done, total }))));
  const failures: GoldenFailure[] = [];
  const ranks: number[][] = [];
  withSql.forEach((q, i) => {
    const result = results[i];
    if (result !== undefined && !result.ok) {
      failures.push({ id: q.id, source: q.source, error: result.sqlError ?? result.error });
      ranks.push([position.get(q.id) ?? 0]);
    }
  });
  return { result: { checked: withSql.length, failures }, ranks };
}

/** The metric queries the check runs: each metric alone, then grouped by each available dimension (time dimensions at each grain). */
export function metricCheckQueries(layer: SemanticLayer): { metric: string; dimension?: string; source: string }[] {
  const out: { metric: string; dimension?: string; source: string }[] = [];
  for (const m of layer.metrics.values()) {
    out.push({ metric: m.name, source: m.source });
    for (const d of availableDimensions(layer, m)) {
      const refs = d.type === 'time' ? d.grains.map((g) => `${d.name}__${g}`) : [d.name];
      for (const ref of refs) out.push({ metric: m.name, dimension: ref, source: m.source });
    }
  }
  return out;
}

async function checkMetrics(project: Project, shard: Shard | undefined, onProgress: OnProgress): Promise<{ result: SchemaCheckReport['metrics']; ranks: number[][]; order: string[]; ids: string[] }> {
  const files = project.config.semanticFiles;
  if (files.length === 0) return { result: { queries: 0, metrics: 0, failures: [], failingMetrics: [], joinFailures: [] }, ranks: [], order: [], ids: [] };
  const databases = project.config.warehouse.databases;
  const layers = await parseSemanticLayers(files, (db) => (db === undefined ? semanticDialect(databases) : databaseDialect(databases, db)));
  // Each layer's database first: a wrong `database:` fails every shard, whatever queries it holds.
  const engines = new Map(layers.map((layer) => [layer, semanticEngine(project, layer)]));
  const several = layers.length > 1;
  // Every layer's metric queries in check order; with several databases a metric is named with its database: `car_1.cars`.
  const all = layers.flatMap((layer) => {
    const label = (metric: string): string => (several && layer.database !== undefined ? `${layer.database}.${metric}` : metric);
    return metricCheckQueries(layer).map((query) => ({ layer, query, label: label(query.metric) }));
  });
  const order = layers.flatMap((layer) => [...layer.metrics.keys()].map((m) => (several && layer.database !== undefined ? `${layer.database}.${m}` : m)));
  const ids = all.map(({ query, label }) => metricQueryId({ metric: label, ...(query.dimension ? { dimension: query.dimension } : {}) }));
  // A join on a column that does not exist is a failure even when no metric or dimension uses it
  // (the same in every shard: a merge takes the first shard's).
  const joinFailures: JoinFailure[] = [];
  for (const layer of layers) {
    const joinNames = new Set(layer.joins.keys());
    for (const p of validateAgainstWarehouse(layer, await (engines.get(layer) as SqlEngine).listTables())) {
      if (joinNames.has(p.definition) && p.message.startsWith('join ')) {
        joinFailures.push({ join: several && layer.database !== undefined ? `${layer.database}.${p.definition}` : p.definition, source: p.where, error: p.message });
      }
    }
  }
  const failures: MetricFailure[] = [];
  const ranks: number[][] = [];
  let queries = 0;
  const total = ids.filter((id) => inShard(id, shard)).length;
  onProgress?.({ phase: 'metrics', done: 0, total });
  for (const [index, { layer, query, label }] of all.entries()) {
    if (!inShard(ids[index] as string, shard)) continue;
    queries += 1;
    const engine = engines.get(layer) as SqlEngine;
    try {
      const { sql } = compileMetricQuery(layer, { metrics: [query.metric], ...(query.dimension ? { group_by: [query.dimension] } : {}) }, engine.dialect);
      // One row is enough to know the statement runs; the full result is not needed.
      await engine.query(sql, { maxRows: 1, timeoutMs: project.config.warehouse.timeoutMs });
    } catch (error) {
      if (!(error instanceof SqlError) && !(error instanceof SemanticQueryError)) throw error;
      failures.push({ metric: label, ...(query.dimension ? { dimension: query.dimension } : {}), source: query.source, error: error.message });
      ranks.push([index]);
    }
    onProgress?.({ phase: 'metrics', done: queries, total });
  }
  const failing = new Set(failures.map((f) => f.metric));
  const metrics = layers.reduce((n, layer) => n + layer.metrics.size, 0);
  return { result: { queries, metrics, failures, failingMetrics: order.filter((m) => failing.has(m)), joinFailures }, ranks, order, ids };
}

/**
 * The database a semantic layer runs on: its files' `database:`, else the only database, or
 * the one named `main`.
 * @throws ConfigError naming the semantic file when that database is not in the warehouse, or
 *   when a layer without `database:` has several databases and none named `main` to run on.
 */
function semanticEngine(project: Project, layer: SemanticLayer): SqlEngine {
  const names = [...project.config.warehouse.databases.keys()];
  const file = layer.files[0] ?? project.config.file;
  if (layer.database !== undefined) {
    if (!names.includes(layer.database)) {
      throw new ConfigError(`'database: ${layer.database}' is not a database of the warehouse (${names.join(', ')}); name one of them`, file);
    }
    return project.warehouse.engine(layer.database);
  }
  const name = names.length === 1 ? names[0] : names.includes('main') ? 'main' : undefined;
  if (name === undefined) {
    throw new ConfigError(
      `this semantic file has no 'database:' and the warehouse has ${names.length} databases (${names.join(', ')}), none named 'main': add 'database: <name>' at the top of the file`,
      file,
    );
  }
  return project.warehouse.engine(name);
}

/**
 * Golden results for the replay check, shared by every agent and seed. The replay check reads
 * only whether each recorded run replays, not its score; a golden query that fails (listed by
 * the golden-SQL check) scores as an empty result instead of stopping the replay, as it does in
 * `score` and `gate`.
 */
async function checkReplays(project: Project, options: SchemaCheckOptions, goldenResults: GoldenResults): Promise<{ result: SchemaCheckReport['replays']; ranks: number[][] }> {
  const known = new Set(project.golden.map((q) => q.id));
  const position = new Map(project.golden.map((q, i) => [q.id, i]));
  const ranks: number[][] = [];
  const failures: ReplayFailure[] = [];
  const missingRecordings: MissingAgentRecording[] = [];
  let checked = 0;
  let orphaned = 0;
  const agents = options.agents ?? [...project.config.agents.keys()];
  // First what each agent's recording holds (so the progress total is known), then the replays.
  const plans: { agentIndex: number; name: string; bySeed: [number, Set<string>][] }[] = [];
  for (const [agentIndex, name] of agents.entries()) {
    const config = project.config.agents.get(name);
    if (!config) throw new ConfigError(`no agent '${name}' in ${project.config.file} (known: ${[...project.config.agents.keys()].join(', ')})`);
    if (!(await hasManifest(config.recording))) {
      missingRecordings.push({ agent: name, folder: config.recording, problem: `${MANIFEST_FILE} missing`, hint: recordingHint(config, project.config.file) });
      continue;
    }
    const recording = await Recording.open(config.recording);
    // Replay exactly the recorded (question, seed) pairs, grouped by seed.
    const bySeed = new Map<number, Set<string>>();
    try {
      for (const run of recording.runs()) {
        if (!inShard(run.questionId, options.shard)) continue;
        if (!known.has(run.questionId)) {
          orphaned += 1;
          continue;
        }
        const set = bySeed.get(run.seed) ?? new Set<string>();
        set.add(run.questionId);
        bySeed.set(run.seed, set);
      }
    } finally {
      recording.close();
    }
    plans.push({ agentIndex, name, bySeed: [...bySeed].sort((a, b) => a[0] - b[0]) });
  }
  const total = plans.reduce((n, p) => n + p.bySeed.reduce((m, [, questions]) => m + questions.size, 0), 0);
  options.onProgress?.({ phase: 'replays', done: 0, total });
  for (const { agentIndex, name, bySeed } of plans) {
    for (const [seed, questions] of bySeed) {
      const before = checked;
      const runs = await replayAgent(project, name, {
        seeds: [seed],
        questions,
        goldenResults,
        // Only whether each run replays matters here; a failing golden SQL is check (a)'s finding.
        allowBrokenGolden: true,
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
        ...(options.onProgress ? { onRun: (_run: unknown, done: number) => options.onProgress?.({ phase: 'replays', done: before + done, total }) } : {}),
      });
      checked += runs.length;
      for (const run of runs) {
        if (run.outcome !== 'missing_recording') continue;
        failures.push({
          agent: name,
          recording: run.recording,
          questionId: run.questionId,
          seed: run.seed,
          callIndex: run.calls,
          detail: run.detail ?? '',
        });
        ranks.push([agentIndex, seed, position.get(run.questionId) ?? 0]);
      }
    }
  }
  return { result: { checked, failures, orphaned, missingRecordings }, ranks };
}

/** The project with every engine wrapped to report each statement and its duration. */
function observeStatements(project: Project, onStatement: NonNullable<SchemaCheckOptions['onStatement']>): Project {
  const wrapped = new Map<SqlEngine, SqlEngine>();
  const wrap = (engine: SqlEngine): SqlEngine => {
    let w = wrapped.get(engine);
    if (!w) {
      w = {
        ...engine,
        query: async (sql, options) => {
          const start = performance.now();
          try {
            return await engine.query(sql, options);
          } finally {
            onStatement(sql, engine.label, performance.now() - start);
          }
        },
        listTables: () => engine.listTables(),
        distinctValues: (t, c, l) => engine.distinctValues(t, c, l),
        close: () => engine.close(),
      };
      wrapped.set(engine, w);
    }
    return w;
  };
  return {
    ...project,
    engineFor: (question) => wrap(project.engineFor(question)),
    warehouse: { ...project.warehouse, engine: (name) => wrap(project.warehouse.engine(name)) },
    agent: (name) => project.agent(name),
    close: () => project.close(),
  };
}
