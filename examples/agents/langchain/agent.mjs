/**
 * A text-to-SQL agent on LangChain.js: `createAgent` (LangChain 1.x, a LangGraph tool loop)
 * with `ChatOpenAI` on the OpenAI Responses API and two tools over the warehouse, list_tables
 * and run_query (SQLite through sql.js, which reads the database file into memory: the agent
 * can never write the warehouse). The kind of agent a team builds from LangChain's SQL tutorials.
 *
 * replaygate runs it unchanged (`node langchain/agent.mjs`): ChatOpenAI reads OPENAI_BASE_URL
 * and OPENAI_API_KEY, which replaygate points at its recording endpoint, and the database is
 * REPLAYGATE_DB (a read-only SQLite URI).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent, tool } from 'langchain';
import initSqlJs from 'sql.js';
import * as z from 'zod';

const SYSTEM_PROMPT =
  "You answer questions about a music store's SQLite database. Look at the tables with list_tables, " +
  'try your query with run_query, then reply with the final SELECT statement in a ```sql block. ' +
  'If the data cannot answer the question, reply DECLINE: and the reason.';

async function openDatabase(url) {
  const SQL = await initSqlJs();
  const file = fileURLToPath(url.replace(/\?.*$/, ''));
  return new SQL.Database(readFileSync(file));
}

async function main() {
  const question = JSON.parse(readFileSync(0, 'utf8'));
  const db = await openDatabase(process.env.REPLAYGATE_DB);

  const listTables = tool(
    () => {
      const tables = db.exec("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")[0]?.values ?? [];
      return tables.map(([name, sql]) => `${name}: ${String(sql).replace(/\s+/g, ' ')}`).join('\n');
    },
    { name: 'list_tables', description: 'List the tables of the database with their CREATE statements.', schema: z.object({}) },
  );
  const runQuery = tool(
    ({ sql }) => {
      try {
        const [result] = db.exec(sql);
        return JSON.stringify({ columns: result?.columns ?? [], rows: (result?.values ?? []).slice(0, 5) });
      } catch (error) {
        return `error: ${error.message}`;
      }
    },
    { name: 'run_query', description: 'Run one read-only SQLite query; returns the first 5 rows.', schema: z.object({ sql: z.string() }) },
  );

  const model = new ChatOpenAI({
    model: process.env.AGENT_MODEL ?? 'gpt-4o-mini',
    temperature: 0,
    useResponsesApi: true,
    configuration: { baseURL: process.env.OPENAI_BASE_URL },
  });
  const agent = createAgent({ model, tools: [listTables, runQuery], systemPrompt: SYSTEM_PROMPT });
  const result = await agent.invoke({ messages: [{ role: 'user', content: question.question }] }, { recursionLimit: 12 });
  const last = result.messages.at(-1);
  const text = (typeof last.text === 'string' ? last.text : String(last.content)).trim();
  console.error(`${result.messages.length} messages`);
  if (text.startsWith('DECLINE:')) {
    console.log(JSON.stringify({ decline: text.slice('DECLINE:'.length).trim() }));
    return;
  }
  const sql = /```(?:sql)?\s*\n([\s\S]*?)```/.exec(text)?.[1] ?? text;
  console.log(JSON.stringify({ sql: sql.trim(), answer: text }));
}

await main();
