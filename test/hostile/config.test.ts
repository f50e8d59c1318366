/**
 * Hostile replaygate.yml: unknown keys everywhere (with "did you mean"), wrong types, absurd
 * numbers, NUL bytes, BOMs, CRLF, deep nesting, aliases, paths that are folders or missing.
 * Run through `score` (every command loads the config the same way; a few cases use others).
 */
import { buildMini } from './fixtures.js';
import { fixtureOnce, hostileSuite, type HostileCase } from './harness.js';

const mini = fixtureOnce(buildMini);
const score = ['score', '--no-progress'];
const cfg = 'replaygate.yml';

/** A case that edits replaygate.yml and expects `score` to refuse it naming `names`. */
const bad = (name: string, edit: (text: string) => string, names: readonly (string | RegExp)[], args: readonly string[] = score): HostileCase => ({
  name,
  setup: (p) => {
    p.edit(cfg, edit);
  },
  args,
  names,
});

hostileSuite('replaygate.yml', mini, [
  bad('unknown top-level key, a typo', (t) => t.replace('seeds:', 'sedes:'), [/replaygate\.yml:\d+/, "unknown key 'sedes'", "did you mean 'seeds'?"]),
  bad('unknown top-level key, far from any', (t) => `${t}colour: blue\n`, [/replaygate\.yml:\d+/, "unknown key 'colour'", 'known: warehouse']),
  bad('unknown agent key: temprature', (t) => t.replace('    model: gpt-4\n', '    model: gpt-4\n    temprature: 0.5\n'), [/replaygate\.yml:\d+/, "'agents.base.temprature'", "did you mean 'temperature'?"]),
  bad('unknown agent key in a different case', (t) => t.replace('    model: gpt-4\n', '    model: gpt-4\n    Max_Tokens: 5\n'), ["did you mean 'max_tokens'?"]),
  bad('custom agent setting beside model (needs options:)', (t) => t.replace('    model: gpt-4\n', '    model: gpt-4\n    style: terse\n'), ["unknown key 'agents.base.style'"]),
  bad('options: on a sql agent', (t) => t.replace('    model: gpt-4\n', '    model: gpt-4\n    options: {a: 1}\n'), ["unknown key 'agents.base.options'"]),
  bad('unknown warehouse key', (t) => t.replace('  max_rows: 10000', '  max_row: 10000'), [/replaygate\.yml:4/, "did you mean 'max_rows'?"]),
  bad('unknown gate key (typo)', (t) => `${t}gate:\n  fail_on_stable_brake: true\n`, [/replaygate\.yml:\d+/, "did you mean 'fail_on_stable_break'?"]),
  bad('unknown gate.stable_break key', (t) => `${t}gate:\n  stable_break:\n    base_mn: 0.8\n`, [/replaygate\.yml:\d+/, "did you mean 'base_min'?"]),
  bad('unknown judge key', (t) => `${t}judge:\n  model: gpt-4o\n  temprature: 0\n`, [/replaygate\.yml:\d+/, "'judge.temprature'", "did you mean 'temperature'?"]),
  bad('a key under confidence:, which takes none', (t) => `${t}confidence:\n  pass_at: 0.8\n`, [/replaygate\.yml:\d+/, "unknown key 'confidence.pass_at'"]),
  bad('a key under report:, which takes none', (t) => `${t}report:\n  title: x\n`, ["unknown key 'report.title'"]),
  bad('seeds: a billion', (t) => t.replace('seeds: [0, 1]', 'seeds: 1000000000'), [/replaygate\.yml:\d+/, "'seeds'", 'from 1 to 1000']),
  bad('seeds: 0', (t) => t.replace('seeds: [0, 1]', 'seeds: 0'), ["'seeds'", 'from 1 to 1000']),
  bad('seeds: -3', (t) => t.replace('seeds: [0, 1]', 'seeds: -3'), ["'seeds'"]),
  bad('seeds: 2.5', (t) => t.replace('seeds: [0, 1]', 'seeds: 2.5'), ["'seeds'", 'whole number']),
  bad('seeds: "five"', (t) => t.replace('seeds: [0, 1]', 'seeds: five'), ["'seeds'", '"five"']),
  bad('seeds: .inf', (t) => t.replace('seeds: [0, 1]', 'seeds: .inf'), ["'seeds'"]),
  bad('seeds: .nan', (t) => t.replace('seeds: [0, 1]', 'seeds: .nan'), ["'seeds'"]),
  bad('seeds: []', (t) => t.replace('seeds: [0, 1]', 'seeds: []'), ["'seeds'", 'non-empty']),
  bad('seeds list with a huge seed', (t) => t.replace('seeds: [0, 1]', 'seeds: [0, 99999999999]'), ["'seeds[1]'", 'from 0 to 2147483647']),
  bad('seeds list with a string', (t) => t.replace('seeds: [0, 1]', 'seeds: [0, "1"]'), ["'seeds[1]'"]),
  bad('seeds list with a duplicate', (t) => t.replace('seeds: [0, 1]', 'seeds: [1, 1]'), ['seed 1 twice']),
  bad('seeds: a mapping', (t) => t.replace('seeds: [0, 1]', 'seeds: {a: 1}'), ["'seeds'", 'a mapping']),
  bad('temperature: a string', (t) => t.replace('    model: gpt-4\n', '    model: gpt-4\n    temperature: hot\n'), ["'agents.base.temperature'", '"hot"']),
  bad('temperature: .nan', (t) => t.replace('    model: gpt-4\n', '    model: gpt-4\n    temperature: .nan\n'), ["'agents.base.temperature'", 'NaN']),
  bad('temperature: 3', (t) => t.replace('    model: gpt-4\n', '    model: gpt-4\n    temperature: 3\n'), ['from 0 to 2']),
  bad('max_tokens: 1e12', (t) => t.replace('    model: gpt-4\n', '    model: gpt-4\n    max_tokens: 1000000000000\n'), ["'agents.base.max_tokens'"]),
  bad('max_tokens: 10.5', (t) => t.replace('    model: gpt-4\n', '    model: gpt-4\n    max_tokens: 10.5\n'), ['whole number']),
  bad('warehouse.timeout_ms: 1e15 (past what a timer holds)', (t) => t.replace('timeout_ms: 5000', 'timeout_ms: 1000000000000000'), ["'warehouse.timeout_ms'"]),
  bad('warehouse.max_rows: 0', (t) => t.replace('max_rows: 10000', 'max_rows: 0'), ["'warehouse.max_rows'"]),
  bad('warehouse.max_rows: a list', (t) => t.replace('max_rows: 10000', 'max_rows: [1]'), ["'warehouse.max_rows'", 'a list']),
  bad('warehouse.isolation: threads', (t) => t.replace('isolation: inline', 'isolation: threads'), ["'warehouse.isolation'"]),
  bad('warehouse: a string', (t) => t.replace(/warehouse:\n  databases:\n    concert_singer: warehouse\/concert_singer.sqlite\n  max_rows: 10000\n  timeout_ms: 5000\n  isolation: inline\n/, 'warehouse: concert.sqlite\n'), ["'warehouse' must be a mapping"]),
  bad('warehouse missing', (t) => t.replace(/warehouse:\n  databases:\n    concert_singer: warehouse\/concert_singer.sqlite\n  max_rows: 10000\n  timeout_ms: 5000\n  isolation: inline\n/, ''), ["missing 'warehouse'"]),
  bad('database path is a number', (t) => t.replace('concert_singer: warehouse/concert_singer.sqlite', 'concert_singer: 42'), ["'warehouse.databases.concert_singer'"]),
  bad('database path with a NUL byte', (t) => t.replace('concert_singer: warehouse/concert_singer.sqlite', 'concert_singer: "warehouse/concert\\0singer.sqlite"'), ['NUL']),
  bad('database file missing', (t) => t.replace('concert_singer: warehouse/concert_singer.sqlite', 'concert_singer: warehouse/nope.sqlite'), [/nope\.sqlite/]),
  bad('database path is a folder', (t) => t.replace('concert_singer: warehouse/concert_singer.sqlite', 'concert_singer: warehouse'), [/warehouse/]),
  bad('match: fuzzy', (t) => t.replace('match: relaxed', 'match: fuzzy'), ["'match'", 'exact, relaxed, spider']),
  bad('agents: a list', (t) => t.replace(/agents:[\s\S]*/, 'agents:\n  - base\n'), ["'agents' must be a mapping"]),
  bad('agent: a string', (t) => t.replace(/agents:[\s\S]*/, 'agents:\n  base: sql\n'), ["agent 'base' must be a mapping"]),
  bad('agent kind unknown', (t) => t.replace('    kind: sql\n', '    kind: sqll\n'), ["'kind' must be sql, tools, module, command", '"sqll"']),
  bad('agent without a model', (t) => t.replace('    model: gpt-4\n', ''), ["'model' must be a non-empty string"]),
  bad('agent named with a path', (t) => t.replace('  base:\n', '  ../../escape:\n'), ['agent name', 'recordings/<name>']),
  bad('agent prompt missing', (t) => t.replace('prompt: prompts/sql.md', 'prompt: prompts/nope.md'), [/prompts\/nope\.md/]),
  bad('agent prompt is a folder', (t) => t.replace('prompt: prompts/sql.md', 'prompt: prompts'), [/prompts/]),
  bad('agent prompt is a number', (t) => t.replace('prompt: prompts/sql.md', 'prompt: 7'), ["'agents.base.prompt'"]),
  bad('golden: a number', (t) => t.replace('golden: golden', 'golden: 5'), ["'golden'"]),
  bad('golden: missing folder', (t) => t.replace('golden: golden', 'golden: nowhere'), ["'golden' names nowhere, which does not exist"]),
  bad('golden: empty list', (t) => t.replace('golden: golden', 'golden: []'), ["'golden'"]),
  bad('semantic: a missing file', (t) => `${t}semantic: semantic/none.yml\n`, ["'semantic' names semantic/none.yml"]),
  bad('duplicate key', (t) => `${t}match: exact\n`, [/replaygate\.yml:\d+/, /[Dd]uplicate|unique/]),
  bad('malformed YAML (unclosed bracket)', (t) => t.replace('seeds: [0, 1]', 'seeds: [0, 1'), [/replaygate\.yml:\d+/, 'malformed YAML']),
  bad('a tab for indentation', (t) => t.replace('  max_rows: 10000', '\tmax_rows: 10000'), [/replaygate\.yml:\d+/]),
  bad('a YAML alias bomb', (t) => `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n${t}`, [/replaygate\.yml/]),
  bad('deeply nested flow mapping', (t) => `${t}gate: ${'{a: '.repeat(2000)}1${'}'.repeat(2000)}\n`, [/replaygate\.yml/]),
  bad('a YAML tag (!!binary)', (t) => t.replace('match: relaxed', 'match: !!binary aGVsbG8='), ["'match'"]),
  bad('a list at the top', () => '- warehouse\n- agents\n', ['the config must be a YAML mapping']),
  bad('an empty file', () => '', ['the config is empty']),
  bad('only a comment', () => '# nothing here\n', ['the config is empty']),
  bad('binary garbage', () => '\u0000\u0001\u0002\u00ff\ufffe', [/replaygate\.yml/]),
  {
    name: 'a UTF-8 BOM and CRLF line ends are fine',
    setup: (p) => {
      p.edit(cfg, (t) => `\ufeff${t.replace(/\n/g, '\r\n')}`);
    },
    args: score,
    exit: 0,
  },
  { name: 'the config file does not exist', args: ['score', '-c', 'nope.yml'], names: ['nope.yml'] },
  { name: 'the config file is a folder', args: ['score', '-c', 'golden'], names: [/golden/, /EISDIR|folder|directory/i] },
  { name: 'the config path is longer than a file name may be', args: ['score', '-c', `${'x'.repeat(5000)}.yml`], names: [/ENAMETOOLONG|cannot read/] },
  {
    name: 'the config is a symlink loop',
    setup: (p) => {
      p.symlink('loop.yml', 'loop.yml');
    },
    args: ['score', '-c', 'loop.yml'],
    names: ['loop.yml', /ELOOP|loop/],
  },
]);
