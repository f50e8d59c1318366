import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { validDate } from '../confidence/thresholds-file.js';
import { DataError } from '../util/errors.js';
import { unknownKeyMessage } from '../util/known-keys.js';
import { loadYamlFileAs, type LoadedYaml } from '../util/yaml.js';
import type { TableInfo } from '../warehouse/types.js';
import type { ColumnName, Definition, DefinitionEffect, SignRule } from './types.js';

/** What definitions are validated against: each database's tables, and the semantic layer's metrics. */
export interface DefinitionsContext {
  /** Database name → its tables (from `SqlEngine.listTables()`). */
  readonly databases: ReadonlyMap<string, readonly TableInfo[]>;
  /**
   * Metric names of the semantic layer (empty when there is none): one set for every database,
   * or per database (the semantic layer is per database: a file's top-level `database:`), so a
   * rule on `car_1` may only name `car_1`'s metrics.
   */
  readonly metrics: ReadonlySet<string> | ReadonlyMap<string, ReadonlySet<string>>;
  /** Folder names are shown relative to this (default: the current folder). */
  readonly root?: string;
}

const FILE_KEYS = ['database', 'definitions'];
const RULE_KEYS = ['id', 'approver', 'approved', 'description', 'database', 'applies_to', 'effect', 'must_read', 'must_not_read', 'required_filter', 'required_metric', 'sign'];
const APPLIES_KEYS = ['tags', 'metrics', 'words', 'questions'];
const READ_KEYS = ['tables', 'columns'];
const SIGN_KEYS = ['column', 'rule'];
const SIGN_RULES: readonly SignRule[] = ['non-negative', 'non-positive', 'positive', 'negative'];
const EFFECTS: readonly DefinitionEffect[] = ['veto', 'cap'];

/**
 * Loads approved definitions from files and folders (a folder means every `*.yml` / `*.yaml`
 * in it, sorted) and validates each against the warehouse and the semantic layer.
 *
 * ```yaml
 * database: main                          # optional when the warehouse has one database
 * definitions:
 *   - id: tracks-sold-counts-quantities
 *     approver: Sales data owner
 *     approved: 2026-11-30
 *     description: Tracks sold is the sum of InvoiceLine.Quantity, not a count of invoices.
 *     applies_to: {words: [tracks sold]}  # tags, metrics (queried by the trace), words (in the question), questions (ids)
 *     effect: veto                        # or cap
 *     must_read: {tables: [InvoiceLine], columns: [InvoiceLine.Quantity]}
 *     must_not_read: {columns: [Invoice.Total]}
 *     required_filter: [Invoice.InvoiceDate]   # a top-level AND condition of the WHERE (or inner JOIN ON) of every query reading Invoice
 *     required_metric: tracks_sold             # the trace queries this metric
 *     sign: {column: 1, rule: non-negative}    # a returned column (1-based position or name)
 * ```
 *
 * @param paths - absolute files or folders.
 * @param context - the warehouse's tables per database and the metric names.
 * @throws DataError naming `file:line` for malformed YAML, an unknown key, a wrong type, a
 *   missing id / approver / approved / effect, a rule with no `applies_to` or with nothing to
 *   check, a table, column, database or metric that does not exist, and two rules with one id
 *   (both places named); a path that does not exist.
 * @example (await loadDefinitions(['/repo/definitions'], context))[0].id // 'tracks-sold-counts-quantities'
 */
export async function loadDefinitions(paths: readonly string[], context: DefinitionsContext): Promise<Definition[]> {
  const files = await definitionFiles(paths, context.root ?? process.cwd());
  const out: Definition[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const shown = relative(context.root ?? process.cwd(), file) || file;
    const yaml = await loadYamlFileAs(file, shown);
    for (const d of parseFile(yaml, context)) {
      const first = seen.get(d.id);
      if (first !== undefined) throw new DataError(`two rules have the id '${d.id}' (the first at ${first}); give each rule its own id`, d.where);
      seen.set(d.id, d.where);
      out.push(d);
    }
  }
  return out;
}

/**
 * The definitions files {@link loadDefinitions} reads, in its order: each path given, a folder as
 * its `*.yml`/`*.yaml` files sorted by name.
 * @param root - the folder paths are shown relative to in the error.
 * @throws DataError naming a path that does not exist.
 * @example await definitionFiles(['/repo/definitions'], '/repo') // ['/repo/definitions/chinook.yml']
 */
export async function definitionFiles(paths: readonly string[], root: string): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) files.push(...(await expand(path, root)));
  return files;
}

async function expand(path: string, root: string): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new DataError('no such definitions file or folder', relative(root, path) || path);
  }
  if (!info.isDirectory()) return [path];
  const names = (await readdir(path)).filter((n) => /\.ya?ml$/.test(n)).sort();
  return names.map((n) => join(path, n));
}

function parseFile(yaml: LoadedYaml, context: DefinitionsContext): Definition[] {
  const at = (...p: (string | number)[]): string => yaml.where(p);
  const root = yaml.value;
  if (root === null || typeof root !== 'object' || Array.isArray(root)) throw new DataError('a definitions file must be a mapping with a `definitions:` list', at());
  const r = root as Record<string, unknown>;
  unknownKeys(r, FILE_KEYS, [], at);
  const databases = [...context.databases.keys()];
  const fileDb = r['database'];
  if (fileDb !== undefined && (typeof fileDb !== 'string' || !context.databases.has(fileDb))) {
    throw new DataError(`'database' must name a database of the warehouse (${databases.join(', ')}), got ${JSON.stringify(fileDb)}`, at('database'));
  }
  const list = r['definitions'];
  if (!Array.isArray(list) || list.length === 0) throw new DataError("'definitions' must be a non-empty list of rules", at('definitions'));
  return list.map((item, i) => parseRule(item, i, typeof fileDb === 'string' ? fileDb : undefined, context, at));
}

/** The metric names a rule on database `db` may name. */
function metricsOf(context: DefinitionsContext, db: string): ReadonlySet<string> {
  const m = context.metrics;
  return m instanceof Map ? (m.get(db) ?? new Set<string>()) : (m as ReadonlySet<string>);
}

function unknownKeys(obj: Record<string, unknown>, keys: readonly string[], path: (string | number)[], at: (...p: (string | number)[]) => string): void {
  for (const k of Object.keys(obj)) {
    if (!keys.includes(k)) throw new DataError(unknownKeyMessage(k, keys, path.filter((p) => typeof p === 'string').join('.')), at(...path, k));
  }
}

function parseRule(item: unknown, i: number, fileDb: string | undefined, context: DefinitionsContext, at: (...p: (string | number)[]) => string): Definition {
  const base: (string | number)[] = ['definitions', i];
  const here = (...p: (string | number)[]): string => at(...base, ...p);
  if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new DataError('a rule must be a mapping (id, approver, approved, applies_to, effect, and what the trace must or must not do)', here());
  const r = item as Record<string, unknown>;
  unknownKeys(r, RULE_KEYS, base, at);
  const text = (key: string, required: boolean): string | undefined => {
    const v = r[key];
    if (v === undefined || v === null) {
      if (required) throw new DataError(`rule ${i + 1} has no '${key}'${key === 'approver' || key === 'approved' ? ': an approved definition says who approved it and when' : ''}`, here());
      return undefined;
    }
    if (typeof v !== 'string' || v.trim() === '') throw new DataError(`'${key}' must be a non-empty string, got ${JSON.stringify(v)}`, here(key));
    return v;
  };
  const id = text('id', true) as string;
  const approver = text('approver', true) as string;
  const approved = text('approved', true) as string;
  if (!validDate(approved)) throw new DataError(`'approved' must be a date of the calendar (YYYY-MM-DD), got ${JSON.stringify(approved)}`, here('approved'));
  const description = text('description', false);
  const db = text('database', false) ?? fileDb ?? (context.databases.size === 1 ? [...context.databases.keys()][0] : undefined);
  if (db === undefined) throw new DataError(`rule '${id}' needs 'database' (the warehouse has several: ${[...context.databases.keys()].join(', ')})`, here());
  const schema = context.databases.get(db);
  if (schema === undefined) throw new DataError(`rule '${id}' names database '${db}', which the warehouse does not have (known: ${[...context.databases.keys()].join(', ')})`, here('database'));
  const effect = r['effect'];
  if (typeof effect !== 'string' || !(EFFECTS as readonly string[]).includes(effect)) {
    throw new DataError(`rule '${id}': 'effect' must be veto (caps the score at 0.59: withheld) or cap (at 0.79: flagged), got ${JSON.stringify(effect)}`, effect === undefined ? here() : here('effect'));
  }

  const applies = r['applies_to'];
  if (applies === undefined || applies === null) throw new DataError(`rule '${id}' has no 'applies_to': say which questions it applies to (tags, metrics, words or questions)`, here());
  if (typeof applies !== 'object' || Array.isArray(applies)) throw new DataError(`rule '${id}': 'applies_to' must be a mapping of tags, metrics, words and questions`, here('applies_to'));
  const a = applies as Record<string, unknown>;
  unknownKeys(a, APPLIES_KEYS, [...base, 'applies_to'], at);
  const strings = (obj: Record<string, unknown>, key: string, path: (string | number)[]): string[] => {
    const v = obj[key];
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x.trim() !== '')) throw new DataError(`'${[...path.filter((p) => typeof p === 'string'), key].join('.')}' must be a list of non-empty strings`, at(...path, key));
    return v as string[];
  };
  const appliesTo = {
    tags: strings(a, 'tags', [...base, 'applies_to']),
    metrics: strings(a, 'metrics', [...base, 'applies_to']),
    words: strings(a, 'words', [...base, 'applies_to']),
    questions: strings(a, 'questions', [...base, 'applies_to']),
  };
  if (Object.values(appliesTo).every((l) => l.length === 0)) throw new DataError(`rule '${id}' has an empty 'applies_to': name at least one tag, metric, word or question`, here('applies_to'));
  const metrics = metricsOf(context, db);
  for (const m of appliesTo.metrics) if (!metrics.has(m)) throw new DataError(`rule '${id}': metric '${m}' is not in the semantic layer (known${context.metrics instanceof Map ? ` in database ${db}` : ''}: ${[...metrics].join(', ') || 'none'})`, here('applies_to', 'metrics'));

  const tableName = (name: string, path: (string | number)[]): string => {
    const t = schema.find((x) => x.name.toLowerCase() === name.toLowerCase());
    if (t === undefined) throw new DataError(`rule '${id}': table '${name}' does not exist in database ${db} (tables: ${schema.map((x) => x.name).join(', ')})`, here(...path));
    return t.name;
  };
  const columnName = (name: string, path: (string | number)[]): ColumnName => {
    const dot = name.lastIndexOf('.');
    if (dot <= 0 || dot === name.length - 1) throw new DataError(`rule '${id}': a column is written Table.Column, got ${JSON.stringify(name)}`, here(...path));
    const table = tableName(name.slice(0, dot), path);
    const info = schema.find((x) => x.name === table) as TableInfo;
    const c = info.columns.find((x) => x.name.toLowerCase() === name.slice(dot + 1).toLowerCase());
    if (c === undefined) throw new DataError(`rule '${id}': column '${name.slice(dot + 1)}' does not exist in table ${table} (columns: ${info.columns.map((x) => x.name).join(', ')})`, here(...path));
    return { table, column: c.name };
  };
  const reads = (key: string): Definition['mustRead'] => {
    const v = r[key];
    if (v === undefined) return { tables: [], columns: [] };
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new DataError(`rule '${id}': '${key}' must be a mapping with tables and/or columns`, here(key));
    const o = v as Record<string, unknown>;
    unknownKeys(o, READ_KEYS, [...base, key], at);
    return {
      tables: strings(o, 'tables', [...base, key]).map((t) => tableName(t, [key, 'tables'])),
      columns: strings(o, 'columns', [...base, key]).map((c) => columnName(c, [key, 'columns'])),
    };
  };
  const mustRead = reads('must_read');
  const mustNotRead = reads('must_not_read');
  const filterRaw = r['required_filter'];
  const filterList = filterRaw === undefined ? [] : typeof filterRaw === 'string' ? [filterRaw] : filterRaw;
  if (!Array.isArray(filterList) || !filterList.every((x) => typeof x === 'string')) throw new DataError(`rule '${id}': 'required_filter' must be a column (Table.Column) or a list of them`, here('required_filter'));
  const requiredFilter = (filterList as string[]).map((c) => columnName(c, ['required_filter']));
  const requiredMetric = text('required_metric', false);
  if (requiredMetric !== undefined && !metrics.has(requiredMetric)) {
    throw new DataError(`rule '${id}': metric '${requiredMetric}' is not in the semantic layer (known${context.metrics instanceof Map ? ` in database ${db}` : ''}: ${[...metrics].join(', ') || 'none'})`, here('required_metric'));
  }
  let sign: Definition['sign'];
  const s = r['sign'];
  if (s !== undefined) {
    if (s === null || typeof s !== 'object' || Array.isArray(s)) throw new DataError(`rule '${id}': 'sign' must be a mapping {column, rule}`, here('sign'));
    const o = s as Record<string, unknown>;
    unknownKeys(o, SIGN_KEYS, [...base, 'sign'], at);
    const column = o['column'];
    if (!((typeof column === 'number' && Number.isInteger(column) && column >= 1) || (typeof column === 'string' && column.trim() !== ''))) {
      throw new DataError(`rule '${id}': 'sign.column' must be a returned column's 1-based position or name, got ${JSON.stringify(column)}`, here('sign', 'column'));
    }
    const rule = o['rule'];
    if (typeof rule !== 'string' || !(SIGN_RULES as readonly string[]).includes(rule)) throw new DataError(`rule '${id}': 'sign.rule' must be one of ${SIGN_RULES.join(', ')}, got ${JSON.stringify(rule)}`, here('sign', 'rule'));
    sign = { resultColumn: column, rule: rule as SignRule };
  }
  const checks = mustRead.tables.length + mustRead.columns.length + mustNotRead.tables.length + mustNotRead.columns.length + requiredFilter.length + (requiredMetric !== undefined ? 1 : 0) + (sign !== undefined ? 1 : 0);
  if (checks === 0) throw new DataError(`rule '${id}' checks nothing: give must_read, must_not_read, required_filter, required_metric or sign`, here());
  return {
    id,
    approver,
    approved,
    ...(description !== undefined ? { description } : {}),
    database: db,
    appliesTo,
    effect: effect as DefinitionEffect,
    mustRead,
    mustNotRead,
    requiredFilter,
    ...(requiredMetric !== undefined ? { requiredMetric } : {}),
    ...(sign !== undefined ? { sign } : {}),
    where: here(),
  };
}
