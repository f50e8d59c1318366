import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolsAgent } from '../../src/agent/tools-agent.js';
import type { AgentContext } from '../../src/agent/types.js';
import type { AgentConfig } from '../../src/config/types.js';
import type { GoldenQuestion } from '../../src/golden/types.js';
import type { ChatMessage } from '../../src/model/types.js';
import { requestKey } from '../../src/recording/canonical.js';
import { parseSemanticFiles, type SemanticLayer } from '../../src/semantic/index.js';
import { migratedCopy, openSqliteEngine, type MigratedCopy, type SqlEngine } from '../../src/warehouse/index.js';
import { CHINOOK_DB, CHINOOK_DIR, CHINOOK_METRICS } from '../semantic/helpers.js';
import { call, inOrder, ScriptedModel, text, tools, type Script } from './scripted-model.js';

const CONFIG: AgentConfig = {
  name: 'tools-test',
  kind: 'tools',
  model: 'test-model',
  prompt: join(CHINOOK_DIR, 'prompts/tools.md'),
  recording: '/nonexistent',
  temperature: 0.7,
  topP: 0.95,
  maxTokens: 512,
  maxCalls: 4,
  options: {},
};

const QUESTION: GoldenQuestion = {
  id: 'q-1',
  question: 'What was total revenue in 2023?',
  split: 'dev',
  kind: 'answer',
  goldenSql: "SELECT SUM(Total) FROM Invoice WHERE strftime('%Y', InvoiceDate) = '2023'",
  ordered: false,
  set: false,
  source: 'test',
};

let engine: SqlEngine;
let layer: SemanticLayer;
let migrated: MigratedCopy;
let renamed: SqlEngine;

beforeAll(async () => {
  engine = openSqliteEngine(CHINOOK_DB);
  layer = await parseSemanticFiles([CHINOOK_METRICS]);
  migrated = await migratedCopy(new Map([['main', CHINOOK_DB]]), {
    text: 'ALTER TABLE InvoiceLine RENAME COLUMN UnitPrice TO UnitPriceUsd;',
    label: 'rename.sql',
  });
  renamed = openSqliteEngine(migrated.databases.get('main') as string);
});
afterAll(async () => {
  await engine.close();
  await renamed.close();
  await migrated.cleanup();
});

async function runWith(script: Script, options: { config?: Partial<AgentConfig>; on?: SqlEngine; question?: GoldenQuestion } = {}) {
  const agent = new ToolsAgent({ ...CONFIG, ...options.config }, layer);
  const model = new ScriptedModel(script);
  const ctx: AgentContext = { question: options.question ?? QUESTION, seed: 3, model, engine: options.on ?? engine, maxRows: 10_000, timeoutMs: 5_000 };
  const result = await agent.run(ctx);
  return { result, model, agent, ctx };
}

const METRIC_2023 = { metrics: ['revenue'], filters: [{ dimension: 'invoice_date__year', op: '=', value: '2023' }] };

describe('ToolsAgent', () => {
  it('sends tools and explicit sampling, feeds tool results back, and answers with the last result', async () => {
    const { result, model, agent, ctx } = await runWith(inOrder(tools(call('c1', 'query_metric', METRIC_2023)), text('Revenue in 2023 was $469.58.')));
    expect(result.end).toMatchObject({ status: 'answered', text: 'Revenue in 2023 was $469.58.' });
    if (result.end.status !== 'answered') throw new Error('unreachable');
    expect(result.end.result.rows[0]?.[0]).toBeCloseTo(469.58, 6);
    expect(result.end.sql).toMatch(/^SELECT SUM\(InvoiceLine\.UnitPrice \* InvoiceLine\.Quantity\) AS revenue FROM InvoiceLine LEFT JOIN Invoice/);

    const [first, second] = model.requests;
    expect(first).toMatchObject({ model: 'test-model', temperature: 0.7, top_p: 0.95, max_tokens: 512, seed: 3, tool_choice: 'auto' });
    expect(first?.tools?.map((t) => t.function.name)).toEqual(['run_sql', 'list_metrics', 'query_metric', 'decline', 'ask_back']);
    expect(first?.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(first?.messages[0]?.content).toContain('You have at most 4 model calls');
    expect(first?.messages[0]?.content).toContain('- revenue: Sales in US dollars');
    expect(first?.messages[1]).toEqual({ role: 'user', content: 'What was total revenue in 2023?' });
    expect(await agent.firstRequest({ question: ctx.question, seed: 3, engine, maxRows: 1, timeoutMs: 1 })).toEqual(first);

    const messages = second?.messages as ChatMessage[];
    expect(messages[2]).toEqual({ role: 'assistant', content: null, tool_calls: [call('c1', 'query_metric', METRIC_2023)] });
    expect(messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    const observation = JSON.parse((messages[3] as { content: string }).content) as { columns: string[]; row_count: number };
    expect(observation).toMatchObject({ columns: ['revenue'], row_count: 1, truncated: false });

    expect(result.trace.map((s) => s.type)).toEqual(['model_call', 'tool_call', 'sql', 'model_call']);
    expect(result.trace[0]).toMatchObject({ type: 'model_call', callIndex: 0, key: requestKey(first), usage: { prompt_tokens: 100, completion_tokens: 10 } });
  });

  it('returns SQL errors to the model and keeps them in the trace; the answer uses the last successful result', async () => {
    const { result, model } = await runWith(
      inOrder(
        tools(call('a', 'run_sql', { sql: 'SELECT COUNT(*) FROM Invoices' })),
        tools(call('b', 'run_sql', { sql: 'SELECT COUNT(*) AS n FROM Invoice' })),
        tools(call('c', 'run_sql', { sql: 'SELECT nope FROM Invoice' })),
        text('There are 412 invoices.'),
      ),
    );
    expect(result.end).toMatchObject({ status: 'answered', sql: 'SELECT COUNT(*) AS n FROM Invoice', result: { rows: [[412]] } });
    const toolMessage = model.requests[1]?.messages[3];
    expect(toolMessage).toEqual({ role: 'tool', tool_call_id: 'a', content: '{"error":"SQL error: no such table: Invoices"}' });
    const steps = result.trace.filter((s) => s.type === 'sql');
    expect(steps.map((s) => ('error' in s ? s.error : 'ok'))).toEqual(['SQL error: no such table: Invoices', 'ok', 'SQL error: no such column: nope']);
  });

  it('returns malformed JSON arguments, an unknown tool and an unknown dimension to the model as tool errors', async () => {
    const { result, model } = await runWith(
      inOrder(
        tools(call('a', 'query_metric', '{"metrics": ["revenue"], "group_by": ["genre"]'), call('b', 'get_schema', {})),
        tools(call('c', 'query_metric', { metrics: ['invoices'], group_by: ['genre'] })),
        tools(call('d', 'query_metric', { metrics: ['tracks_sold'], group_by: ['genre'], order_by: ['-tracks_sold'], limit: 1 })),
        text('Rock sold the most tracks: 835.'),
      ),
    );
    const errors = result.trace.flatMap((s) => (s.type === 'tool_call' && s.error !== undefined ? [s.error] : []));
    expect(errors[0]).toBe("arguments of query_metric are not valid JSON (it ends before the JSON is complete, after 46 characters); send a JSON object");
    expect(errors[1]).toBe("unknown tool 'get_schema'; available tools: run_sql, list_metrics, query_metric, decline, ask_back");
    expect(errors[2]).toBe(
      "dimension 'genre' is not available for metric 'invoices'; its dimensions: billing_country, billing_city, invoice_date (time), support_agent, metric_time (time, = invoice_date)",
    );
    const second = model.requests[1]?.messages ?? [];
    expect(second.slice(3).map((m) => m.role)).toEqual(['tool', 'tool']);
    expect(result.end).toMatchObject({ status: 'answered', result: { rows: [['Rock', 835]] } });
  });

  it('ends on decline and on ask_back without running later calls', async () => {
    const declined = await runWith(inOrder(tools(call('a', 'decline', { reason: 'The warehouse has no cost data, so no margin.' }), call('b', 'run_sql', { sql: 'SELECT 1' }))));
    expect(declined.result.end).toEqual({ status: 'declined', reason: 'The warehouse has no cost data, so no margin.' });
    expect(declined.result.trace.filter((s) => s.type === 'tool_call')).toHaveLength(1);
    const asked = await runWith(inOrder(tools(call('a', 'ask_back', { question: 'Q2 of which year?' }))));
    expect(asked.result.end).toEqual({ status: 'asked_back', question: 'Q2 of which year?' });
    const noReason = await runWith(inOrder(tools(call('a', 'decline', {})), text('Sorry.')));
    expect(noReason.result.trace[1]).toMatchObject({ type: 'tool_call', error: "decline needs a JSON object with a non-empty string 'reason'" });
    expect(noReason.result.end).toMatchObject({ status: 'error', error: 'answered without a query result: Sorry.' });
  });

  it('ends with step_limit when the call limit is used up, and an empty reply is an error', async () => {
    const looping: Script = (_r, site) => tools(call(`c${site.callIndex}`, 'list_metrics', {}));
    const { result, model } = await runWith(looping, { config: { maxCalls: 3 } });
    expect(result.end).toEqual({ status: 'step_limit', calls: 3 });
    expect(model.requests).toHaveLength(3);
    const empty = await runWith(inOrder({ content: '  ' }));
    expect(empty.result.end).toEqual({ status: 'error', error: 'empty reply: no content and no tool calls' });
  });

  it('never catches MissingRecording from the model client', async () => {
    const missing: Script = (_r, site) => {
      if (site.callIndex === 1) throw Object.assign(new Error('no reply recorded'), { name: 'MissingRecording' });
      return tools(call('a', 'list_metrics', {}));
    };
    await expect(runWith(missing)).rejects.toMatchObject({ name: 'MissingRecording' });
  });

  it('changes the next request key when a tool output changes (a renamed column)', async () => {
    const script = inOrder(tools(call('a', 'query_metric', METRIC_2023)), text('Revenue in 2023 was $469.58.'));
    const before = await runWith(script);
    const after = await runWith(script, { on: renamed });
    expect(requestKey(after.model.requests[0])).toBe(requestKey(before.model.requests[0]));
    expect(requestKey(after.model.requests[1])).not.toBe(requestKey(before.model.requests[1]));
    const observation = after.model.requests[1]?.messages[3] as { content: string };
    expect(observation.content).toBe(
      '{"error":"the metric query failed in the warehouse (SQL error: no such column: InvoiceLine.UnitPrice); the metric definition may be out of date"}',
    );
    // A metric that does not read the renamed column gives the same observation, so the same keys.
    const invoices = inOrder(tools(call('a', 'query_metric', { metrics: ['invoices'] })), text('412 invoices.'));
    const k1 = (await runWith(invoices)).model.requests.map((r) => requestKey(r));
    const k2 = (await runWith(invoices, { on: renamed })).model.requests.map((r) => requestKey(r));
    expect(k2).toEqual(k1);
  });

  it('rejects bad options', () => {
    expect(() => new ToolsAgent({ ...CONFIG, options: { tool_rows: 0 } }, layer)).toThrow(/tool_rows must be a whole number ≥ 1/);
  });

  it('shows at most tool_rows rows to the model', async () => {
    const { model } = await runWith(inOrder(tools(call('a', 'run_sql', { sql: 'SELECT Name FROM Genre ORDER BY GenreId' })), text('25 genres.')), {
      config: { options: { tool_rows: 2 } },
    });
    expect((model.requests[1]?.messages[3] as { content: string }).content).toBe(
      '{"columns":["Name"],"rows":[["Rock"],["Jazz"]],"row_count":25,"truncated":false,"rows_shown":2}',
    );
  });
});

describe('jsonErrorPlace', () => {
  it('words a JSON syntax error the same on every Node version', async () => {
    const { jsonErrorPlace } = await import('../../src/agent/tools/toolbox.js');
    const place = (text: string): string => {
      try {
        JSON.parse(text);
      } catch (error) {
        return jsonErrorPlace(error, text);
      }
      throw new Error('parsed');
    };
    // Node 20: "... in JSON at position 5"; Node 24 adds " (line 1 column 6)". Both give the same words:
    expect(place('{"a" 1}')).toBe("it breaks at character 6 of 7");
    expect(place('{"a": [1]')).toBe('it ends before the JSON is complete, after 9 characters');
    expect(place('nope')).toBe('it does not start as JSON');
  });
});
