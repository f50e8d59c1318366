/**
 * A profiling read of the warehouse that fails on the warehouse's side (here: over the time
 * limit on a large table) leaves that deterministic check unmeasured with the reason; it never
 * ends the command in an internal error. Real SQLite, a table of 3 million rows, a 5 ms limit.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAnswer } from '../../src/confidence/checks.js';
import { WarehouseProfile } from '../../src/confidence/warehouse-profile.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/index.js';

let dir: string;
let slow: Warehouse;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'replaygate-profile-'));
  const file = join(dir, 'big.sqlite');
  const db = new Database(file);
  db.exec(`CREATE TABLE a (id INTEGER, amount INTEGER);
    CREATE TABLE b (id INTEGER, a_id INTEGER);
    INSERT INTO a WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) SELECT i, i % 1000 FROM n;
    INSERT INTO b SELECT id, id FROM a;`);
  db.close();
  slow = openWarehouse(new Map([['big', file]]), { hosts: 1, timeoutMs: 5, memoCells: 0 });
}, 120_000);

afterAll(async () => {
  await slow?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('profiling reads that fail', () => {
  it('a join whose key columns cannot be read in time, and a stand-in profile over the limit, are unmeasured with the reason', async () => {
    const profile = new WarehouseProfile(slow.engine('big'));
    const sql = 'SELECT a.amount FROM a JOIN b ON a.id = b.a_id WHERE a.id = 1';
    const result = { columns: ['amount'], rows: [[1]], rowCount: 1, truncated: false };
    const checks = await checkAnswer({ label: '0', sql, result }, { question: 'What is the amount of a 1?' }, profile);
    expect(checks.badJoin.status).toBe('unmeasured');
    expect(checks.badJoin.detail).toMatch(/could not be read .*time limit/);
    expect(checks.standIn.status).toBe('unmeasured');
    expect(checks.standIn.detail).toMatch(/could not profile .*time limit/);
  }, 60_000);
});
