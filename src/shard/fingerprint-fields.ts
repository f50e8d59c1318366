/**
 * Every key of `replaygate.yml`, in or out of the configuration fingerprint
 * (src/shard/fingerprint.ts), and why. docs/fingerprint.md shows the same table, and
 * test/shard/fingerprint-fields.test.ts checks both against the config loader's keys
 * (src/config/load.ts): a key added to the loader fails the test until it is placed here.
 *
 * `in` means the key's value (or, for a file, its content) is a part of the fingerprint of every
 * command that reads it; `in for …` names the commands that read it; `out` is never in it.
 * `<name>` stands for a database's or an agent's name.
 */
export interface FingerprintField {
  readonly counted: 'in' | 'out' | 'in for gate' | 'in for gate and confidence' | 'in for confidence';
  readonly why: string;
}

export const FINGERPRINT_FIELDS: Readonly<Record<string, FingerprintField>> = {
  'warehouse.engine': { counted: 'in', why: "each database's engine (its default): the engine runs every statement and sets the prompts' dialect" },
  'warehouse.path': { counted: 'in', why: "the database `main`: as `warehouse.databases.<name>.path`" },
  'warehouse.url_env': { counted: 'in', why: 'the database `main` on PostgreSQL: as `warehouse.databases.<name>.url_env`' },
  'warehouse.migration_url_env': { counted: 'in', why: 'as `warehouse.databases.<name>.migration_url_env`' },
  'warehouse.max_connections': { counted: 'out', why: 'as `warehouse.databases.<name>.max_connections`' },
  'warehouse.memory_limit_mb': { counted: 'in', why: 'as `warehouse.databases.<name>.memory_limit_mb`' },
  'warehouse.threads': { counted: 'in', why: 'as `warehouse.databases.<name>.threads`' },
  'warehouse.databases.<name>': {
    counted: 'in',
    why: 'a file path (the short form of `path`): the name is what golden questions and semantic files name; the file as `path`',
  },
  'warehouse.databases.<name>.engine': { counted: 'in', why: 'the engine runs every statement, and its dialect is in the prompts and the semantic SQL' },
  'warehouse.databases.<name>.path': {
    counted: 'in',
    why: 'the SHA-256 of the file\'s bytes (SQLite, DuckDB), streamed: the data every statement reads; the path, relative to the config\'s folder, names the part',
  },
  'warehouse.databases.<name>.url_env': {
    counted: 'in',
    why: "the variable's name and the target its URL names: host, port, database, user and the `options` parameter, never the password; what the server holds is the user's to keep equal between shards",
  },
  'warehouse.databases.<name>.migration_url_env': { counted: 'in', why: 'the variable and its target, as `url_env`: `check --migration` applies the migration through it' },
  'warehouse.databases.<name>.max_connections': {
    counted: 'out',
    why: 'how many statements run at once; each statement runs alone in its read-only transaction and returns the same rows',
  },
  'warehouse.databases.<name>.memory_limit_mb': { counted: 'in', why: 'a DuckDB statement over the limit fails' },
  'warehouse.databases.<name>.threads': {
    counted: 'in',
    why: 'DuckDB may return an unordered result in another order with other threads (the default, up to 4 by the runner\'s cores, is the runner\'s and not counted)',
  },
  'warehouse.max_rows': { counted: 'in', why: 'rows kept per statement: a longer result is truncated' },
  'warehouse.timeout_ms': { counted: 'in', why: 'a statement past it is an error' },
  'warehouse.isolation': { counted: 'in', why: '`inline` cannot stop a statement at its time limit: a slow statement answers instead of failing' },
  'warehouse.memo': {
    counted: 'out',
    why: 'a remembered result is the statement\'s own (statements whose result can change between executions are never remembered): it changes how often a statement runs, not what it returns',
  },
  golden: { counted: 'in', why: 'each file\'s content (CRLF read as LF, as the YAML parser does) and the files\' order: the questions and their order' },
  semantic: { counted: 'in', why: "each file's content (CRLF read as LF) and order: the metrics a tools agent queries and `check` runs" },
  match: { counted: 'in', why: 'decides every outcome (and `--match`, which replaces it)' },
  seeds: { counted: 'in', why: 'the seeds replayed (and `--seeds`, which replaces them)' },
  'agents.<name>': { counted: 'in', why: 'the agents the command runs (the name labels its parts)' },
  'agents.<name>.kind': { counted: 'in', why: 'which agent loop runs' },
  'agents.<name>.model': { counted: 'in', why: "in every request, so in every recorded call's key" },
  'agents.<name>.prompt': {
    counted: 'in',
    why: "its bytes: its text, line ends included, is in the requests and so in the keys (for `kind: command`, the agent's own file)",
  },
  'agents.<name>.recording': {
    counted: 'in',
    why: 'the folder, relative to the config, and its manifest (CRLF read as LF), which every record, import and upgrade rewrites; the calls themselves are not hashed (their size)',
  },
  'agents.<name>.temperature': { counted: 'in', why: 'in every request' },
  'agents.<name>.top_p': { counted: 'in', why: 'in every request' },
  'agents.<name>.max_tokens': { counted: 'in', why: 'in every request' },
  'agents.<name>.max_calls': { counted: 'in', why: 'a tools agent past it stops: `step_limit`' },
  'agents.<name>.golden': { counted: 'in', why: 'the questions the agent answers (the files themselves are counted under `golden`)' },
  'agents.<name>.tool_rows': { counted: 'in', why: "rows of a result shown to the model: in the next request's key" },
  'agents.<name>.module': {
    counted: 'in',
    why: "the module's content, CRLF read as LF (JavaScript reads them alike, a template literal's text included); files it imports are not counted",
  },
  'agents.<name>.options': { counted: 'in', why: "the custom agent's own settings" },
  'agents.<name>.command': {
    counted: 'in',
    why: 'the argv as written, and the folder it runs in relative to the config (never the runner\'s absolute path); the interpreter on PATH, its packages and the environment are the runner\'s and not counted',
  },
  'agents.<name>.timeout_ms': { counted: 'in', why: 'a run past it is an error' },
  'agents.<name>.concurrency': {
    counted: 'out',
    why: 'each run has its own process and its own endpoint (replies by key, calls kept in key order): runs at once change when a run ends, never what it answers (as `--concurrency`)',
  },
  'agents.<name>.ignore_fields': { counted: 'in', why: 'the request fields left out of the keys: which recorded call answers a request' },
  gate: { counted: 'in for gate', why: 'the gate rules decide the verdict (the CLI also counts the rules as parsed); no other command reads them' },
  'confidence.thresholds': {
    counted: 'in for gate and confidence',
    why: "the file's content (YAML: CRLF read as LF): confidence gates with it; `gate` (not `--base-ref`) and the Action's gate print a note about it",
  },
  'confidence.definitions': {
    counted: 'in for confidence',
    why: "each definitions file's content (CRLF read as LF), folders listed and sorted as loaded; `--definitions` replaces them",
  },
  judge: { counted: 'out', why: 'no sharded command reads it (`confidence` reads no judge recordings: its report says so)' },
  report: { counted: 'out', why: 'reserved: it takes no key yet' },
};
