import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { basePathMapper, mapLogger } from '../../src/base-side/path-map.js';
import type { AnnotationTarget, Logger } from '../../src/util/logger.js';

const SHA = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4';
const home = mkdtempSync(join(tmpdir(), 'rg-base-side-'));
const tree = join(home, '_temp/replaygate-Ab12Cd/base');
mkdirSync(tree, { recursive: true });
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('basePathMapper', () => {
  const map = basePathMapper(tree, SHA, join(home, 'work/repo'));

  it('maps an absolute path with a line to `path:line at base <short sha>`', () => {
    expect(map(`${tree}/replaygate.yml:3: malformed YAML: bad indentation`)).toBe('replaygate.yml:3 at base e3b0c44: malformed YAML: bad indentation');
    expect(map(`in ${tree}/golden/a.yml:12:5, see`)).toBe('in golden/a.yml:12:5 at base e3b0c44, see');
  });

  it('ends a path before a sentence full stop, a quote or a bracket', () => {
    expect(map(`no manifest at ${tree}/recordings/sql-agent.`)).toBe('no manifest at recordings/sql-agent at base e3b0c44.');
    expect(map(`file "${tree}/prompts/sql.md" (missing)`)).toBe('file "prompts/sql.md at base e3b0c44" (missing)');
  });

  it('maps the tree itself, a path relative to the working directory, and the real path of a symlinked tree', () => {
    expect(map(`cannot read ${tree}`)).toBe('cannot read the base commit e3b0c44');
    const rel = relative(join(home, 'work/repo'), join(tree, 'recordings/x/calls.jsonl'));
    expect(rel.startsWith('../../_temp/')).toBe(true);
    expect(map(`Nearest recorded request (${rel}:1, same question)`)).toBe('Nearest recorded request (recordings/x/calls.jsonl:1 at base e3b0c44, same question)');
    const link = join(home, 'link');
    symlinkSync(join(home, '_temp'), link);
    const viaLink = basePathMapper(join(link, 'replaygate-Ab12Cd/base'), SHA, '/');
    expect(viaLink(`${tree}/a.yml:1: x`)).toBe('a.yml:1 at base e3b0c44: x');
  });

  it('leaves other paths alone, including one that merely starts with the same characters', () => {
    for (const text of [`${tree}2/replaygate.yml`, `${home}/work/repo/replaygate.yml:3`, 'replaygate.yml', `x${tree}/a.yml`]) expect(map(text)).toBe(text);
  });
});

describe('mapLogger', () => {
  it('maps messages; an annotation pointing into the base tree keeps its title and names the file in the message', () => {
    const seen: [string, string, AnnotationTarget | undefined][] = [];
    const inner: Logger = {
      debug: (m) => seen.push(['debug', m, undefined]),
      info: (m) => seen.push(['info', m, undefined]),
      warning: (m, t) => seen.push(['warning', m, t]),
      error: (m, t) => seen.push(['error', m, t]),
      group: (_n, fn) => fn(),
    };
    const logger = mapLogger(inner, basePathMapper(tree, SHA, '/'));
    logger.info(`loaded ${tree}/replaygate.yml`);
    logger.error('metric fails', { file: `${tree}/semantic/m.yml`, line: 4, title: 'metric fails' });
    logger.warning('head file', { file: 'prompts/sql.md' });
    expect(seen).toEqual([
      ['info', 'loaded replaygate.yml at base e3b0c44', undefined],
      ['error', 'semantic/m.yml:4 at base e3b0c44: metric fails', { title: 'metric fails' }],
      ['warning', 'head file', { file: 'prompts/sql.md' }],
    ]);
  });
});
