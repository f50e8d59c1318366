/**
 * Hostile configuration of the engines and agent kinds added after the first suite: the
 * `warehouse:` engine keys (engine, url_env, per-database settings), PostgreSQL reached through
 * an unset, malformed or unreachable URL, a SQLite file opened as DuckDB, `kind: command`
 * agents (argv lists, missing programs, limits, paths outside the project), an agent's `golden:`
 * scope, and the `confidence:` section with its thresholds file. Run through `score` and
 * `check`: every command loads the config the same way.
 */
import { buildMini } from './fixtures.js';
import { fixtureOnce, hostileSuite, type HostileCase } from './harness.js';

const mini = fixtureOnce(buildMini);
const score = ['score', '--no-progress'];
const cfg = 'replaygate.yml';
const DB_LINE = '    concert_singer: warehouse/concert_singer.sqlite';

/** A case that edits replaygate.yml and expects `score` to refuse it naming `names`. */
const bad = (name: string, edit: (text: string) => string, names: readonly (string | RegExp)[], extra: Partial<HostileCase> = {}): HostileCase => ({
  name,
  setup: (p) => {
    p.edit(cfg, edit);
  },
  args: score,
  names,
  ...extra,
});

/** The database entry as a mapping. */
const db = (body: string) => (t: string): string => t.replace(DB_LINE, `    concert_singer: {${body}}`);
/** The `base` agent's block replaced by a `kind: command` agent. */
const commandAgent = (body: string) => (t: string): string =>
  t.replace('  base:\n    kind: sql\n    model: gpt-4\n    prompt: prompts/sql.md\n', `  base:\n    kind: command\n${body}`);

hostileSuite('replaygate.yml warehouse engines', mini, [
  bad('warehouse.engine: mysql', (t) => t.replace('  databases:', '  engine: mysql\n  databases:'), [/replaygate\.yml:2/, "'warehouse.engine' must be one of sqlite, duckdb, postgres", '"mysql"']),
  bad('warehouse.engnie (typo)', (t) => t.replace('  databases:', '  engnie: duckdb\n  databases:'), [/replaygate\.yml:2/, "unknown key 'warehouse.engnie'", "did you mean 'engine'?"]),
  bad('a database entry with an unknown key (paht)', db('engine: sqlite, paht: warehouse/concert_singer.sqlite'), [/replaygate\.yml:3/, "'warehouse.databases.concert_singer.paht'", "did you mean 'path'?"]),
  bad('a database entry of engine oracle', db('engine: oracle, path: warehouse/concert_singer.sqlite'), ["'warehouse.databases.concert_singer.engine' must be one of"]),
  bad('a database entry without path', db('engine: sqlite'), ["'warehouse.databases.concert_singer' needs path"]),
  bad('a database entry that is a list', (t) => t.replace(DB_LINE, '    concert_singer: [a, b]'), ["'warehouse.databases.concert_singer' must be a file path or a mapping", 'a list']),
  bad('PostgreSQL without url_env', db('engine: postgres'), ["needs url_env"]),
  bad('PostgreSQL with a path', db('engine: postgres, path: x.sqlite, url_env: PG_URL'), ['takes url_env', 'not path']),
  bad('PostgreSQL url_env holding a URL, not a variable name', db('engine: postgres, url_env: "postgres://u:secret@h/db"'), ['must name an environment variable'], {
    check: (r) => {
      if (r.output.includes('secret')) throw new Error('the URL was printed');
    },
  }),
  bad('PostgreSQL max_connections: 1000', db('engine: postgres, url_env: PG_URL, max_connections: 1000'), ["'warehouse.databases.concert_singer.max_connections'", 'from 1 to 100']),
  bad('PostgreSQL max_connections: "four"', db('engine: postgres, url_env: PG_URL, max_connections: four'), ["max_connections'", '"four"']),
  bad('max_connections on a SQLite database', db('engine: sqlite, path: warehouse/concert_singer.sqlite, max_connections: 4'), ['applies to PostgreSQL databases only']),
  bad('warehouse.engine: postgres with a plain file entry', (t) => t.replace('  databases:', '  engine: postgres\n  databases:'), ['is a file path, but warehouse.engine is postgres']),
  bad('migration_url_env without url_env', (t) => t.replace('  databases:', '  migration_url_env: PG_MIGRATE\n  databases:'), ["'warehouse.migration_url_env' goes with warehouse.url_env"]),
  bad('PostgreSQL: the variable is not set', db('engine: postgres, url_env: PG_URL'), ['PG_URL', 'is not set']),
  bad('PostgreSQL: the variable holds no URL', db('engine: postgres, url_env: PG_URL'), ['$PG_URL', 'not a postgres://'], {
    env: { PG_URL: 'host=localhost password=secret' },
    check: (r) => {
      if (r.output.includes('secret')) throw new Error('the URL was printed');
    },
  }),
  bad('PostgreSQL: nothing listens at the URL', db('engine: postgres, url_env: PG_URL'), ['cannot connect to PostgreSQL', 'concert_singer'], {
    env: { PG_URL: 'postgres://user:secret@127.0.0.1:1/none' },
    check: (r) => {
      if (r.output.includes('secret')) throw new Error('the password was printed');
    },
  }),
  bad('a SQLite file declared as DuckDB', db('engine: duckdb, path: warehouse/concert_singer.sqlite'), ['concert_singer.sqlite', 'engine: sqlite']),
  bad('a DuckDB path that is a folder', db('engine: duckdb, path: warehouse'), [/warehouse/]),
]);

hostileSuite('replaygate.yml agents and sections', mini, [
  bad('kind: command with the command as one string', commandAgent('    command: "python3 agent.py"\n    prompt: prompts/sql.md\n'), [/replaygate\.yml:\d+/, "'command' must be a list (argv, no shell)"]),
  bad('kind: command with an empty command list', commandAgent('    command: []\n    prompt: prompts/sql.md\n'), ["'command' must be a non-empty list"]),
  bad('kind: command, comand (typo)', commandAgent('    comand: [python3, a.py]\n    prompt: prompts/sql.md\n'), ["unknown key 'agents.base.comand'", "did you mean 'command'?"]),
  bad('kind: command, timeout_ms: 5', commandAgent('    command: [sh, prompts/sql.md]\n    timeout_ms: 5\n'), ["'timeout_ms' must be a whole number from 100"]),
  bad('kind: command, concurrency: 0', commandAgent('    command: [sh, prompts/sql.md]\n    concurrency: 0\n'), ["'concurrency' must be a whole number from 1 to 64"]),
  bad('kind: command whose arguments name no file and no prompt:', commandAgent('    command: [sh, -c, "exit 0"]\n'), ["none of the command's arguments is a file"]),
  bad('kind: command whose program is not on PATH', commandAgent('    command: [no-such-program-xyz, prompts/sql.md]\n'), ['no-such-program-xyz', 'not found on PATH']),
  bad('a command key on a sql agent', (t) => t.replace('    model: gpt-4\n', '    model: gpt-4\n    command: [python3, a.py]\n'), ["unknown key 'agents.base.command'", "'command' is only for kind: command"]),
  bad('tool_rows on a sql agent', (t) => t.replace('    model: gpt-4\n', '    model: gpt-4\n    tool_rows: 5\n'), ["unknown key 'agents.base.tool_rows'", "'tool_rows' is only for kind: tools"]),
  bad('kind: lambda', (t) => t.replace('    kind: sql\n', '    kind: lambda\n'), ["'kind' must be sql, tools, module, command", '"lambda"']),
  bad('an agent golden: scope outside the golden files', (t) => t.replace('    recording: recordings/base\n', '    recording: recordings/base\n    golden: prompts/sql.md\n'), ["'agents.base.golden' names prompts/sql.md", "not one of the project's golden files"]),
  bad('an agent golden: scope that does not exist', (t) => t.replace('    recording: recordings/base\n', '    recording: recordings/base\n    golden: golden/nope.yml\n'), ["'agents.base.golden' names golden/nope.yml, which does not exist"]),
  bad('confidence: threshold (typo)', (t) => `${t}confidence:\n  threshold: t.yml\n`, [/replaygate\.yml:\d+/, "unknown key 'confidence.threshold'", "did you mean 'thresholds'?"]),
  bad('confidence.thresholds outside the project', (t) => `${t}confidence:\n  thresholds: ../t.yml\n`, ["'confidence.thresholds' must name a file or folder inside the project"], { args: ['gate', '--base', 'base', '--candidate', 'candidate', '--no-progress'] }),
  {
    name: 'confidence.thresholds: a file that is not a thresholds file',
    setup: (p) => {
      p.write('t.yml', 'rule: [unclosed\n');
      p.edit(cfg, (t) => `${t}confidence:\n  thresholds: t.yml\n`);
    },
    args: ['gate', '--base', 'base', '--candidate', 'candidate', '--no-progress'],
    names: [/t\.yml:\d+/],
  },
  {
    name: 'confidence.thresholds: a thresholds file with a typo',
    setup: (p) => {
      p.write('t.yml', 'schema_version: 1\nkind: replaygate-confidence-thresholds\npass_ta: 0.8\n');
      p.edit(cfg, (t) => `${t}confidence:\n  thresholds: t.yml\n`);
    },
    args: ['gate', '--base', 'base', '--candidate', 'candidate', '--no-progress'],
    names: [/t\.yml:\d+/, "unknown key 'pass_ta'", "did you mean 'pass_at'?"],
  },
  bad('confidence.definitions: a number', (t) => `${t}confidence:\n  definitions: 5\n`, ["'confidence.definitions' must be a file or folder"], { args: ['confidence', '-a', 'base', '--no-progress'] }),
  {
    name: 'a command argument outside the project is refused, naming it',
    setup: (p) => {
      p.edit(cfg, commandAgent('    command: [sh, /etc/hostname]\n    prompt: prompts/sql.md\n'));
    },
    args: score,
    // a command agent's program and path arguments must be inside the project (the CLI too)
    exit: 2,
    names: ["agent 'base'", '/etc/hostname', 'outside the project'],
  },
]);
