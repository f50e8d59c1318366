import { quoteIdentifier, quoteTableName } from '../warehouse/sql-text.js';
import { qualifiedTableName, type Cell, type SqlEngine, type TableInfo } from '../warehouse/types.js';
import type { ColumnSource } from './sql-analysis.js';

/** Key overlap below this fails the bad-join check (paper §3.2, eq. 2). */
export const JOIN_OVERLAP_MIN = 0.85;
/** A stand-in code must cover at least this share of a column's non-NULL values (paper §3.2). */
export const STAND_IN_MIN_SHARE = 0.005;
/** Candidate stand-in codes: negative sentinels and runs of nines. */
export const STAND_IN_CODES: readonly number[] = [
  -1, -9, -99, -999, -9999, -99999, 999, 9999, 99999, 999999, 9999999, 99999999, 999999999,
];
/** "Much smaller": every other value of the column is at most the code divided by this. */
export const STAND_IN_MUCH_SMALLER_FACTOR = 10;

/** Key overlap of an equi-join pair (paper eq. 2), with the sizes it was computed from. */
export interface KeyOverlap {
  /** ρ = max(|Ka∩Kb| / |Ka|, |Ka∩Kb| / |Kb|) over distinct non-NULL keys; undefined when a side has no keys. */
  readonly rho: number | undefined;
  readonly leftKeys: number;
  readonly rightKeys: number;
  readonly common: number;
}

/** A stand-in code of a warehouse column, with the share of non-NULL values it covers. */
export interface StandIn {
  readonly table: string;
  readonly column: string;
  readonly code: number;
  /** Share of the column's non-NULL values equal to the code; 1 for a declared stand-in. */
  readonly share: number;
  /** `profiled` from the warehouse, or `declared` (configured, or planted). */
  readonly origin: 'profiled' | 'declared';
}

/**
 * What the checks need to know about one database, read once through its {@link SqlEngine} and
 * cached: the schema, the distinct keys of joined columns, and the stand-in codes of returned
 * columns. Adapter code (it runs queries); the checks themselves are pure.
 */
export class WarehouseProfile {
  private tablesPromise: Promise<readonly TableInfo[]> | undefined;
  private viewsPromise: Promise<ReadonlyMap<string, string>> | undefined;
  private readonly keys = new Map<string, Promise<Set<string>>>();
  private readonly standIns = new Map<string, Promise<StandIn | undefined>>();

  /**
   * @param engine - the database's engine.
   * @param declared - stand-in codes known in advance (e.g. from configuration), taking
   *   precedence over profiling.
   */
  constructor(
    readonly engine: SqlEngine,
    private readonly declared: readonly StandIn[] = [],
  ) {}

  /** The schema (`SqlEngine.listTables()`), read once. */
  tables(): Promise<readonly TableInfo[]> {
    this.tablesPromise ??= this.engine.listTables();
    return this.tablesPromise;
  }

  /** Each view's SQL by lower-cased name (`SqlEngine.viewDefinitions()`; empty when the engine does not give it), read once. */
  views(): Promise<ReadonlyMap<string, string>> {
    this.viewsPromise ??= this.engine.viewDefinitions?.() ?? Promise.resolve(new Map<string, string>());
    return this.viewsPromise;
  }

  /**
   * Key overlap ρ of two columns from their distinct non-NULL values (`SqlEngine.distinctValues`).
   * Values are compared after normalising numbers (integers and equal floats alike, numeric
   * strings read as numbers), since SQLite compares them that way across affinities.
   *
   * @example await profile.keyOverlap({ table: 'concert', column: 'Stadium_ID' }, { table: 'stadium', column: 'Stadium_ID' })
   * // { rho: 1, leftKeys: 5, rightKeys: 9, common: 5 }  (concert_singer)
   */
  async keyOverlap(left: ColumnSource, right: ColumnSource): Promise<KeyOverlap> {
    const [a, b] = await Promise.all([this.distinctKeys(left), this.distinctKeys(right)]);
    let common = 0;
    const [small, large] = a.size <= b.size ? [a, b] : [b, a];
    for (const key of small) if (large.has(key)) common += 1;
    const rho = a.size === 0 || b.size === 0 ? undefined : Math.max(common / a.size, common / b.size);
    return { rho, leftKeys: a.size, rightKeys: b.size, common };
  }

  /**
   * The stand-in code of a warehouse column, if any: a declared one, else a code from
   * {@link STAND_IN_CODES} covering ≥ 0.5% of the column's non-NULL values when every other
   * value is non-negative (negative codes) or at most a tenth of the code (runs of nines).
   * Only columns with numeric affinity (declared type containing INT, REAL, FLOA, DOUB, NUM or
   * DEC) are profiled.
   *
   * Source: the confidence-score paper §3.2 ("a value such as −1 or 99999999 covering at least
   * 0.5% of an otherwise non-negative or much smaller column"); "much smaller" is fixed here as
   * "at most code / 10".
   */
  standIn(source: ColumnSource): Promise<StandIn | undefined> {
    const key = `${source.table.toLowerCase()}\u0001${source.column.toLowerCase()}`;
    let found = this.standIns.get(key);
    if (found === undefined) {
      found = this.profileStandIn(source);
      this.standIns.set(key, found);
    }
    return found;
  }

  /** A copy of this profile with more declared stand-ins (used by planted errors); caches are not shared. */
  withDeclared(extra: readonly StandIn[]): WarehouseProfile {
    const copy = new WarehouseProfile(this.engine, [...extra, ...this.declared]);
    copy.tablesPromise = this.tablesPromise;
    for (const [k, v] of this.keys) copy.keys.set(k, v);
    return copy;
  }

  private distinctKeys(source: ColumnSource): Promise<Set<string>> {
    const key = `${source.table.toLowerCase()}\u0001${source.column.toLowerCase()}`;
    let found = this.keys.get(key);
    if (found === undefined) {
      found = this.engine.distinctValues(source.table, source.column).then((values) => new Set(values.map(keyOf)));
      this.keys.set(key, found);
    }
    return found;
  }

  private async profileStandIn(source: ColumnSource): Promise<StandIn | undefined> {
    const declared = this.declared.find(
      (d) => d.table.toLowerCase() === source.table.toLowerCase() && d.column.toLowerCase() === source.column.toLowerCase(),
    );
    if (declared !== undefined) return declared;
    const info = (await this.tables()).find((t) => qualifiedTableName(t).toLowerCase() === source.table.toLowerCase());
    const column = info?.columns.find((c) => c.name.toLowerCase() === source.column.toLowerCase());
    // Numeric affinity in SQLite's sense; also matches DuckDB's and PostgreSQL's numeric type names (BIGINT, DECIMAL(10,2), double precision, numeric).
    if (info === undefined || column === undefined || !/INT|REAL|FLOA|DOUB|NUM|DEC/i.test(column.type)) return undefined;
    const c = quoteIdentifier(column.name);
    const codes = STAND_IN_CODES.join(', ');
    const counts = STAND_IN_CODES.map((code, i) => `SUM(CASE WHEN ${c} = ${code} THEN 1 ELSE 0 END) AS k${i}`).join(', ');
    const sql =
      `SELECT COUNT(${c}) AS n, ${counts}, ` +
      `MIN(CASE WHEN ${c} NOT IN (${codes}) THEN ${c} END) AS lo, MAX(CASE WHEN ${c} NOT IN (${codes}) THEN ${c} END) AS hi ` +
      `FROM ${quoteTableName(info)}`;
    const result = await this.engine.query(sql, { maxRows: 1 });
    const row = result.rows[0];
    if (row === undefined) return undefined;
    const n = toNumber(row[0]);
    const lo = toNumber(row[row.length - 2]);
    const hi = toNumber(row[row.length - 1]);
    if (n === undefined || n === 0 || lo === undefined || hi === undefined) return undefined;
    for (let i = 0; i < STAND_IN_CODES.length; i += 1) {
      const code = STAND_IN_CODES[i] as number;
      const share = (toNumber(row[i + 1]) ?? 0) / n;
      if (share < STAND_IN_MIN_SHARE) continue;
      const otherwiseFits = code < 0 ? lo >= 0 : hi <= code / STAND_IN_MUCH_SMALLER_FACTOR;
      if (otherwiseFits) return { table: qualifiedTableName(info), column: column.name, code, share, origin: 'profiled' };
    }
    return undefined;
  }
}

function toNumber(cell: Cell | undefined): number | undefined {
  if (typeof cell === 'number') return cell;
  if (typeof cell === 'bigint') return Number(cell);
  if (typeof cell === 'string' && cell.trim() !== '' && Number.isFinite(Number(cell))) return Number(cell);
  return undefined;
}

/** Join-key identity: numbers (and numeric strings) by value, other values by type and content. */
export function keyOf(cell: Cell): string {
  if (typeof cell === 'number') return `n:${cell === 0 ? 0 : cell}`;
  if (typeof cell === 'bigint') return `n:${cell.toString()}`;
  if (typeof cell === 'string') {
    const trimmed = cell.trim();
    if (trimmed !== '' && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) {
      const n = Number(trimmed);
      return `n:${n === 0 ? 0 : n}`;
    }
    return `s:${cell}`;
  }
  if (cell instanceof Uint8Array) return `b:${Buffer.from(cell).toString('hex')}`;
  return 'null';
}
