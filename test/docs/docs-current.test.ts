/**
 * The docs are true by construction: every marked output block and number of README.md,
 * docs/*.md and the examples' READMEs is regenerated here from the real commands (the CLI from
 * the sources under test), the heavy shared-data figures from docs/generated/values.json and the
 * timings from bench/results/*.json, and compared with the committed text. When this fails, run
 * `npm run docs` and commit what it changed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docFiles, firstDifference, generate, generateAll, inProcessRunner, type RunCli } from '../../scripts/docs/generate.mjs';
import { main } from '../../src/cli/index.js';
import { SKIP_POSTGRES, TEST_PG_URL } from '../helpers/postgres.js';

const ROOT = join(import.meta.dirname, '..', '..');

const run: RunCli = inProcessRunner(main);
// The examples' PostgreSQL blocks (pg=ENV) run on the tests' throwaway cluster (test/global-setup.ts).
const postgres = SKIP_POSTGRES ? null : async (): Promise<string> => TEST_PG_URL as string;

describe('generated docs', () => {
  it('every generated block and number is current (npm run docs leaves git diff empty)', async () => {
    const changed = await generateAll({ root: ROOT, run, check: true, postgres });
    expect(changed.map((c) => `${c.file}: ${firstDifference(c.before, c.after)}`)).toEqual([]);
  }, 300_000);

  it('a deliberately stale number or block is caught', async () => {
    // The README's own install-time sentence, with its number made stale, and a stale bench block.
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const line = /<!-- value: bench\.install\.numbers\.minutes -->[^<]*<!-- \/value -->/.exec(text)?.[0];
    expect(line).toBeDefined();
    const stale = `${line?.replace(/-->[^<]*<!--/, '-->999<!--')}\n\n<!-- docs: bench score -->\n\`\`\`text\nfloor 1 ms\n\`\`\`\n`;
    const regenerated = await generate(stale, { root: ROOT, file: 'README.md', run });
    expect(regenerated).not.toContain('-->999<!--');
    expect(regenerated).not.toContain('floor 1 ms');
    expect(firstDifference(stale, regenerated)).toMatch(/^line 1:/);
  });

  it('a deliberately changed figure of each kind is caught', async () => {
    // Figures read from docs/generated/values.json (the confidence, judge and gate commands on the
    // shared data; npm pack), from bench/results/*.json (engines, recordings) and computed from the
    // repository at docs time (the Action bundle's parts, the example agents' lock file): each
    // changed number is put back by the generator.
    const cache = JSON.parse(readFileSync(join(ROOT, 'docs', 'generated', 'values.json'), 'utf8')) as Record<string, unknown>;
    const figures: [file: string, expr: string][] = [
      ['README.md', 'confExact.evaluation.rules.rule=agreement-first.auroc.estimate|fixed3'],
      ['README.md', 'cal95.result.heldOut.passAccuracy.estimate|pct1'],
      ['README.md', 'cal90.result.fit.flagAt|thr'],
      ['README.md', 'plant.plant.kinds.kind=bad_join.ownCheckFired'],
      ['README.md', 'judgeDailFormal.report.overall.kappa.value|fixed2'],
      ['README.md', 'bench.engines.numbers.postgres.ratio|fixed2'],
      ['README.md', 'bench.recordings.numbers.generated.smaller|fixed1'],
      ['README.md', 'gateReal.local.n'],
      ['docs/gate.md', 'gateReal.genparse.n'],
      ['docs/recordings.md', 'bench.recordings.numbers.dinsql.format2.openCpuMs|int'],
      ['docs/recordings.md', 'bench.recordings.numbers.generated.format2.packedBytes|mib1'],
      ['docs/action.md', 'bundle.bundle.undici|mb2'],
      ['docs/action.md', 'pack.files|int'],
      ['docs/command-agents.md', 'agentsLock.agentsPackages.linuxX64'],
    ];
    for (const [file, expr] of figures) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const marker = `<!-- value: ${expr} -->`;
      const at = text.indexOf(marker);
      expect(at, `${file}: ${expr}`).toBeGreaterThan(0);
      const line = text.slice(at, text.indexOf('<!-- /value -->', at) + '<!-- /value -->'.length);
      const stale = `${marker}123.4<!-- /value -->`;
      expect(line).not.toBe(stale);
      // The file's source comment for the value, so the generator knows the command.
      const name = expr.split('.')[0] as string;
      const source = name === 'bench' ? '' : `${/<!-- source: (\S+) = [^\n]*-->/g.exec(text.slice(text.indexOf(`<!-- source: ${name} =`)))?.[0] ?? ''}\n`;
      const regenerated = await generate(`${source}${stale}\n`, { root: ROOT, file, run, useCache: true, cache });
      expect(regenerated, `${file}: ${expr}`).toContain(line);
      expect(regenerated).not.toContain('123.4');
    }
  });

  it('a deliberately stale output the benchmark kept, or a stale gate table, is caught', async () => {
    // docs/recordings.md shows what `recordings upgrade` printed in bench/recordings.mjs.
    const stale = '<!-- docs: bench recordings upgradeOutput -->\n```text\nrecordings/x: format 1 → 2: 1 call\n```\n';
    const regenerated = await generate(stale, { root: ROOT, file: 'docs/recordings.md', run });
    expect(regenerated).not.toContain('recordings/x');
    expect(regenerated).toMatch(/recordings\/din-sql-gpt4: format 1 → 2: \d+ calls/);
    // docs/gate.md's real-input table (scripts/gate-real-inputs.sh's reports, kept in docs/generated/values.json).
    const gate = readFileSync(join(ROOT, 'docs', 'gate.md'), 'utf8');
    const marker = /^<!-- docs: node scripts\/docs\/figures\.mjs gate-real-table [^\n]*-->$/m.exec(gate)?.[0];
    expect(marker).toBeDefined();
    const cache = JSON.parse(readFileSync(join(ROOT, 'docs', 'generated', 'values.json'), 'utf8')) as Record<string, unknown>;
    const table = await generate(`${marker}\n| stale | 123.4 |\n<!-- /docs -->\n`, { root: ROOT, file: 'docs/gate.md', run, useCache: true, cache });
    expect(table).not.toContain('123.4');
    expect(table).toContain('| llama3.1 8b | ');
  });

  it('covers README.md, every docs/*.md and the examples', () => {
    expect(docFiles(ROOT)).toEqual(
      expect.arrayContaining(['README.md', 'docs/checks.md', 'docs/action.md', 'examples/chinook/README.md', 'examples/chinook-duckdb/README.md', 'examples/chinook-postgres/README.md']),
    );
  });

  it('shows no hand-typed replaygate output in the examples: every `$ npx replaygate` block is generated', () => {
    // A block that starts with a `$ npx replaygate …` prompt and has no docs marker above it goes stale silently.
    const unmarked: string[] = [];
    for (const file of docFiles(ROOT)) {
      const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (/^`{3,}/.test(line) && /^\$ (npx )?replaygate /.test(lines[i + 1] ?? '') && !(lines[i - 1] ?? '').startsWith('<!-- docs: ')) unmarked.push(`${file}:${i + 2}: ${lines[i + 1]}`);
      });
    }
    expect(unmarked).toEqual([]);
  });
});

describe('the generator', () => {
  const fake: RunCli = async (argv) => {
    const out = argv[0] === 'fence' ? 'a\n```sql\nSELECT 1\n```\nb\n' : `ran ${argv.join(' ')}\n`;
    return { code: 0, stdout: out, stderr: '', both: out };
  };
  const gen = (text: string): Promise<string> => generate(text, { root: ROOT, file: 'README.md', run: fake });

  it('fills an empty block and leaves the text after it alone', async () => {
    const text = 'x\n<!-- docs: replaygate score -->\n```text\n```\n\nafter\n\n```sh\nkeep\n```\n';
    expect(await gen(text)).toBe('x\n<!-- docs: replaygate score -->\n```text\nran score\n```\n\nafter\n\n```sh\nkeep\n```\n');
  });

  it('gives output holding ``` a longer fence, and reads it back as one block', async () => {
    const once = await gen('<!-- docs: replaygate fence -->\n```text\n```\ntail\n');
    expect(once).toBe('<!-- docs: replaygate fence -->\n````text\na\n```sql\nSELECT 1\n```\nb\n````\ntail\n');
    expect(await gen(once)).toBe(once);
  });

  it('leaves markers quoted in code alone and formats values', async () => {
    const text = 'see `<!-- value: dist.total|int -->1<!-- /value -->` and\n    <!-- docs: replaygate x -->\n<!-- value: dist.total|int -->1<!-- /value -->\n';
    const out = await gen(text);
    expect(out.startsWith('see `<!-- value: dist.total|int -->1<!-- /value -->` and\n    <!-- docs: replaygate x -->\n')).toBe(true);
    expect(out).toMatch(/\n<!-- value: dist\.total\|int -->\d{1,3}(,\d{3})+<!-- \/value -->\n$/);
  });

  it('puts a raw block in as Markdown up to its end marker, and keeps a cached block in the cache', async () => {
    const cache: Record<string, unknown> = {};
    const text = 'x\n<!-- docs: replaygate table [raw cache] -->\n| stale |\n<!-- /docs -->\n\n| keep |\n';
    const once = await generate(text, { root: ROOT, file: 'README.md', run: fake, cache });
    expect(once).toBe('x\n<!-- docs: replaygate table [raw cache] -->\nran table\n<!-- /docs -->\n\n| keep |\n');
    expect(cache).toEqual({ 'docs: replaygate table [raw cache]': { text: 'ran table' } });
    // Read back from the cache (as the test and --check do) without running anything.
    const failing: RunCli = async () => ({ code: 1, stdout: '', stderr: 'not run', both: 'not run' });
    expect(await generate(text, { root: ROOT, file: 'README.md', run: failing, useCache: true, cache })).toBe(once);
    await expect(generate(text, { root: ROOT, file: 'README.md', run: failing, useCache: true, cache: {} })).rejects.toThrow(/not in docs\/generated\/values\.json/);
  });

  it('runs a pg=ENV block against a fresh database of the cluster it is given, and leaves it as it is without one', async () => {
    const text = '<!-- docs: replaygate env [pg=DOCS_TEST_URL setup="true"] -->\n```text\nkept\n```\n';
    const seen: string[] = [];
    const looking: RunCli = async () => {
      const url = process.env['DOCS_TEST_URL'] ?? '';
      seen.push(url);
      const out = `database ${/\/docs_docs_test_url_\w+$/.test(url) ? 'made' : 'missing'}\n`;
      return { code: 0, stdout: out, stderr: '', both: out };
    };
    expect(await generate(text, { root: ROOT, file: 'README.md', run: looking, postgres: null })).toBe(text);
    await expect(generate(text, { root: ROOT, file: 'README.md', run: looking })).rejects.toThrow(/needs PostgreSQL \(pg=DOCS_TEST_URL\)/);
    if (postgres === null) return;
    expect(await generate(text, { root: ROOT, file: 'README.md', run: looking, postgres })).toBe('<!-- docs: replaygate env [pg=DOCS_TEST_URL setup="true"] -->\n```text\ndatabase made\n```\n');
    // The variable is put back and the database dropped.
    expect(process.env['DOCS_TEST_URL']).toBeUndefined();
    const { adminSql } = await import('../helpers/postgres.js');
    const [left] = await adminSql(`SELECT count(*)::int AS n FROM pg_database WHERE datname = '${new URL(seen[0] as string).pathname.slice(1)}'`);
    expect(left?.rows[0]).toEqual({ n: 0 });
  });

  it('runs node scripts of the repository only', async () => {
    await expect(gen('<!-- docs: node /etc/x.mjs -->\n```text\n```\n')).rejects.toThrow(/only replaygate commands and node scripts/);
    await expect(gen('<!-- docs: node scripts/../x.mjs -->\n```text\n```\n')).rejects.toThrow(/only replaygate commands and node scripts/);
  });

  it('refuses an unexpected exit code, naming the file and command', async () => {
    const failing: RunCli = async () => ({ code: 1, stdout: '', stderr: 'boom', both: 'boom' });
    await expect(generate('<!-- docs: replaygate score -->\n```text\n```\n', { root: ROOT, file: 'README.md', run: failing })).rejects.toThrow(
      /README\.md: `replaygate score` \(in \.\) exited 1, expected 0/,
    );
  });
});
