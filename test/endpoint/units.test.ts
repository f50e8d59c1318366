/** Units of the command-agent protocol: the answer line, the config keys, the keyed body. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommandAnswer } from '../../src/agent/command-answer.js';
import { questionInput } from '../../src/agent/command-agent.js';
import { loadConfig } from '../../src/config/load.js';
import { chatCompletionEvents, deltas } from '../../src/endpoint/sse.js';
import { DEFAULT_IGNORED_FIELDS, keyedBody, routeOf } from '../../src/endpoint/wire-request.js';
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
  ])('%j → %s', (stdout, message) => {
    expect(parseCommandAnswer(stdout)).toMatch(message);
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
  });
  it.each([
    ['    kind: command\n    command: python3 agent.py\n', /replaygate\.yml:\d+: agent 'a': 'command' must be a list \(argv, no shell\)/],
    ['    kind: command\n    command: []\n', /'command' must be a non-empty list/],
    ['    kind: command\n    command: [python3, agent.py]\n    ignore_fields: [messages]\n', /cannot leave 'messages' out of the key/],
    ['    kind: command\n    command: [python3, agent.py]\n    ignore_fields: [temperature]\n', /cannot leave 'temperature' out of the key/],
    ['    kind: command\n    command: [python3, agent.py]\n    ignore_fields: [stream]\n', /'stream' is never in the key/],
    ['    kind: command\n    command: [python3, agent.py]\n    timeout_ms: 0\n', /'timeout_ms' must be a whole number from 100/],
    ['    kind: command\n    command: [python3, -c, "print(1)"]\n', /none of the command's arguments is a file in the project; add 'prompt:'/],
    ['    kind: sql\n    model: m\n    prompt: agent.py\n    command: [python3, agent.py]\n', /'command' is only for kind: command/],
  ])('%j is refused', async (agent, message) => {
    await expect(load(agent)).rejects.toThrow(message);
  });
});
