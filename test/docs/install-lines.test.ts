/**
 * Every install line a reader can copy installs something that exists: replaygate is not on the
 * npm registry, so `npm install replaygate` (or `-g replaygate`, `replaygate@1`) fails with E404.
 * The docs, the examples, the workflows and the CLI's own messages install it from the repository
 * (`github:replaygate/replaygate#v1`), from a clone (`npm install -g .`) or from a tarball
 * (`./replaygate-*.tgz`). A line that shows the registry name only to say it fails
 * ("`npm install -g replaygate` fails with E404") is allowed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SKIP = new Set(['node_modules', '.git', 'build', 'dist', 'out', 'test', 'golden', 'recordings', 'warehouse', 'tools']);

function files(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files(path, out);
    else if (/\.(md|ya?ml|ts|mjs|js|sh|py)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** The `npm install …` / `npm i …` / `npx …` commands of a text (a command ends at a backtick, quote, `&&`, `;`, `|`, `#` or a line end in code). */
export function installsOfRegistryReplaygate(text: string): string[] {
  const bad: string[] = [];
  // Inline code may wrap over a line in Markdown: join the lines, but keep where a span ends.
  const joined = text.replace(/\n(?=\S)/g, ' ');
  for (const m of joined.matchAll(/\bnpm (?:install|i|add)\b([^`'"\n&;|#)]*)/g)) {
    const words = (m[1] ?? '').trim().split(/\s+/);
    const names = words.filter((w) => !w.startsWith('-'));
    const registryName = names.some((w) => /^replaygate(@[^\s/]*)?$/.test(w));
    if (!registryName) continue;
    // "`npm install -g replaygate` fails with E404": the counter-example, said as such.
    const after = joined.slice((m.index ?? 0) + m[0].length, (m.index ?? 0) + m[0].length + 20);
    if (/^`?\s*fails\b/.test(after)) continue;
    bad.push(m[0].trim());
  }
  return bad;
}

describe('install lines', () => {
  it('finds the registry name in wrapped inline code and leaves the counter-example alone', () => {
    expect(installsOfRegistryReplaygate('in a project, `npm install --save-dev\nreplaygate` and use npx')).toEqual(['npm install --save-dev replaygate']);
    expect(installsOfRegistryReplaygate('`npm i -g replaygate@1.0.0`')).toEqual(['npm i -g replaygate@1.0.0']);
    expect(installsOfRegistryReplaygate('`npm install -g replaygate` fails with E404')).toEqual([]);
    expect(installsOfRegistryReplaygate('`npm install --save-dev github:replaygate/replaygate#v1` and `npm install -g ./replaygate-*.tgz`, `npm install -g .`')).toEqual([]);
    expect(installsOfRegistryReplaygate('npm install --no-save @duckdb/node-api@1.5.6-r.1   # for the replaygate step')).toEqual([]);
  });

  it('no doc, example, workflow or message installs replaygate from the npm registry', () => {
    const found: string[] = [];
    for (const file of files(ROOT)) {
      for (const line of installsOfRegistryReplaygate(readFileSync(file, 'utf8'))) found.push(`${relative(ROOT, file)}: ${line}`);
    }
    expect(found).toEqual([]);
  });
});
