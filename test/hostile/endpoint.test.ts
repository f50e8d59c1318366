/**
 * Hostile clients of the command agents' model endpoint (src/endpoint), over real sockets on
 * 127.0.0.1: bodies nested without end, bodies without end, non-JSON, other paths, another
 * run's token, a run that has ended, header injection, many connections at once. Each attack
 * must be answered with a 4xx/5xx OpenAI-style error, be recorded as the run's protocol error
 * (so the run fails loudly) where it came from the run, never reach the model client (no live
 * model behind a refusal), never be a bug of the endpoint (exit 3), and stay bounded in time
 * and memory.
 */
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelClient } from '../../src/model/types.js';
import { HEADERS_TIMEOUT_MS, MAX_CONNECTIONS, MAX_REQUEST_BYTES, ModelEndpoint, REQUEST_TIMEOUT_MS, TIMEOUT_CHECK_MS, type EndpointRun } from '../../src/endpoint/model-endpoint.js';
import { MAX_JSON_DEPTH } from '../../src/recording/canonical.js';

/** A model client that counts what reaches it (nothing refused may). */
function countingModel(): ModelClient & { calls: number } {
  const model = {
    calls: 0,
    complete: async () => {
      model.calls += 1;
      return { key: 'sha256:00', reply: { body: { id: 'c', object: 'chat.completion', choices: [] } }, usage: { prompt_tokens: 0, completion_tokens: 0 } };
    },
  };
  return model as unknown as ModelClient & { calls: number };
}

/** Sends raw bytes, returns what came back (status line first) once the server closes or `ms` pass. */
function raw(port: number, write: (send: (s: string | Buffer) => boolean) => Promise<void> | void, ms = 5_000): Promise<{ text: string; closed: boolean; elapsed: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let closed = false;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed, elapsed: Date.now() - started });
    }, ms);
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      clearTimeout(timer);
      resolve({ text, closed, elapsed: Date.now() - started });
    });
    socket.on('connect', () => void Promise.resolve(write((s) => (socket.destroyed ? false : socket.write(s)))).catch(() => socket.destroy()));
  });
}

describe('model endpoint under attack (hostile)', () => {
  let endpoint: ModelEndpoint;
  let model: ModelClient & { calls: number };
  let run: EndpointRun;
  let path: string;

  beforeEach(async () => {
    endpoint = await ModelEndpoint.start();
    model = countingModel();
    run = endpoint.open({ model, questionId: 'singers', seed: 0, ignoredFields: [] });
    path = new URL(run.baseUrl).pathname;
  });
  afterEach(async () => {
    await endpoint.close();
  });

  const post = (body: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${run.baseUrl}/chat/completions`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  it.each([
    ['arrays', (n: number) => `{"model":"m","messages":${'['.repeat(n)}${']'.repeat(n)}}`],
    ['objects', (n: number) => `{"model":"m","x":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`],
  ])('%s nested a million deep: 400 nesting_too_deep, a protocol error of the run, never a stack overflow (exit 3)', async (_kind, body) => {
    for (const n of [MAX_JSON_DEPTH + 1, 1_000_000]) {
      const r = await post(body(n));
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('nesting_too_deep');
    }
    expect(run.bug).toBeUndefined();
    expect(run.protocolErrors).toHaveLength(2);
    expect(run.protocolErrors[0]).toMatch(/nests arrays\/objects deeper than 512 levels/);
    expect(model.calls).toBe(0);
    // Nesting up to the limit (a deep tool schema) still reaches the model.
    const ok = await post(`{"model":"m","messages":[],"x":${'['.repeat(MAX_JSON_DEPTH - 2)}${']'.repeat(MAX_JSON_DEPTH - 2)}}`);
    expect(ok.status).toBe(200);
    expect(model.calls).toBe(1);
  });

  it('a chunked body without end: 413 once past the limit, the connection cut soon after, never read to the end', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const r = await raw(
      endpoint.port,
      async (send) => {
        send(`POST ${path}/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`);
        // Up to 4x the limit; the server must stop us long before (each write waits for the socket to drain).
        for (let i = 0; i < (4 * MAX_REQUEST_BYTES) / chunk.length; i++) {
          if (!send(`${chunk.length.toString(16)}\r\n`)) await new Promise((d) => setTimeout(d, 5));
          if (!send(chunk)) await new Promise((d) => setTimeout(d, 5));
          if (!send('\r\n')) await new Promise((d) => setTimeout(d, 5));
        }
      },
      20_000,
    );
    // The 413 is written; a client still sending may see the connection reset before reading it.
    expect(r.text === '' || r.text.startsWith('HTTP/1.1 413 '), r.text.slice(0, 80)).toBe(true);
    expect(r.closed).toBe(true);
    expect(r.elapsed).toBeLessThan(15_000);
    expect(run.protocolErrors).toEqual([expect.stringMatching(/with a body over 32 MiB/)]);
    expect(model.calls).toBe(0);
  });

  it('a body just over the limit, sent whole: the client reads the 413', async () => {
    const r = await post(`{"model":"m","x":"${'a'.repeat(MAX_REQUEST_BYTES)}"}`);
    expect(r.status).toBe(413);
    expect(model.calls).toBe(0);
  });

  it('bad chunk framing, non-JSON, a JSON array, a form body: each refused with 4xx and recorded; the model never asked', async () => {
    const framing = await raw(endpoint.port, (send) => void send(`POST ${path}/chat/completions HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`));
    expect(framing.text).toMatch(/^HTTP\/1\.1 400 /);
    for (const body of ['not json', '[1,2]', 'model=m&messages=x', '', '{"model":"m"']) {
      const r = await post(body, { 'content-type': 'application/x-www-form-urlencoded' });
      expect(r.status, body).toBe(400);
    }
    expect(run.protocolErrors).toHaveLength(5);
    expect(run.bug).toBeUndefined();
    expect(model.calls).toBe(0);
  });

  it('paths other than the API, query strings, dot segments: 404/400, recorded, never served', async () => {
    for (const p of ['/chat/completions/../../../etc/passwd', '/files', '/chat/completions?stream=true', '/%2e%2e/models']) {
      const r = await fetch(`${run.baseUrl}${p}`, { method: 'POST', body: '{}' });
      expect([400, 404], p).toContain(r.status);
    }
    const root = await fetch(`http://127.0.0.1:${endpoint.port}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(root.status).toBe(404);
    expect(model.calls).toBe(0);
    expect(run.bug).toBeUndefined();
  });

  it("another run's token is not this run's; a run that has ended answers nothing (404 unknown_run), the model never asked", async () => {
    const other = endpoint.open({ model, questionId: 'france', seed: 1, ignoredFields: [] });
    endpoint.release(other);
    const after = await fetch(`${other.baseUrl}/chat/completions`, { method: 'POST', body: '{"model":"m","messages":[]}' });
    expect(after.status).toBe(404);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe('unknown_run');
    const guessed = await fetch(`http://127.0.0.1:${endpoint.port}/run/${'0'.repeat(32)}/v1/chat/completions`, { method: 'POST', body: '{"model":"m","messages":[]}' });
    expect(guessed.status).toBe(404);
    expect(model.calls).toBe(0);
    expect(other.protocolErrors).toEqual([]);
  });

  it('header injection (CR/LF in the request line or a header) is refused by the parser; nothing echoed', async () => {
    const r = await raw(endpoint.port, (send) => void send(`POST ${path}/chat/completions\r\nx-injected: 1 HTTP/1.1\r\nhost: x\r\nx-a: b\rset-cookie: c\r\ncontent-length: 2\r\n\r\n{}`));
    expect(r.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(r.text).not.toMatch(/set-cookie|x-injected/i);
    expect(model.calls).toBe(0);
  });

  it(`many connections at once (${MAX_CONNECTIONS + 44}): every one answered or refused, none hangs, no bug, bounded`, async () => {
    const n = MAX_CONNECTIONS + 44;
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        raw(endpoint.port, (send) => {
          const body = `{"model":"m","messages":[{"role":"user","content":"${i}"}]}`;
          send(`POST ${path}/chat/completions HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
        }, 15_000),
      ),
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    for (const r of results) expect(r.closed).toBe(true);
    const ok = results.filter((r) => r.text.startsWith('HTTP/1.1 200')).length;
    expect(ok).toBeGreaterThan(0);
    expect(ok).toBe(model.calls);
    expect(run.bug).toBeUndefined();
  });

  it('listens on 127.0.0.1 only', () => {
    expect(run.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/run\/[0-9a-f]{32}\/v1$/);
  });
});

describe('slow clients (slowloris), with the limits shrunk to milliseconds', () => {
  let endpoint: ModelEndpoint;
  let model: ModelClient & { calls: number };
  let path: string;
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

  beforeEach(async () => {
    endpoint = await ModelEndpoint.start({ headersMs: 300, requestMs: 800, checkMs: 50 });
    model = countingModel();
    path = new URL(endpoint.open({ model, questionId: 'singers', seed: 0, ignoredFields: [] }).baseUrl).pathname;
  });
  afterEach(async () => {
    await endpoint.close();
  });

  it('the production limits are 10 s for headers, 60 s for the whole request, checked every second', () => {
    expect([HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, TIMEOUT_CHECK_MS]).toEqual([10_000, 60_000, 1_000]);
  });

  it('headers sent a byte at a time, never finished: 408 and the connection closed once the headers limit passes', async () => {
    const r = await raw(
      endpoint.port,
      async (send) => {
        send(`POST ${path}/chat/completions HTTP/1.1\r\nHost: x\r\n`);
        for (let i = 0; i < 200 && send('X'); i += 1) await sleep(20);
      },
      5_000,
    );
    expect(r.closed).toBe(true);
    expect(r.text).toMatch(/^HTTP\/1\.1 408/);
    expect(r.elapsed).toBeGreaterThanOrEqual(250);
    expect(r.elapsed).toBeLessThan(2_000);
    expect(model.calls).toBe(0);
  });

  it('headers in time, then a body trickled slower than the request limit: closed once the request limit passes', async () => {
    const r = await raw(
      endpoint.port,
      async (send) => {
        send(`POST ${path}/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
        for (let i = 0; i < 200 && send(' '); i += 1) await sleep(20);
      },
      5_000,
    );
    expect(r.closed).toBe(true);
    expect(r.elapsed).toBeGreaterThanOrEqual(700);
    expect(r.elapsed).toBeLessThan(3_000);
    expect(model.calls).toBe(0);
  });

  it('a client that sends its request in time is answered as usual', async () => {
    const run = endpoint.open({ model, questionId: 'singers', seed: 0, ignoredFields: [] });
    const r = await fetch(`${run.baseUrl}/models`);
    expect(r.status).toBe(200);
  });
});
