// Results cross the host boundary as JSON (src/warehouse/sqlite/wire.ts): the values JSON cannot carry
// must arrive exactly as the in-process engine returns them.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/index.js';
import { fromWire, toWire } from '../../src/warehouse/sqlite/wire.js';

const DB = join(import.meta.dirname, '../../../shared/data/spider/database/concert_singer/concert_singer.sqlite');
const SQL = "SELECT -0.0 AS nz, 9e999 AS inf, -9e999 AS ninf, 9007199254740993 AS big, -9223372036854775808 AS min, x'00ff10' AS blob, 'a\u2028b\nc' AS text, NULL AS n, 1.5 AS r, 7 AS i";

describe('the JSON wire format of host results', () => {
  it('keeps -0, ±Infinity, NaN, bigint and bytes through JSON', () => {
    const result = { columns: ['a'], rows: [[-0], [Infinity], [-Infinity], [Number.NaN], [2n ** 63n - 1n], [new Uint8Array([0, 255])], ['x'], [null], [1.25]], rowCount: 9, truncated: false };
    const back = fromWire(JSON.parse(JSON.stringify(toWire(result, true))));
    expect(back.rows.map((r) => r[0])).toEqual([-0, Infinity, -Infinity, Number.NaN, 2n ** 63n - 1n, new Uint8Array([0, 255]), 'x', null, 1.25]);
    expect(Object.is(back.rows[0]?.[0], -0)).toBe(true);
    expect(back.rows[5]?.[0]).toBeInstanceOf(Uint8Array);
  });

  it('host processes return what the in-process engine returns', async () => {
    const hosted = openWarehouse(new Map([['cs', DB]]), { hosts: 1 });
    const inline = openWarehouse(new Map([['cs', DB]]), { isolation: 'inline' });
    try {
      const a = await hosted.engine('cs').query(SQL);
      const b = await inline.engine('cs').query(SQL);
      expect(a).toEqual(b);
      expect(Object.is(a.rows[0]?.[0], -0)).toBe(true);
      expect(a.rows[0]?.slice(1, 5)).toEqual([Infinity, -Infinity, 9007199254740993n, -9223372036854775808n]);
      expect(a.rows[0]?.[5]).toEqual(new Uint8Array([0, 255, 16]));
      expect(a.rows[0]?.[6]).toBe('a\u2028b\nc');
      // catalogue statements have no row cap (Infinity), which JSON cannot say
      expect((await hosted.engine('cs').listTables()).map((t) => t.name)).toContain('singer');
    } finally {
      await hosted.close();
      await inline.close();
    }
  });
});
