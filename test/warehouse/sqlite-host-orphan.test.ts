/**
 * A SQLite host whose parent is gone while it runs a statement (the parent was SIGKILLed, or
 * ended without its exit hook) cannot send its reply: it ends quietly, with exit code 0 and
 * nothing on the stderr it shares with the user's terminal (it printed an unhandled EPIPE trace).
 */
import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { hostScriptPath } from '../../src/warehouse/host-script.js';

const DB = resolve(import.meta.dirname, '../../warehouse/spider/concert_singer.sqlite');
const SLOW = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT count(*) FROM c';

test('a host that cannot reply because its parent is gone exits 0 without a trace', async () => {
  const script = hostScriptPath(new URL('../../src/warehouse/sqlite/spare-hosts.ts', import.meta.url).href, 'sqlite-host');
  const child = fork(script, ['auto'], { execArgv: [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json' });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((done) => child.once('message', () => done())); // ready
  child.send({ id: 1, file: DB, sql: SLOW, maxRows: 10, legacyStringLiterals: false });
  await new Promise((wait) => setTimeout(wait, 50));
  child.disconnect(); // as when the parent dies mid-statement
  const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
  expect(stderr).toBe('');
  expect(code).toBe(0);
}, 60_000);
