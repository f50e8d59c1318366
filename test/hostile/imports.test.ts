/**
 * Hostile files for every importer: `import predictions` (lines, din-sql-csv, chatgpt-json),
 * `import spider-golden`, `import genparse`, `import candidates`, `judge import`. Refusals write
 * nothing (the recordings stay byte-identical); imports meant to write may change only their own
 * recording.
 */
import { buildMini } from './fixtures.js';
import { fixtureOnce, hostileSuite, type HostileCase } from './harness.js';

const mini = fixtureOnce(buildMini);

const predictions = (name: string, content: string | Buffer, format: string, names: readonly (string | RegExp)[], extra: readonly string[] = [], exit: number | readonly number[] = 2): HostileCase => ({
  name,
  setup: (p) => {
    p.write('in/p.txt', content);
  },
  args: ['import', 'predictions', 'in/p.txt', '-a', 'base', '--ids', 'q{n}', '-f', format, '--force', ...extra],
  exit,
  names,
  // --force replaces the recording: only the base recording may change, and only when the import succeeds
  writes: ['recordings/base'],
});

const file = (command: readonly string[], name: string, content: string | Buffer, names: readonly (string | RegExp)[], at = 'in/f.json'): HostileCase => ({
  name,
  setup: (p) => {
    p.write(at, content);
  },
  args: [...command.map((a) => (a === 'FILE' ? at : a))],
  names,
});

const SIX = 'SELECT count(*) FROM singer\n'.repeat(6);

hostileSuite('import predictions', mini, [
  predictions('an empty file', '', 'lines', ['in/p.txt', 'holds no predictions', 'empty']),
  predictions('only blank lines', '\n\n\n', 'lines', ['in/p.txt', 'holds no predictions']),
  predictions('a CSV given as lines', 'NLQ,PREDICTED SQL,GOLD SQL,DATABASE\nx,SELECT 1,SELECT 1,concert_singer\n', 'lines', ['in/p.txt:1', '--format din-sql-csv']),
  predictions('JSON given as lines', '[{"result": "1"}]\n', 'lines', ['in/p.txt:1', 'JSON']),
  predictions('every line ends in a TAB and an unknown database', 'SELECT 1\twta_1\n'.repeat(6), 'lines', ['in/p.txt:1', 'wta_1', 'known: concert_singer']),
  predictions('a TAB inside SQL is kept (imports fine)', 'SELECT count(*)\tFROM singer\tconcert_singer\n'.repeat(6), 'lines', [], [], 0),
  predictions('BOM and CRLF (imports fine)', `\ufeff${SIX.replace(/\n/g, '\r\n')}`, 'lines', [], [], 0),
  predictions('a NUL byte in a line (imported; the warehouse refuses it at replay)', 'SELECT 1\u0000; DROP TABLE singer\n'.repeat(6), 'lines', [], [], 0),
  predictions('a 5 MB line (imported as one reply)', `SELECT '${'x'.repeat(5_000_000)}'\n`, 'lines', [], [], 0),
  predictions('binary garbage', Buffer.from([0xff, 0xfe, 0, 1, 2, 10, 0x80, 0x81]), 'lines', [], [], [0, 2]),
  predictions('malformed CSV', 'NLQ,PREDICTED SQL,GOLD SQL,DATABASE\n"unclosed,SELECT 1\n', 'din-sql-csv', ['in/p.txt']),
  predictions('CSV missing a column', 'NLQ,SQL\nx,SELECT 1\n', 'din-sql-csv', ['missing CSV column']),
  predictions('CSV with only a header', 'NLQ,PREDICTED SQL,GOLD SQL,DATABASE\n', 'din-sql-csv', ['holds no predictions']),
  predictions('JSON that is not a list', '{"a": 1}', 'chatgpt-json', ['in/p.txt', 'JSON list']),
  predictions('JSON list of nulls', '[null, null]', 'chatgpt-json', ['in/p.txt', "item 0 lacks 'result'"]),
  predictions('JSON item with a numeric result', '[{"result": 5, "db_id": "concert_singer"}]', 'chatgpt-json', ["item 0 lacks 'result'"]),
  predictions('JSON nested 100,000 deep', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'chatgpt-json', ['in/p.txt']),
  predictions('malformed JSON', '[{"result": ', 'chatgpt-json', ['in/p.txt', 'not valid JSON']),
  predictions('empty JSON list', '[]', 'chatgpt-json', ['holds no predictions']),
  { name: 'file missing', args: ['import', 'predictions', 'nope.txt', '-a', 'base', '--force'], names: ['nope.txt'] },
  { name: 'file is a folder', setup: (p) => void p.mkdir('in/dir'), args: ['import', 'predictions', 'in/dir', '-a', 'base', '--force'], names: ['in/dir', 'EISDIR'] },
  { name: 'unknown agent', setup: (p) => void p.write('in/p.txt', SIX), args: ['import', 'predictions', 'in/p.txt', '-a', 'nobody'], names: ["no agent 'nobody'"] },
  { name: 'the recording exists, no --force or --append: nothing is written', setup: (p) => void p.write('in/p.txt', SIX), args: ['import', 'predictions', 'in/p.txt', '-a', 'base', '--ids', 'q{n}'], names: ['recordings/base exists', '--append', '--force'] },
  { name: '--append and --force together', setup: (p) => void p.write('in/p.txt', SIX), args: ['import', 'predictions', 'in/p.txt', '-a', 'base', '--ids', 'q{n}', '--append', '--force'], names: ['--append', '--force'] },
  { name: '--append of a seed already recorded', setup: (p) => void p.write('in/p.txt', SIX), args: ['import', 'predictions', 'in/p.txt', '-a', 'base', '--ids', 'q{n}', '--append'], names: ["'q1' seed 0 is already in"] },
  { name: '--seed -1', setup: (p) => void p.write('in/p.txt', SIX), args: ['import', 'predictions', 'in/p.txt', '-a', 'base', '--seed', '-1', '--force'], names: ['--seed', /from 0 to 2147483647|argument missing|unknown option/] },
  { name: '--seed past 2^31 (the config limit too)', setup: (p) => void p.write('in/p.txt', SIX), args: ['import', 'predictions', 'in/p.txt', '-a', 'base', '--seed', '99999999999', '--force'], names: ['from 0 to 2147483647'] },
  { name: '--seed 1.5', setup: (p) => void p.write('in/p.txt', SIX), args: ['import', 'predictions', 'in/p.txt', '-a', 'base', '--seed', '1.5', '--force'], names: ['whole number'] },
  { name: '--ids matching no golden question: nothing is written', setup: (p) => void p.write('in/p.txt', SIX), args: ['import', 'predictions', 'in/p.txt', '-a', 'base', '--ids', 'zz{i}', '--force'], names: ['none of the 6 predictions has a golden question', 'nothing was written'] },
  { name: '--format unknown', setup: (p) => void p.write('in/p.txt', SIX), args: ['import', 'predictions', 'in/p.txt', '-a', 'base', '-f', 'xml'], names: ['--format', 'lines'] },
  {
    name: 'the recording folder is immutable: --force fails cleanly, naming it',
    setup: (p) => {
      p.write('in/p.txt', SIX);
      p.lock('recordings/base/calls.jsonl');
      p.lock('recordings/base');
    },
    args: ['import', 'predictions', 'in/p.txt', '-a', 'base', '--ids', 'q{n}', '--force'],
    names: ['recordings/base', /EPERM|EACCES|EROFS/],
  },
]);

hostileSuite('import spider-golden', mini, [
  { name: 'folder missing', args: ['import', 'spider-golden', 'nowhere', '-o', 'golden2'], names: ['dev.json'] },
  file(['import', 'spider-golden', 'in', '-o', 'golden2'], 'dev.json malformed', '[{"db_id": ', ['dev.json', 'not valid JSON'], 'in/dev.json'),
  file(['import', 'spider-golden', 'in', '-o', 'golden2'], 'dev.json not a list', '{"a": 1}', ['dev.json', 'JSON list'], 'in/dev.json'),
  file(['import', 'spider-golden', 'in', '-o', 'golden2'], 'dev.json empty list', '[]', ['dev.json', 'holds no questions'], 'in/dev.json'),
  {
    name: 'dev.json and dev_gold.sql of different lengths',
    setup: (p) => {
      p.write('in/dev.json', '[{"db_id": "concert_singer", "question": "How many?"}, {"db_id": "concert_singer", "question": "Again?"}]');
      p.write('in/dev_gold.sql', 'SELECT 1\tconcert_singer\n');
    },
    args: ['import', 'spider-golden', 'in', '-o', 'golden2'],
    names: ['dev_gold.sql', '1 gold lines for 2 questions'],
  },
  {
    name: 'a question that is null',
    setup: (p) => {
      p.write('in/dev.json', '[null]');
      p.write('in/dev_gold.sql', 'SELECT 1\tconcert_singer\n');
    },
    args: ['import', 'spider-golden', 'in', '-o', 'golden2'],
    names: ['dev.json', 'question 0'],
  },
  {
    name: '--out is a file',
    setup: (p) => {
      p.write('in/dev.json', '[{"db_id": "concert_singer", "question": "How many?"}]');
      p.write('in/dev_gold.sql', 'SELECT 1\tconcert_singer\n');
      p.write('golden2', 'a file');
    },
    args: ['import', 'spider-golden', 'in', '-o', 'golden2'],
    names: ['golden2'],
  },
  {
    name: 'existing golden files without --force are kept',
    setup: (p) => {
      p.write('in/dev.json', '[{"db_id": "concert_singer", "question": "How many?"}]');
      p.write('in/dev_gold.sql', 'SELECT 1\tconcert_singer\n');
    },
    args: ['import', 'spider-golden', 'in', '-o', 'golden'],
    names: ['exist', '--force'],
  },
  {
    name: '--databases naming an unknown database',
    setup: (p) => {
      p.write('in/dev.json', '[{"db_id": "concert_singer", "question": "How many?"}]');
      p.write('in/dev_gold.sql', 'SELECT 1\tconcert_singer\n');
    },
    args: ['import', 'spider-golden', 'in', '-o', 'golden2', '--databases', 'nope'],
    names: ["database(s) nope"],
  },
]);

const genparse = ['import', 'genparse', 'FILE', '-a', 'base', '--force'];
const candidates = ['import', 'candidates', 'FILE', '-a', 'base', '--force'];
hostileSuite('import genparse', mini, [
  file(genparse, 'an empty file', '', ['in/f.json']),
  file(genparse, 'a line that is not JSON', '{"db_name": \n', ['in/f.json:1', 'not valid JSON']),
  file(genparse, 'a line that is a list', '[1, 2]\n', ['in/f.json:1', 'JSON object']),
  file(genparse, 'particles is a string', '{"db_name": "concert_singer", "question": "How many singers do we have?", "particles": "x"}\n', ['in/f.json:1', 'particles']),
  file(genparse, 'a particle that is null', '{"db_name": "concert_singer", "question": "How many singers do we have?", "particles": [null]}\n', ['in/f.json:1', 'particle']),
  file(genparse, 'particle text of the wrong type', '{"db_name": "concert_singer", "question": "How many singers do we have?", "particles": [{"index": 0, "text": 5}]}\n', ['in/f.json:1']),
  file(genparse, 'duplicate particle indices', '{"db_name": "concert_singer", "question": "How many singers do we have?", "particles": [{"index": 0, "text": "SELECT 1"}, {"index": 0, "text": "SELECT 2"}]}\n', ['in/f.json:1', 'indices']),
  file(genparse, 'db_name is a number', '{"db_name": 5, "question": "q", "particles": [{"index": 0, "text": "SELECT 1"}]}\n', ['in/f.json:1', 'db_name']),
  file(genparse, 'a question no golden question matches', '{"db_name": "concert_singer", "question": "Who am I?", "particles": [{"index": 0, "text": "SELECT 1"}]}\n', ['in/f.json']),
  file(genparse, 'tokens that are not text', '{"db_name": "concert_singer", "question": "How many singers do we have?", "particles": [{"tokens": [1, {"a": 2}], "weight": 0, "finished": true}]}\n', ['in/f.json:1']),
]);

hostileSuite('import candidates', mini, [
  file(candidates, 'not JSON', '{', ['in/f.json', 'not valid JSON']),
  file(candidates, 'no generated list', '{"a": 1}', ['in/f.json', '`generated`']),
  file(candidates, 'generated holds nulls', '{"generated": [null, 5]}', ['in/f.json']),
  file(candidates, 'an item with candidates of the wrong type', '{"generated": [{"id": 0, "db_id": "concert_singer", "question": "How many singers do we have?", "candidates": [1, 2]}]}', ['in/f.json']),
  file(candidates, 'an empty generated list', '{"generated": []}', ['in/f.json']),
]);

const judgeImport = ['judge', 'import', 'FILE', '-a', 'base', '-o', 'recordings/judge'];
hostileSuite('judge import', mini, [
  file(judgeImport, 'not JSON', '{"0": ', ['in/f.json', 'not valid JSON']),
  file(judgeImport, 'a JSON list', '[1]', ['in/f.json', 'expected a JSON object']),
  file(judgeImport, 'an item key that is not an index', '{"x": {}}', ['in/f.json#x', 'not a 0-based index']),
  file(judgeImport, 'an item that is null', '{"0": null}', ['in/f.json#0']),
  file(judgeImport, 'an item lacking the judgement', '{"0": {"Q1": "SELECT 1", "Q2": "SELECT 1", "DB": "concert_singer", "hardness": "easy", "execution": true, "prompt": "p"}}', ['in/f.json#0', 'judgement']),
  { name: '--model empty', setup: (p) => void p.write('in/f.json', '{}'), args: ['judge', 'import', 'in/f.json', '-a', 'base', '-o', 'recordings/judge', '--model', ''], names: ['--model'] },
  { name: '-a naming no agent of the config', setup: (p) => void p.write('in/f.json', '{}'), args: ['judge', 'import', 'in/f.json', '-a', 'nobody', '-o', 'recordings/judge'], names: ["unknown agent 'nobody'"] },
  {
    name: 'a valid import writes only its own recording, with the judge model named',
    setup: (p) => void p.write('in/f.json', JSON.stringify({ '0': { Q1: 'SELECT 1', Q2: 'SELECT 1', DB: 'concert_singer', hardness: 'easy', execution: true, judgement: 'THE ANSWER IS EQUIVALENT', prompt: 'p' } })),
    args: ['judge', 'import', 'in/f.json', '-a', 'base', '-o', 'recordings/judge', '--model', 'gpt-4-1106-preview'],
    exit: 0,
    writes: ['recordings/judge'],
    names: ['judge model gpt-4-1106-preview'],
    check: (_r, p) => {
      if (!p.read('recordings/judge/manifest.yml').includes('model: gpt-4-1106-preview')) throw new Error('model not in the manifest');
    },
  },
]);
