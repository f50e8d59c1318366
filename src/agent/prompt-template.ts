import { readFileSync } from 'node:fs';
import { DataError } from '../util/errors.js';
import type { ChatMessage } from '../model/types.js';
import { qualifiedTableName, type TableInfo } from '../warehouse/types.js';

/** Line that separates the system part of a prompt file from the user part. */
export const USER_SEPARATOR = '--- user ---';

/**
 * A prompt template file. `{{name}}` placeholders are filled from the variables given to
 * {@link PromptTemplate.render}; a line `--- user ---` splits it into a system message (above)
 * and a user message (below); without it the whole file is the user message.
 */
export class PromptTemplate {
  private readonly systemParts: readonly Part[] | undefined;
  private readonly userParts: readonly Part[];

  private constructor(
    readonly file: string,
    system: string | undefined,
    user: string,
  ) {
    // Split once into text and placeholders: rendering (once per run) only concatenates.
    this.systemParts = system === undefined ? undefined : parts(system);
    this.userParts = parts(user);
  }

  /** @throws DataError naming the file when it cannot be read or is empty. */
  static load(file: string): PromptTemplate {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new DataError(`cannot read prompt template (${(error as NodeJS.ErrnoException).code ?? String(error)})`, file);
    }
    if (text.trim() === '') throw new DataError('the prompt template is empty', file);
    const lines = text.split('\n');
    const cut = lines.findIndex((l) => l.trim() === USER_SEPARATOR);
    if (cut === -1) return new PromptTemplate(file, undefined, text.trim());
    return new PromptTemplate(file, lines.slice(0, cut).join('\n').trim(), lines.slice(cut + 1).join('\n').trim());
  }

  /**
   * The messages for one question.
   * @throws DataError naming the file and placeholder when a `{{name}}` has no value.
   */
  render(vars: Readonly<Record<string, string>>): ChatMessage[] {
    const fill = (template: readonly Part[]): string => {
      let out = '';
      for (const part of template) {
        if (typeof part === 'string') {
          out += part;
          continue;
        }
        const value = vars[part.name];
        if (value === undefined) throw new DataError(`unknown placeholder {{${part.name}}} (known: ${Object.keys(vars).join(', ')})`, this.file);
        out += value;
      }
      return out;
    };
    const messages: ChatMessage[] = [];
    if (this.systemParts !== undefined) messages.push({ role: 'system', content: fill(this.systemParts) });
    messages.push({ role: 'user', content: fill(this.userParts) });
    return messages;
  }
}

/** A piece of a template: literal text, or a `{{name}}` placeholder. */
type Part = string | { readonly name: string };

const PLACEHOLDER = /\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/g;

/** A template's text and placeholders, in order. @example parts('a {{x}}b') // ['a ', { name: 'x' }, 'b'] */
function parts(text: string): Part[] {
  const out: Part[] = [];
  let from = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (m.index > from) out.push(text.slice(from, m.index));
    out.push({ name: m[1]! });
    from = m.index + m[0].length;
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}

/**
 * Compact schema text for prompts: one line per table, `name(col TYPE PK, ...)`, then its
 * foreign keys as `table.col -> other.col`. Tables outside the engine's default schema are
 * written as SQL names them (`analytics.fct_orders`); types are the engine's own (`INT` in
 * SQLite, `DECIMAL(10,2)` in DuckDB, `numeric(10,2)` in PostgreSQL). Deterministic for a given
 * schema, so a schema change (a renamed column) changes the prompt and hence the request key.
 * @example schemaText([{name:'singer', columns:[{name:'Singer_ID', type:'int', primaryKey:true}], foreignKeys:[]}]) // 'singer(Singer_ID int PK)'
 */
export function schemaText(tables: readonly TableInfo[]): string {
  const lines: string[] = [];
  for (const t of tables) {
    const cols = t.columns.map((c) => [c.name, c.type, c.primaryKey ? 'PK' : ''].filter(Boolean).join(' '));
    const name = qualifiedTableName(t);
    lines.push(`${name}(${cols.join(', ')})`);
    for (const fk of t.foreignKeys) lines.push(`  ${name}.${fk.column} -> ${fk.refTable}.${fk.refColumn}`);
  }
  return lines.join('\n');
}
