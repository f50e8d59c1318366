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
import { parseSemanticLayers } from '../semantic/load.js';
import type { SemanticLayer } from '../semantic/types.js';
import { ConfigError } from '../util/errors.js';
import { databaseLabel, SqlError, type DatabaseConfig, type SqlEngine } from '../warehouse/types.js';

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
  const observed = options.onStatement ? observeStatements(project, options.onStatement) : project;
  // One set of golden results for check (a) and the replays of check (c): each golden query runs once.
  const goldenResults = new GoldenResults(observed.config.match, observed.config.warehouse);
  const golden = await checkGolden(observed, goldenResults);
  const metrics = await checkMetrics(observed);
  const replays = await checkReplays(observed, options, goldenResults);
  const databases = [...project.config.warehouse.databases.values()];
  return {
    target: options.target ?? (databases.length === 1 ? databaseLabel(databases[0] as DatabaseConfig) : `${databases.length} databases`),
    golden,
    metrics,
    replays,
    passed: golden.failures.length === 0 && metrics.failures.length === 0 && replays.failures.length === 0 && replays.missingRecordings.length === 0,
  };
}

async function checkGolden(project: Project, goldenResults: GoldenResults): Promise<SchemaCheckReport['golden']> {
  const withSql = project.golden.filter((q) => q.goldenSql !== undefined);
  const failures: GoldenFailure[] = [];
  for (const q of withSql) {
    const result = await goldenResults.get(q, project.engineFor(q));
    if (!result.ok) failures.push({ id: q.id, source: q.source, error: result.sqlError ?? result.error });
  }
  return { checked: withSql.length, failures };
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

async function checkMetrics(project: Project): Promise<SchemaCheckReport['metrics']> {
  const files = project.config.semanticFiles;
  if (files.length === 0) return { queries: 0, metrics: 0, failures: [], failingMetrics: [] };
  const databases = project.config.warehouse.databases;
  const layers = await parseSemanticLayers(files, (db) => (db === undefined ? semanticDialect(databases) : databaseDialect(databases, db)));
  const failures: MetricFailure[] = [];
  let queries = 0;
  let metrics = 0;
  const order: string[] = [];
  for (const layer of layers) {
    const engine = semanticEngine(project, layer);
    const several = layers.length > 1;
    // With several databases a metric is named with its database: `car_1.cars`.
    const label = (metric: string): string => (several && layer.database !== undefined ? `${layer.database}.${metric}` : metric);
    const list = metricCheckQueries(layer);
    queries += list.length;
    metrics += layer.metrics.size;
    order.push(...[...layer.metrics.keys()].map(label));
    for (const query of list) {
      try {
        const { sql } = compileMetricQuery(layer, { metrics: [query.metric], ...(query.dimension ? { group_by: [query.dimension] } : {}) }, engine.dialect);
        // One row is enough to know the statement runs; the full result is not needed.
        await engine.query(sql, { maxRows: 1, timeoutMs: project.config.warehouse.timeoutMs });
      } catch (error) {
        if (!(error instanceof SqlError) && !(error instanceof SemanticQueryError)) throw error;
        failures.push({ metric: label(query.metric), ...(query.dimension ? { dimension: query.dimension } : {}), source: query.source, error: error.message });
      }
    }
  }
  const failing = new Set(failures.map((f) => f.metric));
  return { queries, metrics, failures, failingMetrics: order.filter((m) => failing.has(m)) };
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
async function checkReplays(project: Project, options: SchemaCheckOptions, goldenResults: GoldenResults): Promise<SchemaCheckReport['replays']> {
  const known = new Set(project.golden.map((q) => q.id));
  const failures: ReplayFailure[] = [];
  const missingRecordings: MissingAgentRecording[] = [];
  let checked = 0;
  let orphaned = 0;
  for (const name of options.agents ?? [...project.config.agents.keys()]) {
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
    for (const [seed, questions] of [...bySeed].sort((a, b) => a[0] - b[0])) {
      const runs = await replayAgent(project, name, {
        seeds: [seed],
        questions,
        goldenResults,
        // Only whether each run replays matters here; a failing golden SQL is check (a)'s finding.
        allowBrokenGolden: true,
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
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
      }
    }
  }
  return { checked, failures, orphaned, missingRecordings };
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
