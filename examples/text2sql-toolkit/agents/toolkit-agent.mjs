// A custom replaygate agent (docs/custom-agents.md) that reproduces the agentic baselines of
// IBM's text2sql-eval-toolkit, so that their published traces replay through replaygate:
//   loop: react  (baseline4, baseline5)  JSON actions probe_schema / generate_sql (executed) /
//                                         analyze_error / submit_final_answer, 3 attempts
//   loop: retry  (baseline0, 1, 2)       write SQL, execute it, on an error ask again with the
//                                         error in the prompt, 3 attempts
// Every prompt is rebuilt from prompts/toolkit-prompts.json, the question and the database
// (schema text with example values read live), and every tool observation from executing the
// model's SQL on our copy of the database. A replay therefore finds its recorded reply only when
// the rebuilt request is byte-identical to the one the toolkit sent; anything that differs (a
// different observation, a statement our read-only warehouse refuses) surfaces as MissingRecording
// with a diff — the divergences listed in this example's README.
//
// Options (the agent's options: block in replaygate.yml): pipeline (baseline0..5), loop (react | retry),
// max_attempts (3), pinned_now (a date every 'now' in executed SQL is replaced with, see README).
// The module imports nothing from replaygate: everything comes through (config, deps) and ctx.
import { readFileSync } from 'node:fs';

const REACT_ACTIONS = ['generate_sql', 'probe_schema', 'analyze_error', 'submit_final_answer'];
const PROBE_LIMIT_CHARS = 500;

/** @type {import('../../../src/agent/types.js').AgentFactory} */
export default function createToolkitAgent(config, deps) {
  const o = config.options;
  const pipeline = String(o.pipeline ?? '');
  const loop = o.loop;
  const maxAttempts = Number(o.max_attempts ?? 3);
  const pinnedNow = o.pinned_now === undefined ? undefined : String(o.pinned_now);
  const templates = JSON.parse(readFileSync(config.prompt, 'utf8'))[pipeline];
  if (!templates) throw new Error(`agent '${config.name}': no templates for pipeline '${pipeline}' in ${config.prompt}`);
  if (loop !== 'react' && loop !== 'retry') throw new Error(`agent '${config.name}': loop must be react or retry, got ${JSON.stringify(loop)}`);
  const schemas = new WeakMap();

  const schemaOf = (engine) => {
    let s = schemas.get(engine);
    if (!s) {
      s = readSchema(engine);
      schemas.set(engine, s);
    }
    return s;
  };
  const request = (messages, seed) => ({
    model: config.model,
    messages,
    temperature: config.temperature,
    top_p: config.topP,
    max_tokens: config.maxTokens,
    seed,
  });
  const vars = async (ctx, more = {}) => ({
    question: ctx.question.question,
    schema: (await schemaOf(ctx.engine)).prompt,
    max_attempts: String(maxAttempts),
    ...more,
  });
  const firstMessages = async (ctx) => {
    const v = await vars(ctx, { attempt: '1' });
    if (loop === 'react') return [msg('system', fill(templates.system, v)), msg('user', fill(templates.user, v))];
    const first = [msg('system', fill(templates.system, v)), msg('user', fill(templates.user, v))];
    if (templates.first) first.push(msg('user', templates.first));
    return first;
  };
  /** Runs SQL the way the toolkit did, with 'now' pinned; returns { result } or { error }. */
  const execute = async (ctx, sql) => {
    const text = pinNow(sql, pinnedNow);
    const outcome = await deps.tools.runSql({ engine: ctx.engine, semantic: undefined, maxRows: ctx.maxRows, timeoutMs: ctx.timeoutMs, toolRows: 0 }, text);
    if (outcome.query?.result) return { sql: text, result: outcome.query.result };
    // The toolkit's own wording: "Error running query: <sqlite message>".
    const message = (outcome.query?.error ?? outcome.error ?? 'unknown error').replace(/^(SQL error|refused|timeout): /, '');
    return { sql: text, error: `Error running query: ${message}` };
  };

  return {
    name: config.name,
    kind: `text2sql-toolkit-${loop}`,
    async firstRequest(ctx) {
      return request(await firstMessages(ctx), ctx.seed);
    },
    async run(ctx) {
      const trace = [];
      const call = async (messages, callIndex) => {
        // Not wrapped in try/catch: a MissingRecording must reach replaygate.
        const response = await ctx.model.complete(request(messages, ctx.seed), { questionId: ctx.question.id, seed: ctx.seed, callIndex });
        trace.push({ type: 'model_call', callIndex, key: response.key, usage: response.usage, reply: response.reply });
        return response.reply.content;
      };
      const sqlStep = (r) => {
        trace.push(r.result ? { type: 'sql', sql: r.sql, result: summary(r.result) } : { type: 'sql', sql: r.sql, error: r.error });
        return r;
      };
      const crashed = { end: { status: 'error', error: "the model returned no content (the original agent crashed here: 'NoneType' object has no attribute 'strip')" }, trace };
      return loop === 'react' ? runReact() : runRetry();

      async function runReact() {
        const messages = await firstMessages(ctx);
        let attempts = 0;
        let last;
        for (let action = 0; action < 2 * maxAttempts; action++) {
          const content = await call(messages, action);
          if (content === null || content === undefined) return crashed;
          messages.push(msg('assistant', content));
          const parsed = parseAction(content);
          let observation;
          if (parsed.action === 'probe_schema') {
            const table = String(parsed.input.table_name ?? '');
            const text = `Additional schema information from database:\n\n${(await schemaOf(ctx.engine)).probe}`.slice(0, PROBE_LIMIT_CHARS);
            observation = `Observation: Schema information for '${table}':\n${text}\n\nWhat's your next action?`;
            trace.push({ type: 'tool_call', callIndex: action, tool: 'probe_schema', arguments: JSON.stringify(parsed.input), output: observation });
          } else if (parsed.action === 'generate_sql') {
            attempts += 1;
            last = sqlStep(await execute(ctx, String(parsed.input.sql ?? '')));
            observation = last.result
              ? `Observation: ✅ Success! Query executed successfully.\nRows returned: ${last.result.rowCount}\nResult preview: \n\nWhat's your next action?`
              : // Not seen in the published traces (every recorded failure was a run's last action): an assumed wording.
                `Observation: ❌ Error: ${last.error}\n\nWhat's your next action?`;
            trace.push({ type: 'tool_call', callIndex: action, tool: 'generate_sql', arguments: JSON.stringify(parsed.input), output: observation, ...(last.error ? { error: last.error } : {}) });
            if (attempts >= maxAttempts) return last.result ? answered(last) : { end: { status: 'error', error: last.error }, trace };
          } else if (parsed.action === 'submit_final_answer') {
            // An empty submission falls back to the last generated SQL, as the toolkit's predicted_sql does.
            const submitted = String(parsed.input.sql ?? '').trim();
            const final = submitted === '' && last ? last : sqlStep(await execute(ctx, submitted));
            trace.push({ type: 'tool_call', callIndex: action, tool: 'submit_final_answer', arguments: JSON.stringify(parsed.input), output: '' });
            return final.result ? answered(final, String(parsed.input.explanation ?? '')) : { end: { status: 'error', error: final.error }, trace };
          } else if (parsed.action === 'analyze_error') {
            // Not seen in the published traces: an assumed wording.
            observation = `Observation: Error analysis noted.\n\nWhat's your next action?`;
          } else {
            observation = `Error: Unknown action: ${parsed.action}. Please use one of: ${REACT_ACTIONS.join(', ')}\n\nWhat's your next action?`;
            trace.push({ type: 'tool_call', callIndex: action, tool: parsed.action, arguments: content, output: observation, error: 'unknown action' });
          }
          messages.push(msg('user', observation));
        }
        return last?.result ? answered(last) : { end: { status: 'step_limit', calls: 2 * maxAttempts }, trace };
      }

      async function runRetry() {
        const reasoning = [];
        const errors = [];
        let previousSql = '';
        for (let attempt = 1; attempt <= maxAttempts; attempt++) {
          let messages;
          if (attempt === 1) {
            messages = await firstMessages(ctx);
          } else {
            const error = errors[errors.length - 1];
            const v = await vars(ctx, {
              attempt: String(attempt),
              error,
              previous_sql: previousSql,
              errors: errors.map((e, i) => fill(templates.error_line ?? '', { attempt: String(i + 1), error: e })).join('\n'),
              reasoning: reasoning.join('\n'),
              fix_instructions: fixInstructions(templates, error),
            });
            if (pipeline === 'baseline0') {
              messages = [
                msg('system', fill(templates.system, v)),
                msg('assistant', fill(templates.reasoning, v)),
                msg('user', fill(templates.user, v)),
                msg('user', fill(templates.errors, v)),
                msg('user', fill(templates.retry, v)),
              ];
            } else {
              messages = [msg('system', fill(templates.system, v)), msg('user', fill(templates.retry_user, v))];
            }
          }
          const content = await call(messages, attempt - 1);
          if (content === null || content === undefined) return crashed;
          const sql = extractSql(content);
          previousSql = sql;
          reasoning.push(`Generated SQL (attempt ${attempt}): ${sql}`);
          const r = sqlStep(await execute(ctx, sql));
          if (r.result) return answered(r);
          errors.push(r.error);
        }
        return { end: { status: 'error', error: errors[errors.length - 1] }, trace };
      }

      function answered(r, text) {
        return { end: { status: 'answered', sql: r.sql, result: r.result, ...(text ? { text } : {}) }, trace };
      }
    },
  };
}

/** The two schema texts the toolkit shows: the prompt's overview (with example values) and the probe's column list. */
export async function readSchema(engine) {
  const tables = (await engine.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")).rows.map((r) => String(r[0]));
  const overview = [];
  const probe = [];
  for (const table of tables) {
    const columns = (await engine.query(`SELECT name, type, pk FROM pragma_table_info(${quoteString(table)}) ORDER BY cid`)).rows;
    const lines = [];
    const probeLines = [];
    for (const [name, type, pk] of columns) {
      const declared = String(type ?? '');
      const values = (await engine.query(`SELECT DISTINCT ${quoteId(name)} FROM ${quoteId(table)} WHERE ${quoteId(name)} IS NOT NULL LIMIT 5`)).rows.map((r) => pyStr(r[0], declared));
      const examples = values.length > 0 ? ` # Example values: ${values.join(', ')}` : '';
      lines.push(`    - ${name} (${declared === '' ? 'TEXT' : declared.toUpperCase()})${pk > 0 ? ' (Primary Key)' : ''}${examples}\n`);
      probeLines.push(`  - ${name} (${probeType(declared)})\n`);
    }
    overview.push(`Table: ${table}\n  Columns:\n${lines.join('')}`);
    probe.push(`Table: ${table}\n${probeLines.join('')}`);
  }
  return { prompt: overview.join('\n'), probe: probe.join('\n') };
}

/** baseline2's fix instructions per kind of error; two kinds are known from the traces, others are an assumed wording. */
function fixInstructions(templates, error) {
  if (/syntax error/.test(error)) return templates.fix_syntax ?? '';
  if (/no such column/.test(error)) return templates.fix_no_such_column ?? '';
  return `- ${error}`;
}

/** The probe shows SQLite's basic type names in upper case and any other declared type as written. */
function probeType(declared) {
  return ['int', 'integer', 'text', 'real', 'blob', 'numeric'].includes(declared.toLowerCase()) ? declared.toUpperCase() : declared;
}

/** A value as Python's str() writes it (the toolkit is Python): floats keep '.0', exponents from 1e16. */
function pyStr(value, declared) {
  if (typeof value === 'number') {
    const real = /REAL|FLOA|DOUB/i.test(declared) || !Number.isInteger(value);
    if (!real) return String(value);
    if (Number.isInteger(value) && Math.abs(value) < 1e16) return `${value}.0`;
    const abs = Math.abs(value);
    if (abs !== 0 && (abs >= 1e16 || abs < 1e-4)) return value.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
    return String(value);
  }
  if (typeof value === 'bigint') return value.toString();
  return String(value);
}

/** Replaces SQLite's 'now' (as a quoted argument) with a pinned date, so results do not drift with the calendar. */
export function pinNow(sql, pinnedNow) {
  if (pinnedNow === undefined) return sql;
  return sql.replace(/(['"])now\1/gi, `'${pinnedNow}'`);
}

/** The toolkit reads a reply's JSON action; a reply without one is the action ''. */
function parseAction(content) {
  let text = content.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/.exec(text);
  if (fenced) text = fenced[1];
  try {
    const value = JSON.parse(text);
    return { action: typeof value.action === 'string' ? value.action : '', input: value.action_input && typeof value.action_input === 'object' ? value.action_input : {} };
  } catch {
    return { action: '', input: {} };
  }
}

/** The retry loops take the reply as the SQL, without a ```sql fence when there is one. */
function extractSql(content) {
  const fenced = /```(?:sql)?\s*\n([\s\S]*?)```/.exec(content);
  return (fenced ? fenced[1] : content).trim();
}

function fill(template, vars) {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name) => (vars[name] === undefined ? whole : vars[name]));
}

function msg(role, content) {
  return { role, content };
}

function summary(result) {
  return { columns: result.columns, rows: result.rows.slice(0, 100), rowCount: result.rowCount, truncated: result.truncated };
}

function quoteId(name) {
  return `"${String(name).replaceAll('"', '""')}"`;
}

function quoteString(text) {
  return `'${String(text).replaceAll("'", "''")}'`;
}
