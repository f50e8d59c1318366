/**
 * Hostile data files read by every replaying command: golden YAML, prompt templates, recording
 * manifests and calls.jsonl (wrong JSON types, a folder in place of a file, symlinks out of the
 * project, NUL bytes, deep nesting, BOMs, CRLF, duplicate ids, immutable folders).
 */
import { buildMini } from './fixtures.js';
import { fixtureOnce, hostileSuite, type HostileCase, type HostileProject } from './harness.js';

const mini = fixtureOnce(buildMini);
const score = ['score', '--no-progress'];
const golden = 'golden/concert_singer.yml';
const calls = 'recordings/base/calls.jsonl';
const manifest = 'recordings/base/manifest.yml';

const goldenCase = (name: string, edit: (text: string) => string, names: readonly (string | RegExp)[]): HostileCase => ({
  name,
  setup: (p) => {
    p.edit(golden, edit);
  },
  args: score,
  names,
});

/** Rewrites the first recorded call with `edit` (keeping every other line). */
function editFirstCall(p: HostileProject, edit: (call: Record<string, unknown>) => unknown): void {
  p.edit(calls, (text) => {
    const lines = text.split('\n');
    const edited = edit(JSON.parse(lines[0] ?? '{}') as Record<string, unknown>);
    lines[0] = typeof edited === 'string' ? edited : JSON.stringify(edited);
    return lines.join('\n');
  });
}

const callCase = (name: string, edit: (call: Record<string, unknown>) => unknown, names: readonly (string | RegExp)[], exit: number | readonly number[] = 2): HostileCase => ({
  name,
  setup: (p) => editFirstCall(p, edit),
  args: ['score', '-a', 'base', '--no-progress'],
  exit,
  names,
});

const manifestCase = (name: string, edit: (text: string) => string, names: readonly (string | RegExp)[]): HostileCase => ({
  name,
  setup: (p) => {
    p.edit(manifest, edit);
  },
  args: ['score', '-a', 'base', '--no-progress'],
  names,
});

hostileSuite('golden files', mini, [
  goldenCase('unknown field (typo) with did-you-mean', (t) => t.replace('    golden_sql: SELECT count(*) FROM singer\n', '    golden_sq: SELECT count(*) FROM singer\n'), [/concert_singer\.yml:5/, "unknown field 'golden_sq'", "did you mean 'golden_sql'?"]),
  goldenCase('unknown top-level key', (t) => t.replace('questions:', 'question:'), [/concert_singer\.yml:2/, "did you mean 'questions'?"]),
  goldenCase('duplicate id', (t) => t.replace('id: q2', 'id: q1'), [/concert_singer\.yml:\d+/, "'q1' is duplicated"]),
  goldenCase('id with a comma', (t) => t.replace('id: q2', 'id: "q,2"'), [/concert_singer\.yml:\d+/, "'id'"]),
  goldenCase('id with a newline', (t) => t.replace('id: q2', 'id: "q\\n2"'), ["'id'"]),
  goldenCase('question is a number', (t) => t.replace('question: How many singers do we have?', 'question: 42'), ["'question' must be a non-empty string"]),
  goldenCase('question is a list', (t) => t.replace('question: How many singers do we have?', 'question: [a, b]'), ["'question'"]),
  goldenCase('golden_sql is a mapping', (t) => t.replace('golden_sql: SELECT count(*) FROM singer', 'golden_sql: {select: 1}'), ["'golden_sql'"]),
  goldenCase('golden_sql that fails', (t) => t.replace('golden_sql: SELECT count(*) FROM singer', 'golden_sql: SELECT nope FROM singer'), ['q1', /golden SQL/]),
  goldenCase('golden_sql that writes', (t) => t.replace('golden_sql: SELECT count(*) FROM singer', 'golden_sql: DELETE FROM singer'), ['q1']),
  goldenCase('kind unknown', (t) => t.replace('  - id: q1\n', '  - id: q1\n    kind: maybe\n'), ["'kind' must be one of answer, decline, forbidden"]),
  goldenCase('split unknown', (t) => t.replace('  - id: q1\n', '  - id: q1\n    split: train\n'), ["'split' must be one of dev, test"]),
  goldenCase('ordered: "yes"', (t) => t.replace('  - id: q1\n', '  - id: q1\n    ordered: "yes"\n'), ["'ordered' must be true or false"]),
  goldenCase('db unknown', (t) => t.replace('  - id: q1\n', '  - id: q1\n    db: nope\n'), ["database 'nope'"]),
  goldenCase('expected with a nested value', (t) => t.replace('    golden_sql: SELECT count(*) FROM singer\n', '    expected: {columns: [n], rows: [[{a: 1}]]}\n'), ["'expected.rows[0][0]'"]),
  goldenCase('expected with a ragged row', (t) => t.replace('    golden_sql: SELECT count(*) FROM singer\n', '    expected: {columns: [n], rows: [[1, 2]]}\n'), ["'expected.rows[0]'"]),
  goldenCase('expected with an unknown key', (t) => t.replace('    golden_sql: SELECT count(*) FROM singer\n', '    expected: {columns: [n], rows: [[6]], rowz: []}\n'), ["'expected'"]),
  goldenCase('a question that is a string', (t) => t.replace('  - id: q1\n    question: How many singers do we have?\n    golden_sql: SELECT count(*) FROM singer\n', '  - just text\n'), ['each golden question must be a mapping']),
  goldenCase('an answer question with no answer', (t) => t.replace('    golden_sql: SELECT count(*) FROM singer\n', ''), ["needs 'golden_sql' or 'expected'"]),
  goldenCase('malformed YAML', (t) => t.replace('id: q1', 'id: [q1'), [/concert_singer\.yml:\d+/, 'malformed YAML']),
  goldenCase('a file holding no questions', () => '# emptied\n', [/concert_singer\.yml/, 'holds no golden questions']),
  goldenCase('golden SQL with a NUL byte', (t) => t.replace('golden_sql: SELECT count(*) FROM singer', 'golden_sql: "SELECT count(*) FROM singer\\0 DROP"'), [/concert_singer\.yml:5/, "'golden_sql'", 'control character']),
  { ...goldenCase('a 1 MB question: its recording no longer matches', (t) => t.replace('question: How many singers do we have?', `question: ${'x'.repeat(1_000_000)}`), ['MissingRecording']), exit: 1 },
  {
    name: 'BOM and CRLF in a golden file are fine',
    setup: (p) => {
      p.edit(golden, (t) => `\ufeff${t.replace(/\n/g, '\r\n')}`);
    },
    args: score,
    exit: 0,
  },
  {
    name: 'a golden file that is a symlink to a folder',
    setup: (p) => {
      p.remove(golden).symlink(golden, '/tmp');
    },
    args: score,
    names: [/concert_singer\.yml|golden/],
  },
  {
    name: 'a golden file that is a dangling symlink',
    setup: (p) => {
      p.remove(golden).symlink(golden, 'nowhere.yml');
    },
    args: score,
    exit: [1, 2],
  },
  {
    name: 'golden folder unreadable (immutable is fine, only reading)',
    setup: (p) => {
      p.lock('golden');
    },
    args: score,
    exit: 0,
  },
]);

hostileSuite('prompt templates', mini, [
  {
    name: 'prompt with an unknown placeholder',
    setup: (p) => {
      p.edit('prompts/sql.md', (t) => `${t}\n{{colour}}\n`);
    },
    args: score,
    names: [/sql\.md/, '{{colour}}'],
  },
  {
    name: 'prompt without the user separator',
    setup: (p) => {
      p.write('prompts/sql.md', 'Only a system message {{question}}\n');
    },
    args: score,
    exit: [1, 2],
  },
  {
    name: 'prompt is a folder',
    setup: (p) => {
      p.remove('prompts/sql.md').mkdir('prompts/sql.md');
    },
    args: score,
    names: [/prompts\/sql\.md/],
  },
  {
    name: 'prompt is binary',
    setup: (p) => {
      p.write('prompts/sql.md', Buffer.from([0, 255, 254, 0, 10, 45, 45]));
    },
    args: score,
    exit: [1, 2],
  },
  {
    name: 'an edited prompt gives MissingRecording (exit 1), never a crash',
    setup: (p) => {
      p.replace('prompts/sql.md', 'analyst', 'analysts');
    },
    args: score,
    exit: 1,
    names: ['MissingRecording', 'replaygate record'],
  },
]);

hostileSuite('recordings', mini, [
  callCase('reply.content is a number', (c) => ({ ...c, reply: { content: 42 } }), [/calls\.jsonl:1/, "'reply.content'"]),
  callCase('reply.content is an object', (c) => ({ ...c, reply: { content: { sql: 'SELECT 1' } } }), [/calls\.jsonl:1/, "'reply.content'"]),
  callCase('reply.tool_calls is a string', (c) => ({ ...c, reply: { content: null, tool_calls: 'run_sql' } }), [/calls\.jsonl:1/, "'reply.tool_calls'"]),
  callCase('reply is a list', (c) => ({ ...c, reply: ['SELECT 1'] }), [/calls\.jsonl:1/, "'reply'"]),
  callCase('reply is null', (c) => ({ ...c, reply: null }), [/calls\.jsonl:1/, "'reply'"]),
  callCase('usage.prompt_tokens is a string', (c) => ({ ...c, usage: { prompt_tokens: 'many', completion_tokens: 1 } }), [/calls\.jsonl:1/, "'usage"]),
  callCase('usage is a list', (c) => ({ ...c, usage: [1, 2] }), [/calls\.jsonl:1/, "'usage'"]),
  callCase('seed is a string', (c) => ({ ...c, seed: '0' }), [/calls\.jsonl:1/, "'seed'"]),
  callCase('seed is huge', (c) => ({ ...c, seed: 1e300 }), [/calls\.jsonl:1/, "'seed'"]),
  callCase('call_index is negative', (c) => ({ ...c, call_index: -1 }), [/calls\.jsonl:1/, "'call_index'"]),
  callCase('question_id is a number', (c) => ({ ...c, question_id: 5 }), [/calls\.jsonl:1/, "'question_id'"]),
  callCase('key edited by hand', (c) => ({ ...c, key: `sha256:${'0'.repeat(64)}` }), [/calls\.jsonl:1/, 'does not match its request']),
  callCase('request is a string', (c) => ({ ...c, request: 'hi' }), [/calls\.jsonl:1/, "'request'"]),
  callCase('request nested 10,000 deep', (c) => `{"key":"${String(c['key'])}","request":${'['.repeat(10_000)}${']'.repeat(10_000)},"reply":{"content":"SELECT 1"},"question_id":"q1","seed":0,"call_index":0}`, [/calls\.jsonl:1/]),
  callCase('a line that is not JSON', () => '{"key": "sha256:', [/calls\.jsonl:1/, 'not valid JSON']),
  callCase('a line that is a JSON list', () => '[1,2,3]', [/calls\.jsonl:1/, 'a recording line must be a JSON object']),
  callCase('a NUL byte in a line', () => '\u0000\u0000', [/calls\.jsonl:1/]),
  callCase('a line with a lone surrogate escape in the reply', (c) => JSON.stringify({ ...c, reply: { content: 'SELECT 1 \ud800' } }), [], [0, 1, 2]),
  {
    name: 'calls.jsonl is a folder',
    setup: (p) => {
      p.remove(calls).mkdir(calls);
    },
    args: ['score', '-a', 'base', '--no-progress'],
    names: [/calls\.jsonl/, /folder|EISDIR/],
  },
  {
    name: 'calls.jsonl is missing (manifest present)',
    setup: (p) => {
      p.remove(calls);
    },
    args: ['score', '-a', 'base', '--no-progress'],
    names: [/calls\.jsonl/],
  },
  {
    name: 'calls.jsonl is a symlink outside the project',
    setup: (p) => {
      p.remove(calls).symlink(calls, '/etc/passwd');
    },
    args: ['score', '-a', 'base', '--no-progress'],
    names: [/calls\.jsonl:1/],
  },
  {
    name: 'calls.jsonl with CRLF line ends and a BOM replays',
    setup: (p) => {
      p.edit(calls, (t) => `\ufeff${t.replace(/\n/g, '\r\n')}`);
    },
    args: ['score', '-a', 'base', '--no-progress'],
    exit: 0,
  },
  {
    name: 'the recordings folder is immutable: replay only reads',
    setup: (p) => {
      p.lock('recordings/base');
      p.lock(calls);
      p.lock(manifest);
    },
    args: ['score', '-a', 'base', '--no-progress'],
    exit: 0,
  },
  {
    name: 'two lines record the same request with different replies',
    setup: (p) => {
      p.edit(calls, (t) => {
        const first = JSON.parse(t.split('\n')[0] ?? '{}') as Record<string, unknown>;
        return `${t}${JSON.stringify({ ...first, reply: { content: 'SELECT 2' } })}\n`;
      });
    },
    args: ['score', '-a', 'base', '--no-progress'],
    names: [/calls\.jsonl:\d+/, 'different replies'],
  },
  manifestCase('manifest unknown key (typo)', (t) => t.replace('recorder:', 'recordr:'), [/manifest\.yml:\d+/, "did you mean 'recorder'?"]),
  manifestCase('manifest unknown sampling key', (t) => t.replace('  top_p: 1', '  topp: 1'), [/manifest\.yml:\d+/, "'sampling.topp'", "did you mean 'top_p'?"]),
  manifestCase('manifest seeds are strings', (t) => t.replace(/seeds:\n  - 0\n  - 1\n/, 'seeds: [a, b]\n'), [/manifest\.yml:\d+/, "'seeds'"]),
  manifestCase('manifest sampling is a string', (t) => t.replace(/sampling:\n  temperature: 0\n  top_p: 1\n  max_tokens: 1024\n/, 'sampling: greedy\n'), [/manifest\.yml:\d+/, "'sampling'"]),
  manifestCase('manifest name is a number', (t) => t.replace('name: base', 'name: 5'), [/manifest\.yml/, "'name' must be a string"]),
  manifestCase('manifest prompt_files is a list', (t) => t.replace(/prompt_files:\n.*\n/, 'prompt_files: [a]\n'), [/manifest\.yml:\d+/, "'prompt_files'"]),
  manifestCase('manifest constructed: "yes"', (t) => `${t}constructed: "yes"\n`.replace('constructed: false\n', ''), [/manifest\.yml:\d+/, "'constructed'"]),
  manifestCase('manifest is a list', () => '- a\n- b\n', [/manifest\.yml/, 'must be a mapping']),
  manifestCase('manifest is malformed YAML', (t) => t.replace('name: base', 'name: [base'), [/manifest\.yml:\d+/, 'malformed YAML']),
  {
    name: 'manifest is a folder',
    setup: (p) => {
      p.remove(manifest).mkdir(manifest);
    },
    args: ['score', '-a', 'base', '--no-progress'],
    names: [/manifest\.yml/],
  },
  {
    name: 'the recording folder is a file',
    setup: (p) => {
      p.remove('recordings/base').write('recordings/base', 'not a folder');
    },
    args: ['score', '-a', 'base', '--no-progress'],
    names: [/recordings\/base/],
  },
  {
    name: 'no recording at all',
    setup: (p) => {
      p.remove('recordings/base');
    },
    args: ['score', '-a', 'base', '--no-progress'],
    names: ["agent 'base' has no recording", 'replaygate record --agent base'],
  },
]);
