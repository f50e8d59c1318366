/**
 * A text-to-SQL agent in TypeScript on the official `openai` client, as a team would write it:
 * it retrieves the table documentation relevant to the question with embeddings, then runs a
 * streaming chat with tool calls (the model reads whole table docs through `get_table_doc`),
 * and ends with one SQL statement. It needs no database connection: the table docs below are
 * its knowledge of the warehouse (replaygate executes the SQL it writes).
 *
 * replaygate runs it unchanged (`node --import tsx openai-ts/agent.ts`): `new OpenAI()` reads
 * OPENAI_BASE_URL and OPENAI_API_KEY, which replaygate points at its recording endpoint.
 */
import OpenAI from 'openai';

const MODEL = process.env['AGENT_MODEL'] ?? 'gpt-4o-mini';
const EMBEDDING_MODEL = 'text-embedding-3-small';
const TOP_DOCS = 3;
const MAX_STEPS = 4;

/** Table documentation of the music store's warehouse, as a team keeps it next to its agent. */
const TABLE_DOCS: Record<string, string> = {
  Artist: 'Artist(ArtistId, Name): recording artists.',
  Album: 'Album(AlbumId, Title, ArtistId → Artist): albums of an artist.',
  Track: 'Track(TrackId, Name, AlbumId → Album, MediaTypeId, GenreId → Genre, Composer, Milliseconds, Bytes, UnitPrice): every track in the catalogue.',
  Genre: 'Genre(GenreId, Name): music genres.',
  Customer: 'Customer(CustomerId, FirstName, LastName, Company, City, State, Country, Email, SupportRepId → Employee): store customers and where they live.',
  Invoice: 'Invoice(InvoiceId, CustomerId → Customer, InvoiceDate, BillingCity, BillingCountry, Total): one invoice per purchase; InvoiceDate is an ISO date.',
  InvoiceLine: 'InvoiceLine(InvoiceLineId, InvoiceId → Invoice, TrackId → Track, UnitPrice, Quantity): the tracks bought on an invoice.',
  Employee: 'Employee(EmployeeId, LastName, FirstName, Title, ReportsTo → Employee, HireDate, Country): staff and support reps.',
};

const SYSTEM_PROMPT =
  'You write SQLite queries for a music store. Call get_table_doc for every table you use. ' +
  'Reply with one SELECT statement in a ```sql block, or DECLINE: and the reason when the data cannot answer.';

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_table_doc',
      description: 'The documentation of one table: columns and keys.',
      parameters: { type: 'object', properties: { table: { type: 'string' } }, required: ['table'] },
    },
  },
];

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const cosine = (a: readonly number[], b: readonly number[]): number => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i]! * b[i]!;
    na += a[i]! ** 2;
    nb += b[i]! ** 2;
  }
  return dot / (Math.sqrt(na * nb) || 1);
};

/** The table docs closest to the question (one embeddings call for the question and every doc). */
async function retrieve(client: OpenAI, question: string): Promise<string[]> {
  const names = Object.keys(TABLE_DOCS);
  const { data } = await client.embeddings.create({ model: EMBEDDING_MODEL, input: [question, ...names.map((n) => TABLE_DOCS[n]!)] });
  const [q, ...docs] = data.map((d) => d.embedding);
  return names
    .map((name, i) => ({ name, score: cosine(q!, docs[i]!) }))
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
    .slice(0, TOP_DOCS)
    .map((d) => TABLE_DOCS[d.name]!);
}

/** One streamed chat completion, with the tool-call deltas assembled into whole calls. */
async function streamedReply(client: OpenAI, messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[], seed: number) {
  const stream = await client.chat.completions.create({
    model: MODEL,
    messages,
    tools,
    temperature: 0.2,
    seed,
    stream: true,
    stream_options: { include_usage: true },
  });
  let content = '';
  const calls: { id: string; name: string; arguments: string }[] = [];
  let usage = 0;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage.total_tokens;
    const delta = chunk.choices[0]?.delta;
    if (delta?.content) content += delta.content;
    for (const call of delta?.tool_calls ?? []) {
      const slot = (calls[call.index] ??= { id: '', name: '', arguments: '' });
      if (call.id) slot.id = call.id;
      if (call.function?.name) slot.name += call.function.name;
      if (call.function?.arguments) slot.arguments += call.function.arguments;
    }
  }
  process.stderr.write(`streamed ${content.length} characters, ${calls.length} tool call(s), ${usage} tokens\n`);
  return { content, calls };
}

async function main(): Promise<void> {
  const question = JSON.parse(await readStdin()) as { id: string; question: string };
  const seed = Number(process.env['REPLAYGATE_SEED'] ?? '0');
  const client = new OpenAI();
  const docs = await retrieve(client, question.question);
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: `Tables that may help:\n${docs.join('\n')}\n\nQuestion: ${question.question}` },
  ];
  for (let step = 0; step < MAX_STEPS; step += 1) {
    const { content, calls } = await streamedReply(client, messages, seed);
    if (calls.length === 0) {
      const text = content.trim();
      if (text.startsWith('DECLINE:')) {
        console.log(JSON.stringify({ decline: text.slice('DECLINE:'.length).trim() }));
        return;
      }
      const sql = /```(?:sql)?\s*\n([\s\S]*?)```/.exec(text)?.[1] ?? text;
      console.log(JSON.stringify({ sql: sql.trim(), answer: text }));
      return;
    }
    messages.push({ role: 'assistant', content: content || null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
    for (const call of calls) {
      const { table } = JSON.parse(call.arguments || '{}') as { table?: string };
      messages.push({ role: 'tool', tool_call_id: call.id, content: TABLE_DOCS[table ?? ''] ?? `no table ${table}` });
    }
  }
  throw new Error(`no answer after ${MAX_STEPS} model calls`);
}

await main();
