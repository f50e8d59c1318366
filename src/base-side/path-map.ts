import { realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import type { AnnotationTarget, Logger } from '../util/logger.js';

/** Rewrites text that names files of the base tree; `identity` when there is no base. */
export type TextMap = (text: string) => string;

/** The {@link TextMap} of a run without a base tree: text unchanged. @example identityMap('a.yml') // 'a.yml' */
export const identityMap: TextMap = (text) => text;

const PATH_CHAR = String.raw`[^\s:'"\x60<>|,;()[\]{}]`;
const PATH_END = String.raw`[^\s:'"\x60<>|,;()[\]{}.]`;

/**
 * Maps paths inside the materialised base tree (a temporary folder deleted after the step)
 * back to repository-relative paths at the base commit: `<tree>/golden/a.yml:12` →
 * `golden/a.yml:12 at base 1a2b3c4`, and the tree itself → `the base commit 1a2b3c4`. Every
 * spelling a message may use is mapped: the absolute path, its real path (symlinked temp
 * folders) and both relative to the process's working directory (as MissingRecording's
 * "nearest recorded request" is). A path ends at whitespace, a quote, `:` (a `:line` suffix
 * is kept with the path), a bracket or a trailing `.`.
 * @example basePathMapper('/runner/_temp/replaygate-x/base', 'e3b0c44298fc')('/runner/_temp/replaygate-x/base/replaygate.yml:3: malformed YAML') // 'replaygate.yml:3 at base e3b0c44: malformed YAML'
 */
export function basePathMapper(tree: string, sha: string, cwd: string = process.cwd()): TextMap {
  const short = sha.slice(0, 7);
  const spellings = new Set<string>();
  for (const abs of [tree, realPath(tree)]) {
    const rel = relative(cwd, abs);
    for (const s of [abs, ...(rel !== '' && !isAbsolute(rel) ? [rel] : [])]) {
      spellings.add(s);
      spellings.add(s.split(sep).join('/'));
    }
  }
  const alternatives = [...spellings]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');
  const pattern = new RegExp(String.raw`(?<![\w./\\-])(?:${alternatives})(?:[/\\](${PATH_CHAR}*${PATH_END})((?::\d+){0,2}))?(?![\w-])`, 'g');
  return (text) =>
    text.replace(pattern, (_m, path: string | undefined, line: string | undefined) =>
      path === undefined ? `the base commit ${short}` : `${path.replace(/\\/g, '/')}${line ?? ''} at base ${short}`,
    );
}

/**
 * A {@link Logger} that passes every message through `map`; an annotation that points into
 * the base tree loses its file (annotations can only point at the head's files) and names
 * the base file in its message instead.
 * @example mapLogger(logger, map).error('x', { file: '/tmp/rg/base/a.yml', line: 3 }) // logger.error('a.yml:3 at base e3b0c44: x', {})
 */
export function mapLogger(logger: Logger, map: TextMap): Logger {
  const target = (message: string, t: AnnotationTarget | undefined): [string, AnnotationTarget | undefined] => {
    if (t?.file === undefined) return [map(message), t];
    const file = map(t.line === undefined ? t.file : `${t.file}:${t.line}`);
    if (!file.includes(' at base ')) return [map(message), t];
    return [`${file}: ${map(message)}`, t.title === undefined ? {} : { title: t.title }];
  };
  return {
    debug: (m) => logger.debug(map(m)),
    info: (m) => logger.info(map(m)),
    warning: (m, t) => logger.warning(...target(m, t)),
    error: (m, t) => logger.error(...target(m, t)),
    group: (name, fn) => logger.group(map(name), fn),
  };
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
