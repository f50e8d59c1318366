import { readFile } from 'node:fs/promises';
import { parseDocument, isMap, isSeq, type Document, type Node, type ParseOptions, type DocumentOptions, type SchemaOptions, type Tags, type ScalarTag } from 'yaml';
import { DataError } from './errors.js';

/**
 * YAML options used for every file replaygate reads: YAML 1.2 core schema (no timestamps,
 * so dates stay strings), duplicate keys are errors, and integers are numbers only when
 * written plainly — codes such as `007`, `0x1F` or 16+ digit ids stay strings, exactly as written.
 */
const OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  schema: 'core',
  uniqueKeys: true,
  prettyErrors: true,
  customTags: (tags: Tags): Tags =>
    tags
      .filter((t) => !(typeof t === 'object' && 'format' in t && (t.format === 'OCT' || t.format === 'HEX')))
      .map((t) =>
        typeof t === 'object' && t.tag === 'tag:yaml.org,2002:int' && !('format' in t && t.format)
          ? ({ ...t, test: /^[-+]?(0|[1-9][0-9]{0,14})$/ } as ScalarTag)
          : t,
      ),
};

export interface LoadedYaml {
  readonly file: string;
  readonly value: unknown;
  /** 1-based line of the node at a path of keys/indices, for messages; undefined when unknown. */
  lineOf(path: readonly (string | number)[]): number | undefined;
  /** `file:line` for a path (or just `file`). */
  where(path: readonly (string | number)[]): string;
}

/**
 * Parses YAML text. The first syntax error or duplicate key throws.
 * @throws DataError `file:line: message` for malformed YAML or a duplicate key.
 */
export function parseYaml(text: string, file: string): LoadedYaml {
  const doc = parseDocument(text, OPTIONS);
  const first = doc.errors[0];
  if (first) {
    const line = first.linePos?.[0].line;
    const message = first.message.split('\n')[0] ?? first.message;
    throw new DataError(`malformed YAML: ${message}`, line === undefined ? file : `${file}:${line}`);
  }
  const lineStarts = lineStartOffsets(text);
  const lineOf = (path: readonly (string | number)[]): number | undefined => {
    const node = nodeAt(doc, path);
    const offset = node?.range?.[0];
    return offset === undefined ? undefined : lineFromOffset(lineStarts, offset);
  };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // An alias bomb (aliases of aliases, "billion laughs") or a self-referencing alias: refused, for every YAML file read.
    if (error instanceof ReferenceError) {
      throw new DataError(`malformed YAML: ${error.message.replace(/\.$/, '')} (at most 100 alias expansions; write the values out instead of nesting aliases)`, file);
    }
    throw error;
  }
  return {
    file,
    value,
    lineOf,
    where: (path) => {
      const line = lineOf(path);
      return line === undefined ? file : `${file}:${line}`;
    },
  };
}

/** Reads and parses a YAML file. @throws DataError naming the file when it cannot be read or parsed. */
export async function loadYamlFile(file: string): Promise<LoadedYaml> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new DataError(`cannot read file (${(error as NodeJS.ErrnoException).code ?? String(error)})`, file);
  }
  return parseYaml(text, file);
}

/**
 * Reads and parses a YAML file, naming it `shown` (e.g. a path relative to the project) in every
 * message and `where()`, the file's own errors included.
 * @throws DataError `shown:line: message` when it cannot be read or parsed.
 */
export async function loadYamlFileAs(file: string, shown: string): Promise<LoadedYaml> {
  let yaml: LoadedYaml;
  try {
    yaml = await loadYamlFile(file);
  } catch (error) {
    if (error instanceof DataError) throw new DataError(error.message.slice((error.where ?? '').length).replace(/^: /, ''), (error.where ?? file).replace(file, shown));
    throw error;
  }
  return { ...yaml, file: shown, where: (path) => yaml.where(path).replace(file, shown) };
}

/**
 * The node at a path; for a path that ends at a mapping key, the key itself (so `seeds:` with
 * its list on the following lines is reported at the line that says `seeds:`).
 */
function nodeAt(doc: Document, path: readonly (string | number)[]): Node | undefined {
  let node: unknown = doc.contents;
  for (const [i, step] of path.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === step);
      node = i === path.length - 1 ? (pair?.key ?? pair?.value) : (pair?.value ?? pair?.key);
    } else if (isSeq(node) && typeof step === 'number') {
      node = node.items[step];
    } else {
      return undefined;
    }
  }
  return node as Node | undefined;
}

function lineStartOffsets(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineFromOffset(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
