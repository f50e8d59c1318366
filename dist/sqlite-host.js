import { createRequire as __replaygateCreateRequire } from 'node:module';
const require = __replaygateCreateRequire(import.meta.url);

// src/warehouse/sqlite/connections.ts
var ConnectionCache = class {
  constructor(driver2, writable = false) {
    this.driver = driver2;
    this.writable = writable;
  }
  driver;
  writable;
  #open = /* @__PURE__ */ new Map();
  /** The connection of `file`. @throws the driver's error when the file is not a usable database. */
  get(file) {
    let open = this.#open.get(file);
    if (open === void 0) {
      open = this.driver.open(file, this.writable);
      try {
        [...open.prepareRead("SELECT count(*) FROM sqlite_schema").rows()];
      } catch (error) {
        open.close();
        throw error;
      }
      this.#open.set(file, open);
    }
    return open;
  }
  /** Closes the connection of `file`, if open. */
  close(file) {
    this.#open.get(file)?.close();
    this.#open.delete(file);
  }
  closeAll() {
    for (const c of this.#open.values()) c.close();
    this.#open.clear();
  }
};

// src/warehouse/sqlite/drivers.ts
import { createRequire } from "node:module";

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

// src/warehouse/sql-text.ts
function isSpace(code) {
  return code === 32 || code >= 9 && code <= 13;
}
function isWordChar(code) {
  return code >= 97 && code <= 122 || code >= 65 && code <= 90 || code >= 48 && code <= 57 || code === 95 || code === 36 || code >= 128;
}
var DOLLAR_TAG = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/u;
function tokenize(sql, dialect = "sqlite") {
  const pg = dialect !== "sqlite";
  const tokens = [];
  let depth = 0;
  const closingQuote = (start, quote, backslash = false) => {
    let i2 = start + 1;
    for (; ; ) {
      const next = backslash ? nextQuoteOrBackslash(sql, i2, quote) : sql.indexOf(quote, i2);
      if (next < 0) return sql.length;
      if (backslash && sql[next] === "\\") {
        i2 = next + 2;
        continue;
      }
      if (quote !== "]" && sql[next + 1] === quote) i2 = next + 2;
      else return next + 1;
    }
  };
  const blockCommentEnd = (start) => {
    if (!pg) {
      const close = sql.indexOf("*/", start + 2);
      return close < 0 ? sql.length : close + 2;
    }
    let nesting = 0;
    let i2 = start;
    while (i2 < sql.length) {
      if (sql.startsWith("/*", i2)) {
        nesting++;
        i2 += 2;
      } else if (sql.startsWith("*/", i2)) {
        nesting--;
        i2 += 2;
        if (nesting === 0) return i2;
      } else i2++;
    }
    return sql.length;
  };
  let i = sql.charCodeAt(0) === 65279 ? 1 : 0;
  while (i < sql.length) {
    const code = sql.charCodeAt(i);
    const c = sql[i];
    if (isSpace(code)) {
      i++;
      continue;
    }
    if (sql.startsWith("--", i)) {
      const eol = sql.indexOf("\n", i);
      i = eol < 0 ? sql.length : eol + 1;
      continue;
    }
    if (sql.startsWith("/*", i)) {
      i = blockCommentEnd(i);
      continue;
    }
    let end;
    let kind;
    const previous = sql[i - 1];
    const afterWord = previous !== void 0 && isWordChar(previous.charCodeAt(0));
    if (c === "'") [kind, end] = ["string", closingQuote(i, "'")];
    else if (c === '"') [kind, end] = ["double-quoted", closingQuote(i, '"')];
    else if (pg && (c === "E" || c === "e") && sql[i + 1] === "'" && !afterWord) [kind, end] = ["string", closingQuote(i + 1, "'", true)];
    else if (pg && (c === "U" || c === "u") && sql[i + 1] === "&" && (sql[i + 2] === '"' || sql[i + 2] === "'") && !afterWord) {
      const quote = sql[i + 2];
      [kind, end] = [quote === '"' ? "identifier" : "string", closingQuote(i + 2, quote)];
    } else if (pg && c === "$" && !afterWord && DOLLAR_TAG.test(sql.slice(i, i + 66))) {
      const tag = DOLLAR_TAG.exec(sql.slice(i, i + 66))[0];
      const close = sql.indexOf(tag, i + tag.length);
      [kind, end] = ["string", close < 0 ? sql.length : close + tag.length];
    } else if (!pg && c === "`") [kind, end] = ["identifier", closingQuote(i, "`")];
    else if (!pg && c === "[") [kind, end] = ["identifier", closingQuote(i, "]")];
    else if (c === ";") [kind, end] = ["semicolon", i + 1];
    else if (isWordChar(code)) {
      end = i + 1;
      while (end < sql.length && isWordChar(sql.charCodeAt(end))) end++;
      kind = "word";
    } else [kind, end] = ["punct", i + 1];
    if (kind === "punct" && c === ")") depth = Math.max(0, depth - 1);
    tokens.push({ kind, start: i, end, depth });
    if (kind === "punct" && c === "(") depth++;
    i = end;
  }
  return tokens;
}
function nextQuoteOrBackslash(sql, from, quote) {
  for (let i = from; i < sql.length; i++) if (sql[i] === quote || sql[i] === "\\") return i;
  return -1;
}
function keyword(sql, token) {
  return token?.kind === "word" ? sql.slice(token.start, token.end).toUpperCase() : void 0;
}
function functionCalls(sql, dialect, tokens = tokenize(sql, dialect)) {
  const names = [];
  for (let k = 0; k + 1 < tokens.length; k++) {
    const t = tokens[k];
    const next = tokens[k + 1];
    if (next.kind !== "punct" || sql[next.start] !== "(") continue;
    if (t.kind === "word") names.push(sql.slice(t.start, t.end).toLowerCase());
    else if (t.kind === "double-quoted") names.push(sql.slice(t.start + 1, t.end - 1).replaceAll('""', '"').toLowerCase());
    else if (t.kind === "identifier" && dialect !== "sqlite") names.push("u&");
    else if (t.kind === "identifier") names.push(sql.slice(t.start + 1, t.end - 1).toLowerCase());
  }
  return names;
}
function findBindParameter(sql, dialect = "sqlite", tokens = tokenize(sql, dialect)) {
  const i = tokens.findIndex((t, k) => isParameter(sql, t, tokens[k + 1], dialect));
  const token = tokens[i];
  if (token === void 0) return void 0;
  const next = tokens[i + 1];
  const end = sql[token.start] !== "$" && token.kind === "punct" && next?.kind === "word" && next.start === token.end ? next.end : token.end;
  return sql.slice(token.start, end);
}
function isParameter(sql, token, next, dialect) {
  const c = sql[token.start];
  if (token.kind === "word") {
    if (c !== "$") return false;
    return dialect === "postgres" ? /^\$\d+$/.test(sql.slice(token.start, token.end)) : true;
  }
  if (token.kind !== "punct" || dialect === "postgres") return false;
  if (c === "?") return true;
  return dialect === "sqlite" && (c === ":" || c === "@" || c === "#") && next?.kind === "word" && next.start === token.end;
}
function legacyStringLiteralRewrite(sql, errorMessage) {
  const match = /^no such column: "(.*)" - should this be a string literal in single-quotes\?$/s.exec(errorMessage);
  if (match === null) return void 0;
  const name = match[1];
  let rewritten = "";
  let copied = 0;
  for (const quoted of sql.matchAll(SQLITE_QUOTED)) {
    const text = quoted[0];
    const start = quoted.index;
    const end = start + text.length;
    if (text.charCodeAt(0) !== 34 || sql[start - 1] === "." || sql[end] === ".") continue;
    if (text.slice(1, -1).replaceAll('""', '"') !== name) continue;
    rewritten += `${sql.slice(copied, start)}'${name.replaceAll("'", "''")}'`;
    copied = end;
  }
  return copied === 0 ? void 0 : rewritten + sql.slice(copied);
}
var SQLITE_QUOTED = /--[^\n]*|\/\*[^]*?(?:\*\/|$)|'[^']*(?:''[^']*)*'?|"[^"]*(?:""[^"]*)*"?|`[^`]*(?:``[^`]*)*`?|\[[^\]]*\]?/g;

// src/warehouse/types.ts
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

// src/warehouse/statement-policy.ts
var READ_KEYWORDS = {
  sqlite: /* @__PURE__ */ new Set(["SELECT", "WITH", "VALUES"]),
  duckdb: /* @__PURE__ */ new Set(["SELECT", "WITH", "VALUES", "FROM"]),
  postgres: /* @__PURE__ */ new Set(["SELECT", "WITH", "VALUES", "TABLE"])
};
var POSTGRES_REFUSED_FUNCTIONS = /* @__PURE__ */ new Set([
  // server files and programs
  "pg_read_file",
  "pg_read_binary_file",
  "pg_stat_file",
  "pg_current_logfile",
  "pg_logdir_ls",
  // settings
  "set_config",
  "pg_reload_conf",
  "pg_rotate_logfile",
  "pg_rotate_logfile_old",
  // other sessions and the server
  "pg_terminate_backend",
  "pg_cancel_backend",
  "pg_promote",
  "pg_switch_wal",
  "pg_create_restore_point",
  "pg_backup_start",
  "pg_backup_stop",
  "pg_start_backup",
  "pg_stop_backup",
  "pg_log_backend_memory_contexts",
  "pg_wal_replay_pause",
  "pg_wal_replay_resume",
  "pg_drop_replication_slot",
  "pg_replication_slot_advance",
  "pg_notify",
  "pg_export_snapshot",
  "pg_import_system_collations",
  "pg_log_standby_snapshot",
  // state changes (they also fail in a read-only transaction; refused with a clearer message)
  "nextval",
  "setval",
  "txid_current",
  "pg_current_xact_id",
  "lowrite",
  // large objects by exact name too (the lo_ prefix applies to calls only, see refusedFunction)
  "lo_open",
  "lo_close",
  "lo_creat",
  "lo_create",
  "lo_unlink",
  "lo_import",
  "lo_export",
  "lo_lseek",
  "lo_lseek64",
  "lo_tell",
  "lo_tell64",
  "lo_truncate",
  "lo_truncate64",
  "lo_from_bytea",
  "lo_put",
  "lo_get",
  // SQL given as a string
  "query_to_xml",
  "query_to_xmlschema",
  "query_to_xml_and_xmlschema",
  "cursor_to_xml",
  "cursor_to_xmlschema",
  "ts_stat",
  "ts_rewrite"
]);
var POSTGRES_REFUSED_PREFIXES = [
  "pg_advisory",
  "pg_try_advisory",
  "lo_",
  "pg_ls_",
  "pg_file_",
  "dblink",
  "postgres_fdw",
  "pg_stat_reset",
  "pg_replication_origin",
  "pg_logical_",
  "pg_create_physical_replication_slot",
  "pg_create_logical_replication_slot",
  "pg_copy_"
];
var SQLITE_REFUSED_FUNCTIONS = /* @__PURE__ */ new Set(["load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "zipfile", "sqlar_compress", "sqlar_uncompress"]);
function refusedFunction(name, dialect, attribute = false) {
  if (dialect === "postgres") {
    if (name === "u&") return 'a function named by a U&"…" escaped identifier';
    const prefixed = POSTGRES_REFUSED_PREFIXES.some((p) => name.startsWith(p) && !(attribute && p === "lo_"));
    if (POSTGRES_REFUSED_FUNCTIONS.has(name) || prefixed) return attribute ? `the function ${name}() (called as .${name}, attribute notation)` : `the function ${name}()`;
  }
  if (dialect === "sqlite" && SQLITE_REFUSED_FUNCTIONS.has(name)) return `the function ${name}()`;
  return void 0;
}
var NO_BIND_PARAMETER = { bindParameter: void 0 };
var PLAIN_SQLITE_READ = /^\ufeff?[ \t\n\v\f\r(]*(?:select|with|values)(?![A-Za-z0-9_$\u0080-\uffff])(?:[^'"$;?:@#\-/[`]|'[^']*'|"[^"]*"|-(?!-)|\/(?!\*))*(?:;[ \t\n\v\f\r;]*)?$/i;
var PLAIN_SQLITE_READ_MAX = 1e5;
function checkReadStatement(sql, dialect = "sqlite") {
  if (dialect === "sqlite" && sql.length <= PLAIN_SQLITE_READ_MAX && PLAIN_SQLITE_READ.test(sql)) return NO_BIND_PARAMETER;
  return checkReadTokens(sql, dialect);
}
function checkReadTokens(sql, dialect) {
  const tokens = tokenize(sql, dialect);
  const first = tokens.find((t) => !(t.kind === "punct" && sql[t.start] === "("));
  if (first === void 0 || first.kind === "semicolon") {
    throw new SqlRefusedError("the statement is empty", sql);
  }
  const head = sql.slice(first.start, first.end).toUpperCase();
  if (first.kind !== "word" || !READ_KEYWORDS[dialect].has(head)) {
    const allowed = [...READ_KEYWORDS[dialect]];
    throw new SqlRefusedError(
      `only one read-only statement (${allowed.slice(0, -1).join(", ")} or ${allowed.at(-1)}) may run; this one starts with ${head}`,
      sql
    );
  }
  const semicolon = tokens.findIndex((t) => t.kind === "semicolon");
  if (semicolon >= 0 && tokens.slice(semicolon).some((t) => t.kind !== "semicolon")) {
    throw new SqlRefusedError("only one statement may run per call; the text holds more than one", sql);
  }
  if (dialect !== "sqlite") checkPostgresFamilyRead(sql, tokens, dialect);
  return { bindParameter: findBindParameter(sql, dialect, tokens) };
}
var DATA_MODIFYING = /* @__PURE__ */ new Set(["INSERT", "UPDATE", "DELETE", "MERGE"]);
function checkPostgresFamilyRead(sql, tokens, dialect) {
  for (let k = 0; k < tokens.length; k++) {
    const word = keyword(sql, tokens[k]);
    if (word === void 0) continue;
    if (word === "INTO") throw new SqlRefusedError("SELECT … INTO creates a table; only reads may run", sql);
    const previous = tokens[k - 1];
    if (DATA_MODIFYING.has(word) && previous?.kind === "punct" && sql[previous.start] === "(") {
      throw new SqlRefusedError(`a data-modifying WITH (${word} inside the query) changes the database; only reads may run`, sql);
    }
    if (word === "FOR") {
      const next = [keyword(sql, tokens[k + 1]), keyword(sql, tokens[k + 2]), keyword(sql, tokens[k + 3])];
      const lock = next[0] === "UPDATE" || next[0] === "SHARE" ? next[0] : next[0] === "NO" && next[1] === "KEY" && next[2] === "UPDATE" ? "NO KEY UPDATE" : next[0] === "KEY" && next[1] === "SHARE" ? "KEY SHARE" : void 0;
      if (lock !== void 0) throw new SqlRefusedError(`FOR ${lock} takes row locks; only plain reads may run`, sql);
    }
  }
  for (const [name, attribute] of calledNames(sql, dialect, tokens)) {
    const refused = refusedFunction(name, dialect, attribute);
    if (refused !== void 0) {
      throw new SqlRefusedError(`${refused} is refused: it reads or writes outside the query's tables, takes locks, changes settings or reaches other sessions`, sql);
    }
  }
}
function calledNames(sql, dialect, tokens = tokenize(sql, dialect)) {
  const names = functionCalls(sql, dialect, tokens).map((name) => [name, false]);
  if (dialect !== "postgres") return names;
  for (let k = 1; k < tokens.length; k++) {
    const t = tokens[k];
    const dot = tokens[k - 1];
    if (dot.kind !== "punct" || sql[dot.start] !== ".") continue;
    if (t.kind === "word") names.push([sql.slice(t.start, t.end).toLowerCase(), true]);
    else if (t.kind === "double-quoted") names.push([sql.slice(t.start + 1, t.end - 1).replaceAll('""', '"').toLowerCase(), true]);
  }
  return names;
}

// src/warehouse/sqlite/drivers.ts
var requireHere = createRequire(import.meta.url);
function betterSqlite3Driver() {
  const Database = requireHere("better-sqlite3");
  new Database(":memory:").close();
  return {
    name: "better-sqlite3",
    open(file, writable) {
      const db = new Database(file, { readonly: !writable, fileMustExist: true });
      db.pragma(writable ? "temp_store = MEMORY" : "query_only = 1");
      return {
        prepareRead(sql) {
          const stmt = db.prepare(sql);
          if (!stmt.readonly || !stmt.reader) throw new SqlRefusedError("the statement is not read-only", sql);
          stmt.raw(true).safeIntegers(true);
          const rows = () => stmt.iterate();
          return { columns: stmt.columns().map((c) => c.name), rows };
        },
        run(sql) {
          const stmt = db.prepare(sql);
          if (stmt.reader) for (const _ of stmt.iterate()) void _;
          else stmt.run();
        },
        close: () => void db.close()
      };
    }
  };
}
function nodeSqliteDriver() {
  const { DatabaseSync, constants } = requireHere("node:sqlite");
  const probe = new DatabaseSync(":memory:", { readOnly: false });
  const stmt = probe.prepare("SELECT 1");
  probe.close();
  if (typeof stmt.setReturnArrays !== "function" || typeof stmt.columns !== "function") {
    throw new Error(`node:sqlite of Node ${process.version} lacks setReturnArrays/columns (Node 24 has them)`);
  }
  const READ_ACTIONS = ["SQLITE_SELECT", "SQLITE_READ", "SQLITE_FUNCTION", "SQLITE_RECURSIVE"];
  const allowed = new Set(READ_ACTIONS.map((name) => constants[name]));
  const deniedInMigrations = new Set(["SQLITE_ATTACH", "SQLITE_DETACH", "SQLITE_PRAGMA"].map((name) => constants[name]));
  const actionNames = new Map(
    Object.entries(constants).filter(([name]) => !/^SQLITE_(CHANGESET_|OK$|DENY$|IGNORE$)/.test(name)).map(([name, code]) => [code, name])
  );
  return {
    name: "node:sqlite",
    open(file, writable) {
      const db = new DatabaseSync(file, { readOnly: !writable });
      let preparing = false;
      let denied;
      if (writable) {
        db.exec("PRAGMA temp_store = MEMORY");
        db.setAuthorizer?.((code, _arg1, arg2) => {
          const refused = deniedInMigrations.has(code) || code === constants["SQLITE_FUNCTION"] && refusedFunction(String(arg2).toLowerCase(), "sqlite") !== void 0;
          if (!refused) return constants.SQLITE_OK;
          denied ??= actionNames.get(code) ?? `action ${code}`;
          return constants.SQLITE_DENY;
        });
      } else {
        db.exec("PRAGMA query_only = 1");
        db.setAuthorizer?.((code) => {
          if (!preparing || allowed.has(code)) return constants.SQLITE_OK;
          denied ??= actionNames.get(code) ?? `action ${code}`;
          return constants.SQLITE_DENY;
        });
      }
      return {
        prepareRead(sql) {
          [preparing, denied] = [true, void 0];
          let stmt2;
          try {
            stmt2 = db.prepare(sql);
          } catch (error) {
            if (denied !== void 0) throw new SqlRefusedError(`the statement is not read-only (${denied})`, sql);
            throw error;
          } finally {
            preparing = false;
          }
          stmt2.setReturnArrays(true);
          stmt2.setReadBigInts(true);
          return { columns: stmt2.columns().map((c) => c.name), rows: () => stmt2.iterate() };
        },
        run(sql) {
          denied = void 0;
          try {
            db.prepare(sql).run();
          } catch (error) {
            if (denied !== void 0) throw new SqlRefusedError(`the migration statement is refused (${denied})`, sql);
            throw error;
          }
        },
        close: () => db.close()
      };
    }
  };
}
var FACTORIES = {
  "better-sqlite3": betterSqlite3Driver,
  "node:sqlite": nodeSqliteDriver
};
var loaded = /* @__PURE__ */ new Map();
function loadDriver(choice) {
  const names = choice === "auto" ? ["better-sqlite3", "node:sqlite"] : [choice];
  const reasons = [];
  for (const name of names) {
    let driver2 = loaded.get(name);
    try {
      driver2 ??= FACTORIES[name]();
    } catch (error) {
      reasons.push(`${name}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
      continue;
    }
    loaded.set(name, driver2);
    return driver2;
  }
  throw new ConfigError(
    `no usable SQLite driver for warehouse driver "${choice}" on Node ${process.version} (${reasons.join("; ")}). Install better-sqlite3 (Node 20+) or run on Node 24, which has node:sqlite.`
  );
}
function isSqliteError(error) {
  return error instanceof Error && /SQLITE/.test(String(error.code));
}

// src/warehouse/cells.ts
var MAX_CELL_BYTES = 1 << 20;
var MAX_RESULT_BYTES = 64 << 20;
function integerCell(value) {
  return value >= -Number.MAX_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER ? Number(value) : value;
}

// src/warehouse/sqlite/read.ts
var MAX_LEGACY_LITERAL_REWRITES = 20;
function runReadDetailed(connection, sql, options) {
  const prepared = preparedRead(connection, sql, options.legacyStringLiterals);
  try {
    return readRows(prepared, sql, options.maxRows);
  } catch (error) {
    if (!isSqliteError(error)) throw error;
    throw new SqlError(error.message, sql);
  }
}
var PREPARED_CACHE_SIZE = 2048;
var preparedCaches = /* @__PURE__ */ new WeakMap();
function preparedRead(connection, sql, legacyStringLiterals) {
  let cache = preparedCaches.get(connection);
  if (cache === void 0) {
    cache = /* @__PURE__ */ new Map();
    preparedCaches.set(connection, cache);
  }
  const key = legacyStringLiterals ? `1${sql}` : `0${sql}`;
  let entry = cache.get(key);
  if (entry === void 0) {
    entry = prepareEntry(connection, sql, legacyStringLiterals);
    if (cache.size >= PREPARED_CACHE_SIZE) cache.clear();
    cache.set(key, entry);
  }
  if (!entry.ok) throw entry.refused ? new SqlRefusedError(entry.message, sql) : new SqlError(entry.message, sql);
  return entry.statement;
}
function prepareEntry(connection, sql, legacyStringLiterals) {
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return prepareEntryUntraced(connection, sql, legacyStringLiterals);
  } catch (error) {
    Error.stackTraceLimit = stackTraceLimit;
    if (error instanceof Error) Error.captureStackTrace(error);
    throw error;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}
function prepareEntryUntraced(connection, sql, legacyStringLiterals) {
  try {
    const { bindParameter } = checkReadStatement(sql, "sqlite");
    let text = sql;
    for (let rewrites = 0; ; rewrites++) {
      let statement;
      try {
        statement = connection.prepareRead(text);
      } catch (error) {
        if (!isSqliteError(error)) throw error;
        const retry = legacyStringLiterals && rewrites < MAX_LEGACY_LITERAL_REWRITES ? legacyStringLiteralRewrite(text, error.message) : void 0;
        if (retry === void 0) throw new SqlError(error.message, sql);
        text = retry;
        continue;
      }
      if (bindParameter !== void 0) {
        throw new SqlRefusedError(`the statement has a bind parameter (${bindParameter}), and a recorded answer has no values to bind`, sql);
      }
      return { ok: true, statement };
    }
  } catch (error) {
    if (error instanceof SqlRefusedError) return { ok: false, refused: true, message: error.message };
    if (error instanceof SqlError) return { ok: false, refused: false, message: error.message };
    throw error;
  }
}
function readRows(statement, sql, maxRows) {
  const rows = [];
  let truncated = false;
  let special = false;
  let bytes = 0;
  for (const row of statement.rows()) {
    if (rows.length >= maxRows || bytes > MAX_RESULT_BYTES) {
      truncated = true;
      break;
    }
    for (let c = 0; c < row.length; c++) {
      const value = row[c];
      if (typeof value === "bigint") {
        const cell = integerCell(value);
        row[c] = cell;
        if (typeof cell === "bigint") special = true;
        bytes += 8;
      } else if (typeof value === "number") {
        if (!Number.isFinite(value) || Object.is(value, -0)) special = true;
        bytes += 8;
      } else if (typeof value === "string") {
        if (value.length > MAX_CELL_BYTES) throw tooLarge(value.length, sql);
        bytes += value.length;
      } else if (value instanceof Uint8Array) {
        if (value.byteLength > MAX_CELL_BYTES) throw tooLarge(value.byteLength, sql);
        bytes += value.byteLength;
        row[c] = new Uint8Array(value);
        special = true;
      } else {
        bytes += 8;
      }
    }
    rows.push(row);
  }
  return { result: { columns: statement.columns, rows, rowCount: rows.length, truncated }, special };
}
function tooLarge(size, sql) {
  return new SqlError(`a value in the result is ${Math.round(size / 1024)} KiB; values over ${MAX_CELL_BYTES / 1024} KiB are refused`, sql);
}
function runWrite(connection, sql) {
  try {
    connection.run(sql);
  } catch (error) {
    if (error instanceof SqlRefusedError || !isSqliteError(error)) throw error;
    throw new SqlError(error.message, sql);
  }
}

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

// src/warehouse/sqlite/sqlite-host.ts
var driver = loadDriver(process.argv[2]);
var connections = new ConnectionCache(driver);
var writers = new ConnectionCache(driver, true);
process.on("error", () => process.exit(0));
var send = (reply) => void process.send?.(reply);
function failure(id, kind, error) {
  const e = error instanceof Error ? error : new Error(String(error));
  return { id, error: kind === "bug" ? { kind, message: e.message, stack: e.stack ?? "" } : { kind, message: e.message } };
}
process.on("message", (message) => {
  if (Array.isArray(message)) for (const request of message) answer(request);
  else answer(message);
});
function answer(request) {
  let open;
  try {
    open = (request.write ? writers : connections).get(request.file);
  } catch (error) {
    return send(failure(request.id, "open", error));
  }
  try {
    if (request.write) {
      runWrite(open, request.sql);
      if (request.closeAfter) writers.close(request.file);
      send({ id: request.id, result: { columns: [], rows: [], rowCount: 0, truncated: false } });
      return;
    }
    const options = { maxRows: request.maxRows ?? Infinity, legacyStringLiterals: request.legacyStringLiterals };
    const { result, special } = runReadDetailed(open, request.sql, options);
    send({ id: request.id, result: toWire(result, special) });
  } catch (error) {
    const kind = error instanceof SqlRefusedError ? "refused" : error instanceof SqlError ? "sql" : "bug";
    send(failure(request.id, kind, error));
  }
}
send({ ready: true, driver: driver.name });
