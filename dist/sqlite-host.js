import { createRequire as __replaygateCreateRequire } from 'node:module';
const require = __replaygateCreateRequire(import.meta.url);

// src/warehouse/connections.ts
var ConnectionCache = class {
  constructor(driver2) {
    this.driver = driver2;
  }
  driver;
  #open = /* @__PURE__ */ new Map();
  /** The connection of `file`. @throws the driver's error when the file is not a usable database. */
  get(file) {
    let open = this.#open.get(file);
    if (open === void 0) {
      open = this.driver.open(file, false);
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
  closeAll() {
    for (const c of this.#open.values()) c.close();
    this.#open.clear();
  }
};

// src/warehouse/drivers.ts
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

// src/warehouse/drivers.ts
var requireHere = createRequire(import.meta.url);
function betterSqlite3Driver() {
  const Database = requireHere("better-sqlite3");
  new Database(":memory:").close();
  return {
    name: "better-sqlite3",
    open(file, writable) {
      const db = new Database(file, { readonly: !writable, fileMustExist: true });
      if (!writable) db.pragma("query_only = 1");
      return {
        prepareRead(sql) {
          const stmt = db.prepare(sql);
          if (!stmt.readonly || !stmt.reader) throw new SqlRefusedError("the statement is not read-only", sql);
          stmt.raw(true).safeIntegers(true);
          const rows = () => stmt.iterate();
          return { columns: stmt.columns().map((c) => c.name), rows };
        },
        exec: (sql) => void db.exec(sql),
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
  const actionNames = new Map(
    Object.entries(constants).filter(([name]) => !/^SQLITE_(CHANGESET_|OK$|DENY$|IGNORE$)/.test(name)).map(([name, code]) => [code, name])
  );
  return {
    name: "node:sqlite",
    open(file, writable) {
      const db = new DatabaseSync(file, { readOnly: !writable });
      let preparing = false;
      let denied;
      if (!writable) {
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
        exec: (sql) => db.exec(sql),
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

// src/warehouse/sql-text.ts
var WORD_CHAR = /[\p{L}\p{N}_$]/u;
var READ_KEYWORDS = /* @__PURE__ */ new Set(["SELECT", "WITH", "VALUES"]);
function isSpace(code, char) {
  if (code < 128) return code === 32 || code >= 9 && code <= 13;
  return /\s/.test(char);
}
function isWordChar(code, char) {
  if (code < 128) return code >= 97 && code <= 122 || code >= 65 && code <= 90 || code >= 48 && code <= 57 || code === 95 || code === 36;
  return WORD_CHAR.test(char);
}
function tokenize(sql) {
  const tokens = [];
  const closingQuote = (start, quote) => {
    let i2 = start + 1;
    for (; ; ) {
      const next = sql.indexOf(quote, i2);
      if (next < 0) return sql.length;
      if (quote !== "]" && sql[next + 1] === quote) i2 = next + 2;
      else return next + 1;
    }
  };
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const code = sql.charCodeAt(i);
    const c = sql[i];
    if (isSpace(code, c)) {
      i++;
    } else if (code === 45 && sql.charCodeAt(i + 1) === 45) {
      const eol = sql.indexOf("\n", i);
      i = eol < 0 ? n : eol + 1;
    } else if (code === 47 && sql.charCodeAt(i + 1) === 42) {
      const close = sql.indexOf("*/", i + 2);
      i = close < 0 ? n : close + 2;
    } else {
      let end;
      let kind;
      if (c === "'") [kind, end] = ["string", closingQuote(i, "'")];
      else if (c === '"') [kind, end] = ["double-quoted", closingQuote(i, '"')];
      else if (c === "`") [kind, end] = ["identifier", closingQuote(i, "`")];
      else if (c === "[") [kind, end] = ["identifier", closingQuote(i, "]")];
      else if (c === ";") [kind, end] = ["semicolon", i + 1];
      else if (isWordChar(code, c)) {
        end = i + 1;
        while (end < n && isWordChar(sql.charCodeAt(end), sql[end])) end++;
        kind = "word";
      } else [kind, end] = ["punct", i + 1];
      tokens.push({ kind, start: i, end });
      i = end;
    }
  }
  return tokens;
}
function checkReadStatement(sql) {
  const tokens = tokenize(sql);
  checkTokens(sql, tokens);
  return { bindParameter: bindParameterIn(sql, tokens) };
}
function checkTokens(sql, tokens) {
  const first = tokens.find((t) => !(t.kind === "punct" && sql[t.start] === "("));
  if (first === void 0 || first.kind === "semicolon") {
    throw new SqlRefusedError("the statement is empty", sql);
  }
  const keyword = sql.slice(first.start, first.end).toUpperCase();
  if (first.kind !== "word" || !READ_KEYWORDS.has(keyword)) {
    throw new SqlRefusedError(
      `only one read-only statement (SELECT, WITH or VALUES) may run; this one starts with ${keyword}`,
      sql
    );
  }
  const semicolon = tokens.findIndex((t) => t.kind === "semicolon");
  if (semicolon >= 0 && tokens.slice(semicolon).some((t) => t.kind !== "semicolon")) {
    throw new SqlRefusedError("only one statement may run per call; the text holds more than one", sql);
  }
}
function bindParameterIn(sql, tokens) {
  const i = tokens.findIndex((t, k) => isParameter(sql, t, tokens[k + 1]));
  const token = tokens[i];
  if (token === void 0) return void 0;
  const next = tokens[i + 1];
  const end = sql[token.start] !== "$" && token.kind === "punct" && next?.kind === "word" && next.start === token.end ? next.end : token.end;
  return sql.slice(token.start, end);
}
function isParameter(sql, token, next) {
  const c = sql[token.start];
  if (token.kind === "word") return c === "$";
  if (token.kind !== "punct") return false;
  if (c === "?") return true;
  return (c === ":" || c === "@") && next?.kind === "word" && next.start === token.end;
}
function legacyStringLiteralRewrite(sql, errorMessage) {
  const match = /^no such column: "(.*)" - should this be a string literal in single-quotes\?$/s.exec(errorMessage);
  if (match === null) return void 0;
  const name = match[1];
  let rewritten = "";
  let copied = 0;
  for (const t of tokenize(sql)) {
    const qualified = sql[t.start - 1] === "." || sql[t.end] === ".";
    const spelled = sql.slice(t.start + 1, t.end - 1).replaceAll('""', '"');
    if (t.kind !== "double-quoted" || qualified || spelled !== name) continue;
    rewritten += `${sql.slice(copied, t.start)}'${name.replaceAll("'", "''")}'`;
    copied = t.end;
  }
  return copied === 0 ? void 0 : rewritten + sql.slice(copied);
}

// src/warehouse/read.ts
var MAX_LEGACY_LITERAL_REWRITES = 20;
var MAX_CELL_BYTES = 1 << 20;
var MAX_RESULT_BYTES = 64 << 20;
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
  try {
    const { bindParameter } = checkReadStatement(sql);
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
        if (value >= MIN_SAFE && value <= MAX_SAFE) row[c] = Number(value);
        else special = true;
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
var MIN_SAFE = BigInt(-Number.MAX_SAFE_INTEGER);
var MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
function tooLarge(size, sql) {
  return new SqlError(`a value in the result is ${Math.round(size / 1024)} KiB; values over ${MAX_CELL_BYTES / 1024} KiB are refused`, sql);
}

// src/warehouse/wire.ts
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

// src/warehouse/sqlite-host.ts
var driver = loadDriver(process.argv[2]);
var connections = new ConnectionCache(driver);
var send = (reply) => void process.send?.(reply);
function failure(id, kind, error) {
  const e = error instanceof Error ? error : new Error(String(error));
  return { id, error: { kind, message: e.message, stack: e.stack ?? "" } };
}
process.on("message", (message) => {
  if (Array.isArray(message)) for (const request of message) answer(request);
  else answer(message);
});
function answer(request) {
  let open;
  try {
    open = connections.get(request.file);
  } catch (error) {
    return send(failure(request.id, "open", error));
  }
  try {
    const { result, special } = runReadDetailed(open, request.sql, { maxRows: request.maxRows ?? Infinity, legacyStringLiterals: request.legacyStringLiterals });
    send({ id: request.id, result: toWire(result, special) });
  } catch (error) {
    const kind = error instanceof SqlRefusedError ? "refused" : error instanceof SqlError ? "sql" : "bug";
    send(failure(request.id, kind, error));
  }
}
send({ ready: true });
