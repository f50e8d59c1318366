/** Units of the command-agent protocol: the answer line, the config keys, the keyed body. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_ANSWER_LINE_CHARS, MAX_ANSWER_TEXT_CHARS, parseCommandAnswer } from '../../src/agent/command-answer.js';
import { questionInput } from '../../src/agent/command-agent.js';
import { loadConfig } from '../../src/config/load.js';
import { chatCompletionEvents, deltas } from '../../src/endpoint/sse.js';
import { readJsonBody } from '../../src/endpoint/read-body.js';
import { DEFAULT_IGNORED_FIELDS, IGNORABLE_FIELDS, keyedBody, routeOf } from '../../src/endpoint/wire-request.js';
import { sqliteReadOnlyUri } from '../../src/pipeline/project.js';

describe('parseCommandAnswer', () => {
  it('reads the last line; earlier lines are the program\'s own', () => {
    expect(parseCommandAnswer('log line\n{"sql": "SELECT 1", "answer": "one"}\n\n')).toEqual({ form: 'sql', sql: 'SELECT 1', text: 'one' });
    expect(parseCommandAnswer('{"columns": ["n"], "rows": [[1], [true], [null]]}')).toEqual({ form: 'rows', columns: ['n'], rows: [[1], [1], [null]] });
    expect(parseCommandAnswer('{"decline": "no such data"}')).toEqual({ form: 'decline', reason: 'no such data' });
    expect(parseCommandAnswer('{"ask_back": "Which year?"}')).toEqual({ form: 'ask_back', question: 'Which year?' });
  });
  it.each([
    ['', /printed nothing/],
    ['  \n\n', /printed nothing/],
    ['{"sql": "SELECT 1"', /not JSON/],
    ['[1, 2]', /JSON but not an object \(an array\)/],
    ['{}', /none of 'sql', 'rows', 'decline', 'ask_back'/],
    ['{"sql": "SELECT 1", "decline": "x"}', /both 'sql' and 'decline'; give exactly one/],
    ['{"sql": ""}', /'sql' must be a non-empty string/],
    ['{"sql": 1}', /'sql' must be a non-empty string, got number 1/],
    ['{"rows": [[1]]}', /'rows' needs 'columns'/],
    ['{"rows": [[1, 2]], "columns": ["a"]}', /rows\[0\] has 2 cell\(s\) but there are 1 column/],
    ['{"rows": [[{"a": 1}]], "columns": ["a"]}', /rows\[0\]\[0\] must be a string, number, boolean or null, got an object/],
    ['{"decline": ""}', /'decline' must be a non-empty string/],
    ['{"sql": "SELECT 1", "answer": 3}', /'answer' must be a string/],
    ['{"SQL": "SELECT 1"}', /unknown key\(s\) 'SQL'/],
    ['{"sql": "SELECT 1", "columns": ["a"]}', /'columns' goes with 'rows'/],
    ['{"sql": null}', /none of 'sql', 'rows', 'decline', 'ask_back'/],
  ])('%j → %s', (stdout, message) => {
    expect(parseCommandAnswer(stdout)).toMatch(message);
  });
  it('null is absent (Python None): a key set to null is as if not given', () => {
    expect(parseCommandAnswer('{"sql": null, "decline": "no such data", "answer": null}')).toEqual({ form: 'decline', reason: 'no such data' });
    expect(parseCommandAnswer('{"sql": "SELECT 1", "answer": null, "rows": null, "columns": null, "ask_back": null}')).toEqual({ form: 'sql', sql: 'SELECT 1' });
  });
  it('texts are bounded: a long text is cut, saying how long it was', () => {
    const answer = parseCommandAnswer(JSON.stringify({ decline: 'r'.repeat(100_000), answer: 'x'.repeat(1024 * 1024) }));
    expect(answer).toMatchObject({ form: 'decline' });
    const { reason, text } = answer as { reason: string; text: string };
    expect(text.length).toBeLessThan(MAX_ANSWER_TEXT_CHARS + 100);
    expect(text).toMatch(/… \(cut: 1048576 characters\)$/);
    expect(reason).toMatch(/… \(cut: 100000 characters\)$/);
  });
  it('a 15 MiB answer (text, rows or SQL) is refused with a clear error saying how long it was, never parsed', () => {
    for (const answer of [
      { decline: 'no', answer: 'x'.repeat(15 * 1024 * 1024) },
      { columns: ['a'], rows: Array(300_000).fill(['x'.repeat(14)]) },
      { sql: `SELECT ${'1+'.repeat(8 * 1024 * 1024)}1` },
    ]) {
      const line = JSON.stringify(answer);
      expect(line.length).toBeGreaterThan(MAX_ANSWER_LINE_CHARS);
      const out = parseCommandAnswer(`log\n${line}\n`);
      expect(typeof out).toBe('string');
      expect(out).toMatch(/^the answer on the last line of standard output is \d+\.\d MiB \(\d+ characters\), over the limit of 4\.0 MiB; print \{"sql"/);
    }
  });
});

describe('the question a command agent gets', () => {
  it('has no golden SQL, expected rows, notes or kind', () => {
    expect(
      questionInput({ id: 'q', question: 'How many?', split: 'test', kind: 'decline', goldenSql: 'SELECT 1', db: 'main', ordered: false, set: false, hint: 'h', notes: 'n', source: 'x' }),
    ).toEqual({ id: 'q', question: 'How many?', db: 'main', hint: 'h' });
  });
  it('its database is a read-only file: URI', () => {
    expect(sqliteReadOnlyUri('/repo/ware house/db.sqlite')).toBe('file:///repo/ware%20house/db.sqlite?mode=ro');
  });
});

describe('keys of wire requests', () => {
  it('leave out stream and the ignored fields, nothing else', () => {
    const body = { model: 'm', messages: [], stream: true, stream_options: { include_usage: true }, user: 'u', metadata: { a: 1 }, store: false, temperature: 0 };
    expect(keyedBody(body, DEFAULT_IGNORED_FIELDS)).toEqual({ model: 'm', messages: [], temperature: 0 });
    expect(keyedBody(body, [])).toEqual({ model: 'm', messages: [], stream_options: { include_usage: true }, user: 'u', metadata: { a: 1 }, store: false, temperature: 0 });
  });
  it('routes', () => {
    expect(routeOf('POST', '/v1/responses')).toBe('responses');
    expect(routeOf('GET', '/v1/models/gpt-4o')).toBe('models');
    expect(routeOf('GET', '/v1/models/meta-llama%2FLlama-3-8B')).toBe('models');
    // Dot segments a URL parser would resolve upstream are not model ids.
    for (const id of ['%2e%2e', '.%2E', '..', '.', 'a%2F..', '%2F', '%zz', '']) expect(routeOf('GET', `/v1/models/${id}`), id).toBeUndefined();
    expect(routeOf('GET', '/v1/chat/completions')).toBeUndefined();
    expect(routeOf('POST', '/v1/completions')).toBeUndefined();
  });
  it('streamed deltas never split a surrogate pair and reassemble the text', () => {
    const text = '🎵'.repeat(20) + 'abc';
    expect(deltas(text).every((d) => !/[\ud800-\udbff]$/.test(d))).toBe(true);
    expect(deltas(text).join('')).toBe(text);
    const events = chatCompletionEvents({ id: 'c', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'stop' }] }, false);
    expect(events).toHaveLength(3);
  });
});

describe('request bodies are read losslessly or refused, naming what is wrong', () => {
  const read = (text: string | Uint8Array): unknown => readJsonBody(typeof text === 'string' ? Buffer.from(text) : text);
  it.each([
    ['{"model": "m", "temperature": 1e999}', 'lossy_json', /the number 1e999 in the request body is out of range/],
    ['{"temperature": -1E400}', 'lossy_json', /-1E400 .* out of range/],
    ['{"seed": 123456789012345678901234567890}', 'lossy_json', /the number 123456789012345678901234567890 .*cannot be kept exactly: it would be read as 1\.2345678901234568e\+29/],
    ['{"x": [0.10000000000000000001]}', 'lossy_json', /cannot be kept exactly: it would be read as 0\.1/],
    // 2^60 is a double, but written back in shortest form it is another integer (…847000).
    ['{"x": 1152921504606846976}', 'lossy_json', /it would be read as 1152921504606847000/],
    ['{"x": 1e-400}', 'lossy_json', /cannot be kept exactly: it would be read as 0/],
    ['{"__proto__": {"polluted": true}, "model": "m"}', 'lossy_json', /a key named '__proto__'/],
    ['{"a": {"b": [{"__proto__": 1}]}}', 'lossy_json', /a key named '__proto__'/],
    ['{"model": "a", "model": "b"}', 'lossy_json', /names the key "model" twice in one object/],
    ['{"m": {"k": 1, "\\u006b": 2}}', 'lossy_json', /names the key "k" twice/],
    ['{"x": 1', 'invalid_json', /not JSON/],
    ['[1]', 'invalid_json', /must be a JSON object/],
  ])('%s → %s', (text, code, problem) => {
    expect(read(text)).toMatchObject({ code, problem: expect.stringMatching(problem) });
  });
  it('invalid UTF-8 is refused (never replaced by U+FFFD), naming the byte', () => {
    expect(read(Buffer.concat([Buffer.from('{"model": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]))).toMatchObject({ code: 'invalid_utf8', problem: expect.stringMatching(/not valid UTF-8 \(byte 12 of 15\)/) });
  });
  it('keeps what it can keep exactly: other spellings of a number, integers written as they are read back, escapes, the same key in two objects', () => {
    const text = '{"t": 1.0, "e": 1e2, "z": -0, "big": 9007199254740993000, "s": "\\ud83c\\udfb5 \\"{x}\\"", "a": {"k": 1}, "b": {"k": 2}, "n": 1.5e-7}';
    expect(read(text)).toEqual({ body: JSON.parse(text) });
  });
});

describe('kind: command in replaygate.yml', () => {
  const load = async (agent: string): Promise<unknown> => {
    const dir = mkdtempSync(join(tmpdir(), 'replaygate-cmdcfg-'));
    try {
      writeFileSync(join(dir, 'db.sqlite'), '');
      writeFileSync(join(dir, 'agent.py'), 'print(1)\n');
      writeFileSync(join(dir, 'g.yml'), 'questions: []\n');
      writeFileSync(join(dir, 'replaygate.yml'), `warehouse:\n  path: db.sqlite\ngolden: g.yml\nagents:\n  a:\n${agent}`);
      const config = await loadConfig(join(dir, 'replaygate.yml'));
      const a = config.agents.get('a')!;
      return { ...a, cwd: a.cwd === dir, prompt: a.prompt === join(dir, 'agent.py') ? 'agent.py' : a.prompt, recording: undefined };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  it('reads command, timeout_ms, concurrency, ignore_fields; the script is the prompt file', async () => {
    expect(await load('    kind: command\n    command: [python3, agent.py]\n    timeout_ms: 5000\n    concurrency: 2\n    ignore_fields: [user, safety_identifier]\n')).toMatchObject({
      kind: 'command', command: ['python3', 'agent.py'], cwd: true, timeoutMs: 5000, concurrency: 2, ignoreFields: ['user', 'safety_identifier'], prompt: 'agent.py', model: '',
    });
    expect(await load('    kind: command\n    command: [python3, agent.py]\n')).toMatchObject({ timeoutMs: 60000, concurrency: 4, ignoreFields: DEFAULT_IGNORED_FIELDS });
    // Paths inside the project, flags and inline code are fine.
    expect(await load('    kind: command\n    command: [python3, -u, ./agent.py, --db=db.sqlite, -c, "print(1/2)", .]\n')).toMatchObject({ command: ['python3', '-u', './agent.py', '--db=db.sqlite', '-c', 'print(1/2)', '.'], prompt: 'agent.py' });
    expect(await load(`    kind: command\n    command: [python3, agent.py]\n    ignore_fields: [${IGNORABLE_FIELDS.join(', ')}]\n`)).toMatchObject({ ignoreFields: IGNORABLE_FIELDS });
  });
  it.each<[string, RegExp]>([
    ['    kind: command\n    command: python3 agent.py\n', /replaygate\.yml:\d+: agent 'a': 'command' must be a list \(argv, no shell\)/],
    ['    kind: command\n    command: []\n', /'command' must be a non-empty list/],
    ['    kind: command\n    command: [python3, agent.py]\n    ignore_fields: [messages]\n', /cannot leave 'messages' out of the key/],
    ['    kind: command\n    command: [python3, agent.py]\n    ignore_fields: [temperature]\n', /cannot leave 'temperature' out of the key/],
    ['    kind: command\n    command: [python3, agent.py]\n    ignore_fields: [stream]\n', /'stream' is never in the key/],
    // ignore_fields is an allow-list: anything not known to leave the answer unchanged stays keyed.
    ...['options', 'guided_json', 'chat_template_kwargs', 'extra_body', 'service_tier', 'enable_thinking', 'think', 'reasoning_effort', 'web_search_options', 'unheard_of'].map(
      (f): [string, RegExp] => [`    kind: command\n    command: [python3, agent.py]\n    ignore_fields: [user, ${f}]\n`, new RegExp(`replaygate\\.yml:\\d+: 'ignore_fields' cannot leave '${f}' out of the key: only fields known not to change`)],
    ),
    // Unknown and inapplicable keys name their line, with did-you-mean.
    ['    kind: command\n    command: [python3, agent.py]\n    timeout: 5000\n', /replaygate\.yml:8: unknown key 'agents\.a\.timeout': did you mean 'timeout_ms'\?/],
    ['    kind: command\n    command: [python3, agent.py]\n    env: {A: 1}\n', /replaygate\.yml:8: unknown key 'agents\.a\.env' \(known/],
    ['    kind: command\n    command: [python3, agent.py]\n    cwd: sub\n', /replaygate\.yml:8: unknown key 'agents\.a\.cwd'/],
    ['    kind: command\n    command: [python3, agent.py]\n    concurency: 2\n', /did you mean 'concurrency'\?/],
    ['    kind: command\n    command: [python3, agent.py]\n    ignore-fields: [user]\n', /did you mean 'ignore_fields'\?/],
    ['    kind: command\n    command: [python3, agent.py]\n    temperature: 0.7\n', /replaygate\.yml:8: 'agents\.a\.temperature' does not apply to kind: command: the program sets its own sampling settings/],
    ['    kind: command\n    command: [python3, agent.py]\n    max_calls: 3\n', /replaygate\.yml:8: 'agents\.a\.max_calls' does not apply to kind: command: the program decides how many model calls/],
    ['    kind: command\n    command: [python3, agent.py]\n    top_p: 1\n', /'agents\.a\.top_p' does not apply to kind: command/],
    ['    kind: command\n    command: [python3, agent.py]\n    max_tokens: 10\n', /'agents\.a\.max_tokens' does not apply to kind: command/],
    // A program given as a path must exist and be executable; a missing script argument is named.
    ['    kind: command\n    command: [./agents/nope.py]\n', /replaygate\.yml:7: agent 'a': the command's program "\.\/agents\/nope\.py" was not found \(looked for .*agents\/nope\.py\)/],
    ['    kind: command\n    command: [./agent.py]\n', /replaygate\.yml:7: agent 'a': the command's program "\.\/agent\.py" is not executable: chmod \+x it, or run it through its interpreter, e\.g\. \[python3, agent\.py\]/],
    ['    kind: command\n    command: [python3, agents/nope.py]\n', /replaygate\.yml:7: agent 'a': the command's argument "agents\/nope\.py" is not a file/],
    ['    kind: command\n    command: [python3, nope.py]\n', /the command's argument "nope\.py" is not a file/],
    // The default prompt file is a file inside the project, never one outside it.
    // Nothing the command names may point outside the project: program, arguments, prompt file.
    ['    kind: command\n    command: [cat, ../../../../../../../../etc/hostname]\n', /replaygate\.yml:7: agent 'a': the command's argument "\.\.\/.*etc\/hostname" names a path outside the project \(\/etc\/hostname\)/],
    ['    kind: command\n    command: [python3, agent.py, /etc/passwd]\n', /the command's argument "\/etc\/passwd" names a path outside the project/],
    ['    kind: command\n    command: [python3, agent.py, --db=/etc/passwd]\n', /the command's argument "--db=\/etc\/passwd" names a path outside the project/],
    ['    kind: command\n    command: [python3, agent.py, ../other.py]\n', /the command's argument "\.\.\/other\.py" names a path outside the project/],
    ['    kind: command\n    command: [/usr/bin/python3, agent.py]\n', /replaygate\.yml:7: agent 'a': the command's program "\/usr\/bin\/python3" is outside the project \(\/usr\/bin\/python3\); name an interpreter by its name on PATH \(e\.g\. \[python3, …\]\)/],
    ['    kind: command\n    command: [../../bin/agent]\n', /the command's program "\.\.\/\.\.\/bin\/agent" is outside the project/],
    ['    kind: command\n    command: [python3, agent.py]\n    prompt: /etc/hostname\n', /replaygate\.yml:\d+: agent 'a': 'prompt' "\/etc\/hostname" is outside the project/],
    ['    kind: command\n    command: [python3, agent.py]\n    timeout_ms: 0\n', /'timeout_ms' must be a whole number from 100/],
    ['    kind: command\n    command: [python3, -c, "print(1)"]\n', /none of the command's arguments is a file in the project; add 'prompt:'/],
    ['    kind: sql\n    model: m\n    prompt: agent.py\n    command: [python3, agent.py]\n', /'command' is only for kind: command/],
  ])('%j is refused', async (agent, message) => {
    await expect(load(agent)).rejects.toThrow(message);
  });
});
