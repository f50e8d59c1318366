// The docs generator behind `npm run docs` and its staleness test (test/docs/docs-current.test.ts).
//
// README.md, docs/*.md and the examples' READMEs mark every generated part with a hidden comment
// naming what produces it; the generator replaces what follows the comment:
//
//   <!-- docs: replaygate gate --base a --candidate b [exit=1 cwd=examples/chinook] -->
//   ```text                     ← the fenced block after the comment is replaced by the output
//   …
//   ```
//
//   <!-- value: source.path|format -->2.42×<!-- /value -->   ← an inline number
//   <!-- source: name = replaygate gate … [cwd=…] -->          ← a command whose --json report values read
//
// Block options (in brackets): cwd=DIR (relative to the repository; default: the doc's folder
// when it holds a replaygate.yml, as an example's README does, else the repository), exit=N (the expected exit
// code; anything else fails the generation), stream=stdout|stderr|both (default stdout),
// prompt (start the block with `$ <command>`), edit=FILE:FROM→TO (run in a temporary copy of the
// project with that edit), from=TEXT / to=TEXT (keep the lines from the first containing FROM,
// up to the first containing TO), head=N, raw (the output is Markdown, put in as it is: the block
// is everything up to a line `<!-- /docs -->` instead of a fenced block), cache (the output is kept in
// docs/generated/values.json, as for sources below), setup="CMD" with needs=PATH (run CMD in the
// repository first when PATH, default `<cwd>/replaygate.yml`, is absent), pg=ENV (the command
// needs a PostgreSQL database: a fresh one is made on the throwaway cluster that `postgres` gives,
// its URL put in the environment variable ENV while the file is generated, the block's setup= run
// once against it, and the database dropped afterwards). Commands: `replaygate …`
// (the CLI, in process), `node scripts/NAME.mjs …` (a script of this repository, in a child process),
// `npm start --silent` (= replaygate score, without npm's header lines), `bench NAME` (the text of bench/results/NAME.json, written by
// `npm run bench`: timings are never re-measured here; `bench NAME FIELD`: a command's output the
// benchmark kept as numbers.FIELD), `dist` (the Action bundle's size).
//
// Value sources: a `source:` comment (a CLI command run with --json into a temporary file), `bench`
// (bench/results/*.json by file name: bench.score.ratio), `dist` (dist/*.js sizes). Formats:
// fixed0..fixed3, signed2 / signed3 (+0.02 / −0.23), int (1,234), exp1 (1.3e-9), p (0.41 or 1.3e-9), mb1 / mb2 (MB with one or two decimals), kib / kib1
// (KiB, none or one decimal), mib1 / mib2 (MiB), sec1 (milliseconds as seconds, one decimal), sig1
// (one significant figure: 201,694 → 200,000), count (length
// of a list), pct1 (percent, one decimal), ids (a list joined by ", "), thr (a threshold: fixed2, or
// `none` for null); over a list of objects:
// sum:FIELD, map:FIELD / map1 / map2 / mapint:FIELD (joined by ", "), where:FIELD=VALUE and
// range:FIELD:LO:HI (counts).
//
// Pure but for the injected `run` (the CLI) and file reads: `npm run docs` passes the built CLI,
// the test passes the TypeScript sources, so the docs always follow the code being tested.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** Files the generator maintains, relative to the repository. */
export function docFiles(root) {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
  const examples = readdirSync(join(root, 'examples'))
    .map((d) => `examples/${d}/README.md`)
    .filter((f) => existsSync(join(root, f)))
    .sort();
  return ['README.md', ...docs, ...examples];
}

// Markers start a line (blocks) or follow no backtick (values, sources), so docs can quote them in code.
// A block's fence is three or more backticks, closed by a line of the same fence: output that holds
// ``` itself gets a longer fence.
const BLOCK = /^<!-- docs: (.+?) -->\n(`{3,})([a-z]*)\n(?:([\s\S]*?)\n)??\2$/gm;
// A raw block: `<!-- docs: CMD [raw …] -->`, the Markdown the command printed, `<!-- /docs -->`.
const RAW = /^<!-- docs: ([^\n]*?\[[^\]\n]*\braw\b[^\]\n]*\]) -->\n(?:[\s\S]*?\n)??<!-- \/docs -->$/gm;
const VALUE = /(?<!`)<!-- value: (.+?) -->([\s\S]*?)<!-- \/value -->/g;
const SOURCE = /(?<!`)<!-- source: ([\w-]+) = (.+?) -->/g;

/** `cmd a "b c" [k=v flag]` → { words, options }. */
export function parseSpec(spec) {
  let text = spec.trim();
  const options = {};
  const bracket = /\s\[([^\]]*)\]$/.exec(text);
  if (bracket) {
    text = text.slice(0, bracket.index);
    for (const m of bracket[1].matchAll(/(\w+)(?:=("[^"]*"|\S+))?/g)) options[m[1]] = m[2] === undefined ? true : m[2].replace(/^"|"$/g, '');
  }
  const words = [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
  return { command: text, words, options };
}

/** Project files copied for an `edit=` run (never node_modules, builds or tests). */
const SKIP = new Set(['node_modules', '.git', 'out', 'build', 'dist', 'src', 'test', 'tools', 'docs', 'bench', 'scripts', 'examples']);

async function withEdit(root, cwd, edit, fn) {
  const m = /^([^:]+):(.+)→(.*)$/.exec(edit);
  if (!m) throw new Error(`edit=${edit}: expected FILE:FROM→TO`);
  const copy = mkdtempSync(join(tmpdir(), 'replaygate-docs-'));
  try {
    const from = join(root, cwd);
    for (const entry of readdirSync(from)) if (!SKIP.has(entry)) cpSync(join(from, entry), join(copy, entry), { recursive: true });
    const file = join(copy, m[1]);
    const text = readFileSync(file, 'utf8');
    if (!text.includes(m[2])) throw new Error(`edit=${edit}: ${m[1]} does not contain ${JSON.stringify(m[2])}`);
    writeFileSync(file, text.replace(m[2], m[3]));
    return await fn(copy);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** Output with machine paths made repository-relative and trailing spaces dropped. */
function clean(text, paths) {
  let out = text;
  for (const [abs, shown] of paths) out = out.split(abs).join(shown);
  return out
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .join('\n')
    .replace(/\n+$/, '');
}

function select(text, options) {
  let lines = text.split('\n');
  if (options.from !== undefined) {
    const i = lines.findIndex((l) => l.includes(options.from));
    if (i < 0) throw new Error(`from=${options.from}: not in the output`);
    lines = lines.slice(i);
  }
  if (options.to !== undefined) {
    const i = lines.findIndex((l) => l.includes(options.to));
    if (i < 0) throw new Error(`to=${options.to}: not in the output`);
    lines = lines.slice(0, i + 1);
  }
  if (options.head !== undefined) lines = lines.slice(0, Number(options.head));
  return lines.join('\n');
}

export function readBench(root) {
  const dir = join(root, 'bench', 'results');
  const out = {};
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.json'))) out[basename(f, '.json')] = JSON.parse(readFileSync(join(dir, f), 'utf8'));
  return out;
}

export function distSizes(root) {
  const out = {};
  for (const f of readdirSync(join(root, 'dist')).filter((x) => x.endsWith('.js'))) out[basename(f, '.js')] = statSync(join(root, 'dist', f)).size;
  out.total = Object.values(out).reduce((a, b) => a + b, 0);
  return out;
}

/** The measured-on line under a bench block. */
export function benchFooter(result) {
  return `(npm run bench, ${result.date}, ${result.machine})`;
}

const FORMATS = {
  fixed0: (x) => Number(x).toFixed(0),
  fixed1: (x) => Number(x).toFixed(1),
  fixed2: (x) => Number(x).toFixed(2),
  fixed3: (x) => Number(x).toFixed(3),
  signed2: (x) => (Math.abs(x) < 0.005 ? '0.00' : `${x > 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`),
  signed3: (x) => (Math.abs(x) < 0.0005 ? '0.000' : `${x > 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`),
  int: (x) => Math.round(Number(x)).toLocaleString('en-US'),
  exp1: (x) => Number(x).toExponential(1),
  p: (x) => (Number(x) >= 0.01 ? Number(x).toFixed(2) : Number(x).toExponential(1)),
  mb1: (x) => `${(Number(x) / 1e6).toFixed(1)} MB`,
  mb2: (x) => `${(Number(x) / 1e6).toFixed(2)} MB`,
  kib: (x) => `${Math.round(Number(x) / 1024).toLocaleString('en-US')} KiB`,
  kib1: (x) => `${(Number(x) / 1024).toFixed(1)} KiB`,
  mib1: (x) => `${(Number(x) / 2 ** 20).toFixed(1)} MiB`,
  mib2: (x) => `${(Number(x) / 2 ** 20).toFixed(2)} MiB`,
  sec1: (x) => (Number(x) / 1000).toFixed(1),
  sig1: (x) => {
    const n = Math.abs(Number(x));
    if (n === 0) return '0';
    const unit = 10 ** Math.floor(Math.log10(n));
    return (Math.sign(Number(x)) * Math.round(n / unit) * unit).toLocaleString('en-US');
  },
  count: (x) => String(x.length),
  pct1: (x) => (Number(x) * 100).toFixed(1),
  ids: (x) => x.join(', '),
  thr: (x) => (x === null ? 'none' : Number(x).toFixed(2)),
};

/** Formats with an argument, over a list of objects: `sum:missingRecordings`, `map2:coverage` (fixed 2, joined). */
const LIST_FORMATS = {
  sum: (xs, field) => String(xs.reduce((a, x) => a + Number(x[field]), 0)),
  map: (xs, field) => xs.map((x) => String(x[field])).join(', '),
  map1: (xs, field) => xs.map((x) => Number(x[field]).toFixed(1)).join(', '),
  map2: (xs, field) => xs.map((x) => Number(x[field]).toFixed(2)).join(', '),
  mapint: (xs, field) => xs.map((x) => Math.round(Number(x[field])).toLocaleString('en-US')).join(', '),
  range: (xs, spec) => {
    const [field, lo, hi] = spec.split(':');
    const eps = 1e-9;
    return String(xs.filter((x) => Number(x[field]) >= Number(lo) - eps && Number(x[field]) <= Number(hi) + eps).length);
  },
  where: (xs, test) => {
    const [field, value] = test.split('=');
    return String(xs.filter((x) => String(x[field]) === value).length);
  },
};

/**
 * Follows a dotted path into a JSON value: `stableBreaks.0` (a list index), `rules.rule=v3.auroc`
 * (the first list element whose `rule` is `v3`), `meanDifference`.
 */
function walk(value, path) {
  for (const p of path === '' ? [] : path.split('.')) {
    if (value === undefined || value === null) return undefined;
    const eq = /^(\w+)=(.+)$/.exec(p);
    if (eq && Array.isArray(value)) value = value.find((x) => String(x?.[eq[1]]) === eq[2]);
    else value = /^\d+$/.test(p) && Array.isArray(value) ? value[Number(p)] : value[p];
  }
  return value;
}

/** The value at `source.path`; a cached source holds its values by path. */
function valueAt(sources, path) {
  const [name, ...rest] = path.split('.');
  const source = sources[name];
  if (source instanceof CachedSource) return source.get(rest.join('.'));
  return walk(source, rest.join('.'));
}

/** A heavy source's values, read from docs/generated/values.json, or computed and recorded there. */
class CachedSource {
  constructor(name, cache, report) {
    this.name = name;
    this.cache = cache;
    this.report = report;
  }
  get(path) {
    const entry = (this.cache[this.name] ??= {});
    if (this.report !== undefined) {
      const value = walk(this.report, path);
      entry[path] = value;
      return value;
    }
    if (!(path in entry)) throw new Error(`source ${this.name}: ${path} is not in docs/generated/values.json (run npm run docs with ../shared/data beside the repository)`);
    return entry[path];
  }
}

function lookup(sources, expr) {
  const [path, format] = expr.split('|').map((s) => s.trim());
  const value = valueAt(sources, path);
  if (value === undefined) throw new Error(`value ${path}: not found`);
  if (format === undefined) return String(value);
  const colon = format.indexOf(':');
  if (colon > 0) {
    const f = LIST_FORMATS[format.slice(0, colon)];
    if (!f || !Array.isArray(value)) throw new Error(`value ${path}: ${format} needs a list and one of ${Object.keys(LIST_FORMATS).join(', ')}`);
    return f(value, format.slice(colon + 1));
  }
  const f = FORMATS[format];
  if (!f) throw new Error(`value ${path}: unknown format ${format} (known: ${Object.keys(FORMATS).join(', ')})`);
  return f(value);
}

/**
 * Regenerates every marked part of `text` (the contents of `file`, relative to `root`).
 * @param run - `(argv, { cwd, env }) => Promise<{ code, stdout, stderr, both }>`: the CLI in process
 * @returns the new text
 */
export async function generate(text, { root, file, run, useCache = false, cache = {}, postgres }) {
  const databases = new Databases(root, postgres);
  try {
    return await generateWith(text, { root, file, run, useCache, cache, databases });
  } finally {
    await databases.dropAll();
  }
}

/**
 * The PostgreSQL databases of one file's `pg=ENV` blocks: made on first use on the cluster whose
 * admin URL `postgres()` gives (the tests' cluster, or the one scripts/docs.mjs starts with
 * scripts/pg-local.sh), one per ENV, with the block's setup= run once against it.
 * `postgres: null` leaves those blocks as they are (a developer's test run without PostgreSQL).
 */
class Databases {
  constructor(root, postgres) {
    this.root = root;
    this.postgres = postgres;
    this.made = new Map();
  }
  /** True when the block can run; false when PostgreSQL is skipped. */
  async prepare(file, options) {
    if (options.pg === undefined) return true;
    if (this.postgres === null) return false;
    if (this.postgres === undefined) throw new Error(`${file}: a block needs PostgreSQL (pg=${options.pg}) and no cluster was given (scripts/docs.mjs starts one with scripts/pg-local.sh)`);
    const name = options.pg;
    if (!/^[A-Z_][A-Z0-9_]*$/.test(name)) throw new Error(`${file}: pg=${name}: expected an environment variable name`);
    if (this.made.has(name)) return true;
    const admin = new URL(await this.postgres());
    const database = `docs_${name.toLowerCase()}_${process.pid}_${Date.now().toString(36)}`;
    const { default: pg } = await import('pg');
    const sql = async (statement) => {
      const url = new URL(admin);
      url.pathname = '/postgres';
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        await client.query(statement);
      } finally {
        await client.end();
      }
    };
    await sql(`CREATE DATABASE ${database}`);
    const url = new URL(admin);
    url.pathname = `/${database}`;
    this.made.set(name, { previous: process.env[name], drop: () => sql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`) });
    // The CLI runs in process and reads url_env from process.env; setup= (a loader) inherits it.
    process.env[name] = url.toString();
    if (options.setup !== undefined) execFileSync('sh', ['-c', options.setup], { cwd: this.root, stdio: ['ignore', 'ignore', 'inherit'] });
    return true;
  }
  async dropAll() {
    for (const [name, { previous, drop }] of this.made) {
      if (previous === undefined) delete process.env[name];
      else process.env[name] = previous;
      await drop();
    }
    this.made.clear();
  }
}

async function generateWith(text, { root, file, run, useCache, cache, databases }) {
  const paths = [
    [root, '.'],
    [tmpdir(), '<tmp>'],
  ];
  // Commands run in the doc's own project folder (an example's README) unless cwd= says otherwise.
  const home = existsSync(join(root, dirname(file), 'replaygate.yml')) ? dirname(file) : '.';
  // One run per distinct command: a block shows the output of the same command a source read.
  const memo = new Map();
  const runCli = async (words, given, extraArgs = []) => {
    const options = { ...given, cwd: given.cwd ?? home };
    // `npx replaygate …` (how a reader in a clone runs it) is the same run as `replaygate …`.
    const key = JSON.stringify([options.cwd, options.edit ?? '', words[0] === 'npx' ? words.slice(1) : words]);
    const seen = memo.get(key);
    if (seen !== undefined && extraArgs.length === 0) return seen;
    const done = await runOnce(words, options, extraArgs);
    // A temporary folder is gone once the run returns: only runs in the repository are shared.
    if (options.edit === undefined && options.cwd !== '<tmp>') memo.set(key, done);
    return done;
  };
  const runOnce = async (words, options, extraArgs) => {
    const cwd = options.cwd ?? '.';
    const go = async (dir) => {
      let argv = words;
      // `npm start --silent` prints exactly what `replaygate score` prints (no npm header lines).
      if (argv[0] === 'npm' && argv[1] === 'start' && argv[2] === '--silent' && argv.length === 3) argv = ['replaygate', 'score'];
      if (argv[0] === 'npx') argv = argv.slice(1);
      let result;
      if (argv[0] === 'node' && /^scripts\/[\w./-]+\.mjs$/.test(argv[1] ?? '') && !argv[1].includes('..')) {
        // A script of this repository (it runs the built CLI), in a child process.
        const child = spawnSync(process.execPath, [join(root, argv[1]), ...argv.slice(2), ...extraArgs], { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
        if (child.error) throw child.error;
        result = { code: child.status ?? 1, stdout: child.stdout, stderr: child.stderr, both: `${child.stdout}${child.stderr}` };
      } else if (argv[0] === 'replaygate') {
        result = await run([...argv.slice(1), ...extraArgs], { cwd: dir, env: {} });
      } else {
        throw new Error(`${file}: only replaygate commands and node scripts/*.mjs run here, got ${words.join(' ')}`);
      }
      const expected = options.exit === undefined ? 0 : Number(options.exit);
      if (result.code !== expected) {
        throw new Error(`${file}: \`${words.join(' ')}\` (in ${cwd}) exited ${result.code}, expected ${expected}\n${result.both.slice(-2000)}`);
      }
      return { result, dir };
    };
    if (options.edit !== undefined) return withEdit(root, cwd, options.edit, (copy) => go(copy).then((r) => ({ ...r, copy })));
    if (cwd === '<tmp>') {
      // A fresh empty folder, e.g. for `replaygate init`.
      const dir = mkdtempSync(join(tmpdir(), 'replaygate-docs-'));
      try {
        return { ...(await go(dir)), copy: dir };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    return go(join(root, cwd));
  };

  // Sources first: values read them.
  const sources = { bench: readBench(root), dist: distSizes(root) };
  for (const m of text.matchAll(SOURCE)) {
    const spec = parseSpec(m[2]);
    if (spec.options.cache) {
      // Heavy (the shared data set, minutes): computed by `npm run docs`, read from the cache otherwise.
      if (useCache) {
        sources[m[1]] = new CachedSource(m[1], cache, undefined);
        continue;
      }
      setUp(root, spec.options);
    }
    const out = join(mkdtempSync(join(tmpdir(), 'replaygate-docs-json-')), 'report.json');
    try {
      await runCli(spec.words, spec.options, ['--json', out]);
      const report = JSON.parse(readFileSync(out, 'utf8'));
      sources[m[1]] = spec.options.cache ? new CachedSource(m[1], cache, report) : report;
    } finally {
      rmSync(join(out, '..'), { recursive: true, force: true });
    }
  }

  const blocks = [];
  const marked = [...[...text.matchAll(BLOCK)].map((m) => ({ m, raw: false })), ...[...text.matchAll(RAW)].map((m) => ({ m, raw: true }))].sort((a, b) => a.m.index - b.m.index);
  for (const { m, raw } of marked) {
    const spec = parseSpec(m[1]);
    let body;
    const cacheKey = `docs: ${m[1]}`;
    if (spec.options.cache && useCache) {
      // Heavy (the shared data set, minutes): the text npm run docs kept.
      const kept = cache[cacheKey];
      if (kept === undefined) throw new Error(`${file}: the output of \`${spec.command}\` is not in docs/generated/values.json (run npm run docs with ../shared/data beside the repository)`);
      body = kept.text;
    } else if (spec.words[0] === 'bench') {
      const result = sources.bench[spec.words[1]];
      if (!result) throw new Error(`${file}: no bench/results/${spec.words[1]}.json (run npm run bench)`);
      if (spec.words[2] !== undefined) {
        // `bench NAME FIELD`: a command's output the benchmark kept (numbers.FIELD), shown as it printed it.
        const kept = result.numbers?.[spec.words[2]];
        if (typeof kept !== 'string') throw new Error(`${file}: bench/results/${spec.words[1]}.json has no text numbers.${spec.words[2]}`);
        body = kept.replace(/\n+$/, '');
      } else body = `${result.text.replace(/\n+$/, '')}\n${benchFooter(result)}`;
    } else {
      if (!(await databases.prepare(file, spec.options))) {
        // PostgreSQL skipped (REPLAYGATE_SKIP_POSTGRES=1 outside CI): the block stays as it is.
        continue;
      }
      if (spec.options.pg === undefined) setUp(root, spec.options);
      const { result, copy } = await runCli(spec.words, spec.options);
      const stream = spec.options.stream ?? 'stdout';
      const output = stream === 'both' ? result.both : stream === 'stderr' ? result.stderr : result.stdout;
      const shownPaths = copy === undefined ? paths : [[copy, spec.options.cwd === '<tmp>' ? '.' : (spec.options.cwd ?? home)], ...paths];
      body = select(clean(output, shownPaths), spec.options);
      if (spec.options.cache) cache[cacheKey] = { text: body };
    }
    if (raw) {
      blocks.push({ at: m.index, length: m[0].length, replacement: `<!-- docs: ${m[1]} -->\n${body === '' ? '' : `${body}\n`}<!-- /docs -->` });
      continue;
    }
    if (spec.options.prompt) body = `$ ${spec.command}\n${body}`;
    const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((x) => x[0].length));
    const fence = '`'.repeat(Math.max(3, longest + 1));
    blocks.push({ at: m.index, length: m[0].length, replacement: `<!-- docs: ${m[1]} -->\n${fence}${m[3]}\n${body}\n${fence}` });
  }
  let out = '';
  let last = 0;
  for (const b of blocks) {
    out += text.slice(last, b.at) + b.replacement;
    last = b.at + b.length;
  }
  out += text.slice(last);
  return out.replace(VALUE, (_m, expr) => `<!-- value: ${expr} -->${lookup(sources, expr)}<!-- /value -->`);
}

/** Runs a marked command's `setup=` in the repository when what it makes (`needs=`, default `<cwd>/replaygate.yml`) is absent. */
function setUp(root, options) {
  if (options.setup === undefined) return;
  const needs = options.needs ?? join(options.cwd ?? '.', 'replaygate.yml');
  if (!existsSync(join(root, needs))) execFileSync('sh', ['-c', options.setup], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

const CACHE_FILE = 'docs/generated/values.json';

/**
 * Regenerates every doc file; returns the files whose text changed (written unless `check`).
 * With `useCache`, heavy sources (`[cache]`) are read from docs/generated/values.json instead of
 * being run; otherwise they are run and the file is rewritten with the values the docs use.
 */
export async function generateAll({ root, run, check = false, useCache = check, files = docFiles(root), postgres }) {
  const cachePath = join(root, CACHE_FILE);
  const cache = existsSync(cachePath) ? JSON.parse(readFileSync(cachePath, 'utf8')) : {};
  const fresh = {};
  const changed = [];
  for (const file of files) {
    const before = readFileSync(join(root, file), 'utf8');
    const after = await generate(before, { root, file, run, useCache, cache: useCache ? cache : fresh, postgres });
    if (after !== before) {
      changed.push({ file, before, after });
      if (!check) writeFileSync(join(root, file), after);
    }
  }
  if (!useCache && !check) {
    // A run over some files keeps the other files' cached figures (per source: two files may read one source).
    const all = files.length === docFiles(root).length;
    const merged = { ...cache };
    for (const [name, entry] of Object.entries(fresh)) merged[name] = name.startsWith('docs: ') ? entry : { ...(cache[name] ?? {}), ...entry };
    mkdirSync(join(root, 'docs', 'generated'), { recursive: true });
    writeFileSync(cachePath, `${JSON.stringify(sortKeys(all ? fresh : merged), null, 2)}\n`);
  }
  return changed;
}

function sortKeys(value) {
  if (Array.isArray(value) || value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys(value[k])]));
}

/**
 * The CLI's `main` as the generator runs it: in process, its stdout and stderr kept apart and,
 * in order, together.
 */
export function inProcessRunner(main) {
  return async (argv, { cwd, env }) => {
    let stdout = '';
    let stderr = '';
    let both = '';
    const write = (stream) => (s) => {
      if (stream === 'out') stdout += s;
      else stderr += s;
      both += s;
    };
    // Messages name files relative to the process's folder, as for a user in that folder.
    const before = process.cwd();
    process.chdir(cwd);
    try {
      const code = await main([...argv], { cwd, env, isTTY: false, stdout: write('out'), stderr: write('err') });
      return { code, stdout, stderr, both };
    } finally {
      process.chdir(before);
    }
  };
}

/** The first differing line of two texts, for a test's message. */
export function firstDifference(before, after) {
  const a = before.split('\n');
  const b = after.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return `line ${i + 1}:\n  in the file: ${a[i] ?? '(end)'}\n  generated:   ${b[i] ?? '(end)'}`;
  }
  return 'no difference';
}

