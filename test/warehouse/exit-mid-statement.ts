/**
 * `node exit-mid-statement.js <sqlite file>`: starts an endless statement with a long time limit
 * and calls process.exit() while it runs. The host must not outlive this process.
 */
import { openSqliteEngine } from '../../src/warehouse/index.js';

const engine = openSqliteEngine(process.argv[2] ?? '', { timeoutMs: 600_000 });
await engine.query('SELECT 1');
void engine.query('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c');
setTimeout(() => process.exit(0), 200);
