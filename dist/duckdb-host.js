import { createRequire as __replaygateCreateRequire } from 'node:module';
const require = __replaygateCreateRequire(import.meta.url);

// src/util/errors.ts
var ReplaygateError = class extends Error {
  name = "ReplaygateError";
  /** Where the problem is, e.g. `golden/spider.yml:12` or `recordings/x/calls.jsonl:3`. */
  where;
  constructor(message, where) {
    super(where === void 0 ? message : `${where}: ${message}`);
    this.where = where;
  }
};
var ConfigError = class extends ReplaygateError {
  name = "ConfigError";
};
var DataError = class extends ReplaygateError {
  name = "DataError";
};

// src/warehouse/sqlite/wire.ts
function needsEncoding(cell) {
  if (typeof cell === "number") return !Number.isFinite(cell) || Object.is(cell, -0);
  return typeof cell === "bigint" || cell instanceof Uint8Array;
}
function encodeCell(cell) {
  if (typeof cell === "bigint") return { $bigint: cell.toString() };
  if (cell instanceof Uint8Array) return { $bytes: Buffer.from(cell.buffer, cell.byteOffset, cell.byteLength).toString("base64") };
  if (typeof cell === "number" && needsEncoding(cell)) return { $number: Object.is(cell, -0) ? "-0" : String(cell) };
  return cell;
}
function toWire(result, special) {
  if (!special) return result;
  return { ...result, rows: result.rows.map((row) => row.map(encodeCell)), encoded: true };
}

// src/warehouse/types.ts
function qualifiedTableName(table) {
  return table.schema === void 0 ? table.name : `${table.schema}.${table.name}`;
}
var SqlError = class extends Error {
  constructor(message, sql) {
    super(message);
    this.sql = sql;
  }
  sql;
  name = "SqlError";
};
var SqlRefusedError = class extends SqlError {
  name = "SqlRefusedError";
};
var SqlTimeoutError = class extends SqlError {
  constructor(sql, timeoutMs) {
    super(`statement stopped after the ${timeoutMs} ms time limit`, sql);
    this.timeoutMs = timeoutMs;
  }
  timeoutMs;
  name = "SqlTimeoutError";
};

// src/warehouse/duckdb/statements.ts
import { createRequire } from "node:module";
import { join } from "node:path";

// src/warehouse/cells.ts
var MAX_CELL_BYTES = 1 << 20;
var MAX_RESULT_BYTES = 64 << 20;
function integerCell(value) {
  return value >= -Number.MAX_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER ? Number(value) : value;
}
var DECIMAL_TEXT = /^-?\d+(?:\.\d+)?$/;
function decimalCell(text) {
  if (!DECIMAL_TEXT.test(text)) return text;
  const dot = text.indexOf(".");
  const fraction = dot < 0 ? "" : text.slice(dot + 1).replace(/0+$/, "");
  const whole = dot < 0 ? text : text.slice(0, dot);
  if (fraction === "") return integerCell(BigInt(whole));
  const n = Number(text);
  return String(n) === `${whole}.${fraction}` ? n : text;
}
function cellBytes(cell) {
  if (typeof cell === "string") return cell.length;
  if (cell instanceof Uint8Array) return cell.byteLength;
  return 8;
}
var ResultBuilder = class {
  constructor(sql, maxRows) {
    this.sql = sql;
    this.maxRows = maxRows;
  }
  sql;
  maxRows;
  #rows = [];
  #bytes = 0;
  #truncated = false;
  /** True when no further row would be kept: stop reading and flag `truncated` if one exists. */
  get full() {
    return this.#rows.length >= this.maxRows || this.#bytes > MAX_RESULT_BYTES;
  }
  /**
   * Keeps one row, or returns false (and marks the result truncated) when it is full.
   * @throws {SqlError} a value is larger than {@link MAX_CELL_BYTES}.
   */
  push(row) {
    if (this.full) {
      this.#truncated = true;
      return false;
    }
    for (const cell of row) {
      const size = cellBytes(cell);
      if (size > MAX_CELL_BYTES) {
        throw new SqlError(`a value in the result is ${Math.round(size / 1024)} KiB; values over ${MAX_CELL_BYTES / 1024} KiB are refused`, this.sql);
      }
      this.#bytes += size;
    }
    this.#rows.push(row);
    return true;
  }
  /** Marks the result truncated: the engine knows another row exists past the cap. */
  markTruncated() {
    this.#truncated = true;
  }
  result(columns) {
    return { columns, rows: this.#rows, rowCount: this.#rows.length, truncated: this.#truncated };
  }
};

// src/warehouse/files.ts
import { closeSync, openSync, readSync, statSync } from "node:fs";
var ENGINE_NAMES = { sqlite: "SQLite", duckdb: "DuckDB" };
function fileKind(file) {
  let fd;
  try {
    fd = openSync(file, "r");
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    if (n === 0) return "empty";
    if (head.toString("latin1", 0, 16) === "SQLite format 3\0") return "sqlite";
    if (n >= 12 && head.toString("latin1", 8, 12) === "DUCK") return "duckdb";
    return "unknown";
  } catch {
    return "unknown";
  } finally {
    if (fd !== void 0) closeSync(fd);
  }
}
function wrongEngineHint(file, engine) {
  const kind = fileKind(file);
  if (kind === "empty") return " The file is empty.";
  if (kind === "unknown" || kind === engine) return kind === "unknown" ? ` The file is not a ${ENGINE_NAMES[engine]} database.` : "";
  return ` The file is a ${ENGINE_NAMES[kind]} database: set engine: ${kind} for it in replaygate.yml.`;
}

// src/warehouse/duckdb/tree-policy.ts
var DUCKDB_TABLE_FUNCTIONS = /* @__PURE__ */ new Set([
  "range",
  "generate_series",
  "unnest",
  "json_each",
  "json_tree",
  "repeat",
  "repeat_row",
  "duckdb_columns",
  "duckdb_constraints",
  "duckdb_databases",
  "duckdb_dependencies",
  "duckdb_functions",
  "duckdb_indexes",
  "duckdb_keywords",
  "duckdb_schemas",
  "duckdb_sequences",
  "duckdb_tables",
  "duckdb_types",
  "duckdb_views",
  "duckdb_settings",
  "pragma_table_info",
  "pragma_show",
  "pragma_version",
  "pragma_platform",
  "pragma_collations",
  "pragma_database_size",
  "pragma_storage_info",
  "pg_timezone_names",
  "icu_calendar_names",
  "test_all_types"
]);
var PATH_LIKE = /[/\\]|:\/\/|\.(csv|tsv|txt|parquet|json|jsonl|ndjson|gz|zst|xlsx|arrow|feather|avro|db|sqlite|sqlite3|duckdb)$/i;
var DUCKDB_MAX_BUILT_ELEMENTS = 1e4;
var SIZED_BUILDERS = {
  range: "range",
  generate_series: "range",
  repeat: 1,
  list_resize: 1,
  array_resize: 1,
  lpad: 1,
  rpad: 1
};
function literal(node) {
  if (node === null || typeof node !== "object") return void 0;
  const n = node;
  if (n["class"] === "CONSTANT") {
    const v = n["value"]?.["value"];
    const x = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
    return Number.isFinite(x) ? x : void 0;
  }
  if (n["class"] === "FUNCTION" && n["function_name"] === "-" && Array.isArray(n["children"]) && n["children"].length === 1) {
    const x = literal(n["children"][0]);
    return x === void 0 ? void 0 : -x;
  }
  if (n["class"] === "CAST") return literal(n["child"]);
  return void 0;
}
function rangeSize(name, args) {
  if (args.some((a2) => a2 === void 0) || args.length === 0 || args.length > 3) return void 0;
  const [a, b, c] = args;
  const [start, stop, step] = args.length === 1 ? [0, a, 1] : [a, b, c ?? 1];
  if (step === 0) return 0;
  const span = (stop - start) / step + (name === "generate_series" ? 1 : 0);
  return Math.max(0, Math.ceil(span));
}
function treeReads(tree) {
  const tableFunctions = [];
  const baseTables = [];
  const sizedCalls = [];
  const walk = (node, inSized = false) => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, inSized);
      return;
    }
    if (node === null || typeof node !== "object") return;
    const n = node;
    if (n["type"] === "TABLE_FUNCTION") {
      const fn = n["function"];
      if (typeof fn?.["function_name"] === "string") tableFunctions.push(fn["function_name"].toLowerCase());
      walk(fn?.["children"], inSized);
      for (const [key, value] of Object.entries(n)) if (key !== "function") walk(value, inSized);
      return;
    }
    if (n["type"] === "BASE_TABLE" && typeof n["table_name"] === "string") baseTables.push(n["table_name"]);
    let sizedHere = false;
    if (n["class"] === "FUNCTION" && typeof n["function_name"] === "string" && Array.isArray(n["children"])) {
      const name = n["function_name"].toLowerCase();
      const sized = SIZED_BUILDERS[name];
      const args = n["children"];
      const nested = inSized ? { nested: true } : {};
      if (sized === "range") sizedCalls.push({ name, size: rangeSize(name, args.map(literal)), ...nested });
      else if (sized !== void 0 && args.length > sized) sizedCalls.push({ name, size: literal(args[sized]), ...nested });
      sizedHere = sized !== void 0;
    }
    for (const value of Object.values(n)) walk(value, inSized || sizedHere);
  };
  walk(tree);
  return { tableFunctions, baseTables, sizedCalls };
}
function treeRefusal(reads, tables) {
  const fn = reads.tableFunctions.find((name) => !DUCKDB_TABLE_FUNCTIONS.has(name));
  if (fn !== void 0) {
    return `the table function ${fn}() is refused: only functions that compute rows or read this database's catalogue may run (files, URLs and SQL strings are out of bounds)`;
  }
  const path = reads.baseTables.find((name) => PATH_LIKE.test(name) && !tables.has(name.toLowerCase()));
  if (path !== void 0) return `'${path}' names a file or URL, not a table of the database; reading files is refused`;
  const big = (reads.sizedCalls ?? []).find((c) => c.nested === true || c.size === void 0 || c.size > DUCKDB_MAX_BUILT_ELEMENTS);
  if (big !== void 0) {
    const why = `a list or string one call builds is allocated outside DuckDB's memory limit, so its size must be a number literal of at most ${DUCKDB_MAX_BUILT_ELEMENTS.toLocaleString("en-US")}`;
    if (big.nested === true) return `${big.name}() inside another call that builds a list or string is refused: their sizes multiply, and ${why}`;
    const alternative = big.name === "range" || big.name === "generate_series" ? ` (the table function FROM ${big.name}(…) streams its rows under the limit)` : "";
    return big.size === void 0 ? `${big.name}() with a size that is not a number literal is refused: ${why}${alternative}` : `${big.name}() building ${big.size.toLocaleString("en-US")} elements is refused: ${why}${alternative}`;
  }
  return void 0;
}

// src/warehouse/duckdb/values.ts
var TYPE = {
  BOOLEAN: 1,
  TINYINT: 2,
  SMALLINT: 3,
  INTEGER: 4,
  BIGINT: 5,
  UTINYINT: 6,
  USMALLINT: 7,
  UINTEGER: 8,
  UBIGINT: 9,
  FLOAT: 10,
  DOUBLE: 11,
  HUGEINT: 16,
  UHUGEINT: 32,
  VARCHAR: 17,
  BLOB: 18,
  DECIMAL: 19,
  ENUM: 23
};
var asNumber = (v) => v === null ? null : Number(v);
var asInteger = (v) => v === null ? null : typeof v === "bigint" ? integerCell(v) : Number(v);
var asText = (v) => v === null ? null : String(v);
function converterFor(typeId) {
  switch (typeId) {
    case TYPE.BOOLEAN:
      return (v) => v === null ? null : v ? 1 : 0;
    case TYPE.TINYINT:
    case TYPE.SMALLINT:
    case TYPE.INTEGER:
    case TYPE.UTINYINT:
    case TYPE.USMALLINT:
    case TYPE.UINTEGER:
    case TYPE.FLOAT:
    case TYPE.DOUBLE:
      return asNumber;
    case TYPE.BIGINT:
    case TYPE.UBIGINT:
    case TYPE.HUGEINT:
    case TYPE.UHUGEINT:
      return asInteger;
    case TYPE.DECIMAL:
      return (v) => v === null ? null : decimalCell(String(v));
    case TYPE.VARCHAR:
    case TYPE.ENUM:
      return asText;
    case TYPE.BLOB:
      return (v) => v === null ? null : new Uint8Array(v.bytes);
    default:
      return asText;
  }
}

// src/warehouse/duckdb/statements.ts
var DUCKDB_PACKAGE = "@duckdb/node-api@1.5.6-r.1";
var LOCKED_DOWN = {
  enable_external_access: "false",
  autoinstall_known_extensions: "false",
  autoload_known_extensions: "false",
  allow_community_extensions: "false",
  allow_unsigned_extensions: "false",
  max_temp_directory_size: "0B",
  lock_configuration: "true"
};
var STATEMENT = { SELECT: 1, INSERT: 2, UPDATE: 3, DELETE: 5, CREATE: 7, ALTER: 9, TRANSACTION: 10, CREATE_FUNC: 14, DROP: 15, MERGE_INTO: 30 };
var STATEMENT_NAMES = [
  "INVALID",
  "SELECT",
  "INSERT",
  "UPDATE",
  "EXPLAIN",
  "DELETE",
  "PREPARE",
  "CREATE",
  "EXECUTE",
  "ALTER",
  "TRANSACTION",
  "COPY",
  "ANALYZE",
  "VARIABLE_SET",
  "CREATE_FUNC",
  "DROP",
  "EXPORT",
  "PRAGMA",
  "VACUUM",
  "CALL",
  "SET",
  "LOAD",
  "RELATION",
  "EXTENSION",
  "LOGICAL_PLAN",
  "ATTACH",
  "DETACH",
  "MULTI",
  "COPY_DATABASE",
  "UPDATE_EXTENSIONS",
  "MERGE_INTO"
];
var MIGRATION_TYPES = /* @__PURE__ */ new Set([
  STATEMENT.INSERT,
  STATEMENT.UPDATE,
  STATEMENT.DELETE,
  STATEMENT.CREATE,
  STATEMENT.ALTER,
  STATEMENT.TRANSACTION,
  STATEMENT.CREATE_FUNC,
  STATEMENT.DROP,
  STATEMENT.MERGE_INTO
]);
var SEARCH_FROM = () => [import.meta.url, join(process.cwd(), "package.json")];
function missingPackage(reason) {
  return new ConfigError(
    `a DuckDB database is configured but @duckdb/node-api cannot be loaded (${reason}). Install it next to replaygate or in the project: npm install ${DUCKDB_PACKAGE} (in the GitHub Action, in a step before replaygate; see docs/warehouse.md).`
  );
}
var api;
function duckdbApi() {
  if (api !== void 0) return api;
  const reasons = [];
  for (const from of SEARCH_FROM()) {
    try {
      api = createRequire(from)("@duckdb/node-api");
      return api;
    } catch (error) {
      reasons.push(error.message.split("\n")[0] ?? "");
    }
  }
  throw missingPackage(reasons.at(-1));
}
function isDuckdbError(error) {
  return error instanceof Error && !(error instanceof ReplaygateError) && !(error instanceof TypeError) && DUCKDB_ERROR.test(error.message);
}
var DUCKDB_ERROR = /^(?:Failed to extract statements: )?[A-Za-z][\w ]* Error: /;
var statementName = (type) => STATEMENT_NAMES[type] ?? `type ${type}`;
function duckdbSqlError(error, sql, resources) {
  if (/^Out of Memory Error/i.test(error.message)) {
    return new SqlError(
      `the statement needs more memory than this DuckDB database may use (memory_limit_mb: ${resources.memoryLimitMb} MiB; raise it in the database's warehouse settings if the query is meant to): ${error.message}`,
      sql
    );
  }
  return new SqlError(error.message.replace(/^Failed to extract statements: /, ""), sql);
}
var DuckdbDatabase = class {
  /**
   * Opens `file` now (read-only unless `writable`: a migration's temporary copy).
   * @throws {ConfigError} @duckdb/node-api cannot be loaded.
   */
  constructor(file, writable, resources) {
    this.file = file;
    this.writable = writable;
    this.resources = resources;
    const { DuckDBInstance } = duckdbApi();
    const limits = { memory_limit: `${resources.memoryLimitMb}MiB`, threads: String(resources.threads) };
    const options = writable ? { ...limits, ...LOCKED_DOWN } : { access_mode: "READ_ONLY", ...limits, ...LOCKED_DOWN };
    this.#instance = DuckDBInstance.create(file, options).catch((error) => {
      if (!(error instanceof Error)) throw error;
      throw new DataError(`cannot open the DuckDB database: ${error.message.split("\n")[0]}.${wrongEngineHint(file, "duckdb")}`, file);
    });
    this.#instance.catch(() => void 0);
  }
  file;
  writable;
  resources;
  #instance;
  #connection;
  #tables;
  #known;
  /** Settles when the file is open (or failed to open). */
  async opened() {
    await this.#instance.catch(() => void 0);
  }
  /**
   * Runs `work` on the warm connection under the time limit: DuckDB is interrupted at
   * `timeoutMs` and the connection replaced. A statement that ignores the interrupt never
   * returns here; the parent kills this process then.
   */
  async #limited(sql, timeoutMs, work) {
    const connection = this.#connection ??= await (await this.#instance).connect();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      connection.interrupt();
    }, timeoutMs);
    try {
      return await work(connection);
    } catch (error) {
      if (timedOut) throw new SqlTimeoutError(sql, timeoutMs);
      if (isDuckdbError(error)) throw duckdbSqlError(error, sql, this.resources);
      throw error;
    } finally {
      clearTimeout(timer);
      if (timedOut && this.#connection === connection) {
        this.#connection = void 0;
        connection.closeSync();
      }
    }
  }
  /**
   * One read: a user's statement (`internal` false) is checked by DuckDB's statement
   * extraction, its statement type and its parse tree (table functions, file-like table names,
   * sized builders) first; `bindParameter` is what the parent's text rule found.
   */
  async read(sql, options) {
    const tables = options.internal ? /* @__PURE__ */ new Set() : await this.#knownTables(options.timeoutMs);
    return this.#limited(sql, options.timeoutMs, async (connection) => {
      if (!options.internal) await checkTree(connection, sql, tables);
      const prepared = await prepareOne(connection, sql);
      try {
        if (prepared.statementType !== STATEMENT.SELECT) {
          throw new SqlRefusedError(`only one read-only statement may run; DuckDB reads this one as ${statementName(prepared.statementType)}`, sql);
        }
        if (prepared.parameterCount > 0 || options.bindParameter !== void 0) {
          throw new SqlRefusedError(`the statement has a bind parameter (${options.bindParameter ?? `$${prepared.parameterName(1)}`}), and a recorded answer has no values to bind`, sql);
        }
        return await readChunks(prepared, sql, options.maxRows);
      } finally {
        prepared.destroySync();
      }
    });
  }
  /**
   * One migration statement on the writable copy (the parent checked its text first: one
   * statement of an allowed kind). DuckDB's parser rewrites a few single statements into
   * several — `ALTER TABLE … ADD COLUMN c … DEFAULT (expression)` becomes BEGIN, ADD COLUMN,
   * UPDATE (filling the column), SET DEFAULT, COMMIT — so each statement DuckDB makes of it is
   * prepared once the one before has run (the UPDATE names the new column), checked against
   * the migration's statement types and run; a failure rolls DuckDB's transaction back.
   */
  async write(sql, timeoutMs) {
    await this.#limited(sql, timeoutMs, async (connection) => {
      const extracted = await extractAll(connection, sql);
      try {
        for (let i = 0; i < extracted.count; i++) {
          const prepared = await extracted.prepare(i);
          try {
            if (!MIGRATION_TYPES.has(prepared.statementType)) {
              const as = extracted.count === 1 ? "reads it as" : `runs it as ${extracted.count} statements, one of them`;
              throw new SqlRefusedError(`DuckDB ${as} ${statementName(prepared.statementType)}, which a migration may not run`, sql);
            }
            await prepared.run();
          } finally {
            prepared.destroySync();
          }
        }
      } catch (error) {
        if (extracted.count > 1) await connection.run("ROLLBACK").catch(() => void 0);
        throw error;
      }
    });
  }
  /** Tables and views with columns and keys, read once (the file does not change under a reader). */
  tables(timeoutMs) {
    this.#tables ??= readTables(async (sql) => (await this.read(sql, { maxRows: Number.MAX_SAFE_INTEGER, timeoutMs, internal: true })).result);
    this.#tables.catch(() => this.#tables = void 0);
    return this.#tables;
  }
  #knownTables(timeoutMs) {
    this.#known ??= this.tables(timeoutMs).then((tables) => new Set(tables.map((t) => qualifiedTableName(t).toLowerCase())));
    this.#known.catch(() => this.#known = void 0);
    return this.#known;
  }
  /** Closes the connection and the instance (a writable copy is checkpointed). */
  async close() {
    this.#connection?.closeSync();
    this.#connection = void 0;
    (await this.#instance.catch(() => void 0))?.closeSync();
  }
};
async function extractAll(connection, sql) {
  const extracted = await connection.extractStatements(sql);
  if (extracted.count === 0) throw new SqlRefusedError("DuckDB finds no statement here (only comments or semicolons)", sql);
  return extracted;
}
async function prepareOne(connection, sql) {
  const extracted = await extractAll(connection, sql);
  if (extracted.count !== 1) {
    throw new SqlRefusedError(`DuckDB's parser rewrites this one statement into ${extracted.count} statements, and a read must run as exactly one`, sql);
  }
  return extracted.prepare(0);
}
async function checkTree(connection, sql, tables) {
  const reader = await connection.runAndReadAll("SELECT json_serialize_sql($1::VARCHAR)", [sql]);
  const tree = JSON.parse(String(reader.getRows()[0]?.[0] ?? "{}"));
  if (tree.error === true) {
    if (tree.error_type === "parser") return;
    throw new SqlRefusedError("DuckDB cannot show this statement as a tree (e.g. PIVOT inside a query), so what it reads cannot be checked; write it without", sql);
  }
  const refusal = treeRefusal(treeReads(tree), tables);
  if (refusal !== void 0) throw new SqlRefusedError(refusal, sql);
}
async function readChunks(prepared, sql, maxRows) {
  const result = await prepared.stream();
  const columns = result.columnNames();
  const convert = result.columnTypes().map((type) => converterFor(type.typeId));
  const builder = new ResultBuilder(sql, maxRows);
  let special = false;
  for (; ; ) {
    const chunk = await result.fetchChunk();
    if (chunk === null || chunk.rowCount === 0) break;
    for (let r = 0; r < chunk.rowCount; r++) {
      if (builder.full) {
        builder.markTruncated();
        return { result: builder.result(columns), special };
      }
      const row = chunk.getRowValues(r).map((value, c) => convert[c](value));
      if (!special) special = row.some(needsEncoding);
      builder.push(row);
    }
  }
  return { result: builder.result(columns), special };
}
var COLUMNS_SQL = `SELECT schema_name, table_name, column_name, data_type
FROM duckdb_columns() WHERE database_name = current_database() AND NOT internal
ORDER BY table_oid, column_index`;
var KEYS_SQL = `SELECT schema_name, table_name, constraint_type, unnest(constraint_column_names) AS column_name,
  unnest(CASE WHEN constraint_type = 'FOREIGN KEY' THEN referenced_column_names ELSE constraint_column_names END) AS ref_column, referenced_table
FROM duckdb_constraints() WHERE database_name = current_database() AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')
ORDER BY table_oid, constraint_index`;
async function readTables(run) {
  const defaultSchema = await run("SELECT current_schema()");
  const columns = await run(COLUMNS_SQL);
  const keys = await run(KEYS_SQL);
  const home = String(defaultSchema.rows[0]?.[0] ?? "main");
  const key = (schema, table) => `${schema}${table}`;
  const primary = /* @__PURE__ */ new Set();
  const foreign = /* @__PURE__ */ new Map();
  for (const [schema, table, type, column, refColumn, refTable] of keys.rows) {
    const k = key(schema, table);
    if (type === "PRIMARY KEY") primary.add(`${k}${column}`);
    else {
      const list = foreign.get(k) ?? [];
      list.push({ column, refTable: schema === home ? refTable : `${schema}.${refTable}`, refColumn });
      foreign.set(k, list);
    }
  }
  const tables = /* @__PURE__ */ new Map();
  for (const [schema, table, column, type] of columns.rows) {
    const k = key(schema, table);
    let entry = tables.get(k);
    if (entry === void 0) {
      entry = { name: table, ...schema === home ? {} : { schema }, columns: [], foreignKeys: foreign.get(k) ?? [] };
      tables.set(k, entry);
    }
    entry.columns.push({ name: column, type, primaryKey: primary.has(`${k}${column}`) });
  }
  return [...tables.values()];
}

// src/warehouse/duckdb/duckdb-host.ts
var MEMORY_CHECK_MS = 5;
var config = JSON.parse(process.argv[2] ?? "{}");
var send = (reply, then) => void process.send?.(reply, void 0, void 0, then);
var die = () => void process.kill(process.pid, "SIGKILL");
process.on("disconnect", die);
function failure(error) {
  const e = error instanceof Error ? error : new Error(String(error));
  const kind = e instanceof SqlTimeoutError ? "timeout" : e instanceof SqlRefusedError ? "refused" : e instanceof SqlError ? "sql" : e.name === "DataError" ? "open" : e instanceof ReplaygateError ? "config" : "bug";
  return kind === "bug" ? { kind, message: e.message, stack: e.stack ?? "" } : { kind, message: e.message };
}
var database;
try {
  database = new DuckdbDatabase(config.file, config.writable, config);
} catch (error) {
  send({ fatal: failure(error) }, die);
}
var watch;
function checkMemory() {
  const rss = process.memoryUsage.rss();
  if (rss <= config.capBytes) return;
  clearInterval(watch);
  send({ memory: rss }, die);
  setTimeout(die, 200);
}
async function answer(database2, request) {
  switch (request.op) {
    case "read": {
      const { result, special } = await database2.read(request.sql, {
        // JSON has no Infinity: a request without a row cap says null.
        maxRows: request.maxRows ?? Number.MAX_SAFE_INTEGER,
        timeoutMs: request.timeoutMs,
        internal: request.internal,
        bindParameter: request.bindParameter
      });
      return { id: request.id, result: toWire(result, special) };
    }
    case "tables":
      return { id: request.id, tables: await database2.tables(request.timeoutMs) };
    case "write":
      await database2.write(request.sql, request.timeoutMs);
      return { id: request.id, done: true };
    case "close":
      await database2.close();
      return { id: request.id, done: true };
  }
}
process.on("message", (request) => {
  if (database === void 0) return;
  watch = setInterval(checkMemory, MEMORY_CHECK_MS);
  answer(database, request).then(
    (reply) => {
      clearInterval(watch);
      send(reply);
    },
    (error) => {
      clearInterval(watch);
      send({ id: request.id, error: failure(error) });
    }
  );
});
void database?.opened().then(() => send({ ready: true }));
