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

const ROOT = join(import.meta.dirname, '..', '..');

const run: RunCli = inProcessRunner(main);

describe('generated docs', () => {
  it('every generated block and number is current (npm run docs leaves git diff empty)', async () => {
    const changed = await generateAll({ root: ROOT, run, check: true });
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

  it('covers README.md, every docs/*.md and the examples', () => {
    expect(docFiles(ROOT)).toEqual(expect.arrayContaining(['README.md', 'docs/checks.md', 'docs/action.md', 'examples/chinook/README.md']));
  });
});
