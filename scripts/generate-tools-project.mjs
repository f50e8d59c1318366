#!/usr/bin/env node
// Generates a large `tools`-agent project for measuring recordings (docs/recordings.md, README
// "Recordings"): a synthetic retail warehouse (24 tables, realistic names, a few thousand rows),
// N golden questions, a tools agent whose system prompt carries long instructions and the whole
// schema, and a recording of N questions × K seeds made by `replaygate record` itself
// (build/record/record.js) against a scripted model: every request is exactly what the tools
// agent sends, every tool message is what its tools really returned from the warehouse. Runs take
// 2 to 4 model calls (a schema look-up first on some seeds, a second query on others).
//
// The data are generated, not committed: this script is.
//
//   npm run build && node scripts/generate-tools-project.mjs [--out out/tools-1000x5] [--questions 1000] [--seeds 5]
//
// Also writes the same calls in format 1 (one calls.jsonl, as replaygate 0.1 wrote them) to
// recordings/tools-format1, for comparison. Deterministic: the same arguments give the same bytes.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';

/** Loads a module of the built CLI (`build/`); tests pass a loader of the TypeScript sources instead. */
const build = (m) => import(new URL(`../build/${m}`, import.meta.url).href);

/** Deterministic PRNG (mulberry32). */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const REGIONS = ['North', 'South', 'East', 'West', 'Central', 'Coastal', 'Mountain', 'Lakes'];
const CATEGORIES = ['Garden', 'Kitchen', 'Toys', 'Books', 'Outdoor', 'Office', 'Audio', 'Bath', 'Pets', 'Lighting', 'Tools', 'Sports'];
const CARRIERS = ['Swift', 'Parcelo', 'Northline', 'BlueBox', 'Kite'];
const CHANNELS = ['web', 'store', 'phone', 'partner'];
const YEARS = [2021, 2022, 2023, 2024];

/** Table → columns (name, type, comment). Twenty-four tables, as a mid-size retail warehouse has. */
const TABLES = {
  regions: [['region_id', 'INTEGER PRIMARY KEY'], ['name', 'TEXT'], ['manager', 'TEXT'], ['timezone', 'TEXT']],
  stores: [['store_id', 'INTEGER PRIMARY KEY'], ['region_id', 'INTEGER REFERENCES regions(region_id)'], ['name', 'TEXT'], ['city', 'TEXT'], ['opened_on', 'TEXT'], ['floor_area_m2', 'REAL'], ['format', 'TEXT']],
  categories: [['category_id', 'INTEGER PRIMARY KEY'], ['name', 'TEXT'], ['parent_category_id', 'INTEGER'], ['vat_rate', 'REAL']],
  suppliers: [['supplier_id', 'INTEGER PRIMARY KEY'], ['name', 'TEXT'], ['country', 'TEXT'], ['lead_time_days', 'INTEGER'], ['rating', 'REAL']],
  products: [['product_id', 'INTEGER PRIMARY KEY'], ['category_id', 'INTEGER REFERENCES categories(category_id)'], ['supplier_id', 'INTEGER REFERENCES suppliers(supplier_id)'], ['sku', 'TEXT'], ['name', 'TEXT'], ['list_price', 'REAL'], ['unit_cost', 'REAL'], ['launched_on', 'TEXT'], ['discontinued', 'INTEGER']],
  customers: [['customer_id', 'INTEGER PRIMARY KEY'], ['region_id', 'INTEGER REFERENCES regions(region_id)'], ['first_name', 'TEXT'], ['last_name', 'TEXT'], ['email', 'TEXT'], ['signed_up_on', 'TEXT'], ['loyalty_tier', 'TEXT'], ['birth_year', 'INTEGER']],
  orders: [['order_id', 'INTEGER PRIMARY KEY'], ['customer_id', 'INTEGER REFERENCES customers(customer_id)'], ['store_id', 'INTEGER REFERENCES stores(store_id)'], ['ordered_at', 'TEXT'], ['channel', 'TEXT'], ['status', 'TEXT'], ['total_amount', 'REAL'], ['discount_amount', 'REAL'], ['currency_code', 'TEXT']],
  order_items: [['order_item_id', 'INTEGER PRIMARY KEY'], ['order_id', 'INTEGER REFERENCES orders(order_id)'], ['product_id', 'INTEGER REFERENCES products(product_id)'], ['quantity', 'INTEGER'], ['unit_price', 'REAL'], ['line_discount', 'REAL']],
  payments: [['payment_id', 'INTEGER PRIMARY KEY'], ['order_id', 'INTEGER REFERENCES orders(order_id)'], ['paid_at', 'TEXT'], ['method', 'TEXT'], ['amount', 'REAL'], ['provider_fee', 'REAL']],
  carriers: [['carrier_id', 'INTEGER PRIMARY KEY'], ['name', 'TEXT'], ['service_level', 'TEXT'], ['cost_per_kg', 'REAL']],
  shipments: [['shipment_id', 'INTEGER PRIMARY KEY'], ['order_id', 'INTEGER REFERENCES orders(order_id)'], ['carrier_id', 'INTEGER REFERENCES carriers(carrier_id)'], ['shipped_at', 'TEXT'], ['delivered_at', 'TEXT'], ['weight_kg', 'REAL'], ['shipping_cost', 'REAL']],
  returns: [['return_id', 'INTEGER PRIMARY KEY'], ['order_item_id', 'INTEGER REFERENCES order_items(order_item_id)'], ['returned_at', 'TEXT'], ['reason', 'TEXT'], ['refund_amount', 'REAL'], ['restocked', 'INTEGER']],
  warehouses: [['warehouse_id', 'INTEGER PRIMARY KEY'], ['region_id', 'INTEGER REFERENCES regions(region_id)'], ['name', 'TEXT'], ['capacity_pallets', 'INTEGER']],
  inventory: [['warehouse_id', 'INTEGER REFERENCES warehouses(warehouse_id)'], ['product_id', 'INTEGER REFERENCES products(product_id)'], ['on_hand', 'INTEGER'], ['reorder_point', 'INTEGER'], ['counted_on', 'TEXT']],
  employees: [['employee_id', 'INTEGER PRIMARY KEY'], ['store_id', 'INTEGER REFERENCES stores(store_id)'], ['first_name', 'TEXT'], ['last_name', 'TEXT'], ['role', 'TEXT'], ['hired_on', 'TEXT'], ['hourly_rate', 'REAL']],
  shifts: [['shift_id', 'INTEGER PRIMARY KEY'], ['employee_id', 'INTEGER REFERENCES employees(employee_id)'], ['starts_at', 'TEXT'], ['ends_at', 'TEXT'], ['break_minutes', 'INTEGER']],
  promotions: [['promotion_id', 'INTEGER PRIMARY KEY'], ['name', 'TEXT'], ['starts_on', 'TEXT'], ['ends_on', 'TEXT'], ['discount_percent', 'REAL'], ['category_id', 'INTEGER REFERENCES categories(category_id)']],
  campaigns: [['campaign_id', 'INTEGER PRIMARY KEY'], ['name', 'TEXT'], ['channel', 'TEXT'], ['starts_on', 'TEXT'], ['budget', 'REAL']],
  ad_spend: [['campaign_id', 'INTEGER REFERENCES campaigns(campaign_id)'], ['spent_on', 'TEXT'], ['impressions', 'INTEGER'], ['clicks', 'INTEGER'], ['cost', 'REAL']],
  web_sessions: [['session_id', 'INTEGER PRIMARY KEY'], ['customer_id', 'INTEGER REFERENCES customers(customer_id)'], ['started_at', 'TEXT'], ['device', 'TEXT'], ['landing_page', 'TEXT'], ['converted', 'INTEGER']],
  subscriptions: [['subscription_id', 'INTEGER PRIMARY KEY'], ['customer_id', 'INTEGER REFERENCES customers(customer_id)'], ['plan', 'TEXT'], ['started_on', 'TEXT'], ['cancelled_on', 'TEXT'], ['monthly_fee', 'REAL']],
  invoices: [['invoice_id', 'INTEGER PRIMARY KEY'], ['order_id', 'INTEGER REFERENCES orders(order_id)'], ['issued_on', 'TEXT'], ['due_on', 'TEXT'], ['amount', 'REAL'], ['paid', 'INTEGER']],
  currencies: [['currency_code', 'TEXT PRIMARY KEY'], ['name', 'TEXT'], ['rate_to_usd', 'REAL']],
  reviews: [['review_id', 'INTEGER PRIMARY KEY'], ['product_id', 'INTEGER REFERENCES products(product_id)'], ['customer_id', 'INTEGER REFERENCES customers(customer_id)'], ['stars', 'INTEGER'], ['written_on', 'TEXT'], ['helpful_votes', 'INTEGER']],
};

function buildWarehouse(file) {
  rmSync(file, { force: true });
  const db = new Database(file);
  const r = rng(7);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const date = () => `${pick(YEARS)}-${String(1 + Math.floor(r() * 12)).padStart(2, '0')}-${String(1 + Math.floor(r() * 28)).padStart(2, '0')}`;
  for (const [table, cols] of Object.entries(TABLES)) db.exec(`CREATE TABLE ${table} (${cols.map(([c, t]) => `${c} ${t}`).join(', ')})`);
  const insert = (table, rows) => {
    const cols = TABLES[table].map(([c]) => c);
    const st = db.prepare(`INSERT INTO ${table} (${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`);
    db.transaction(() => rows.forEach((row) => st.run(row)))();
  };
  insert('regions', REGIONS.map((name, i) => [i + 1, name, `Manager ${i + 1}`, 'UTC']));
  insert('stores', Array.from({ length: 40 }, (_, i) => [i + 1, 1 + (i % REGIONS.length), `Store ${i + 1}`, `City ${i % 17}`, date(), 400 + Math.floor(r() * 2000), pick(['mall', 'high street', 'outlet'])]));
  insert('categories', CATEGORIES.map((name, i) => [i + 1, name, null, pick([0.07, 0.19])]));
  insert('suppliers', Array.from({ length: 30 }, (_, i) => [i + 1, `Supplier ${i + 1}`, pick(['DE', 'FR', 'US', 'CN', 'VN']), 3 + Math.floor(r() * 40), Math.round(r() * 50) / 10]));
  insert('products', Array.from({ length: 300 }, (_, i) => [i + 1, 1 + (i % CATEGORIES.length), 1 + (i % 30), `SKU-${10000 + i}`, `Product ${i + 1}`, Math.round(5 + r() * 300), Math.round(2 + r() * 150), date(), r() < 0.1 ? 1 : 0]));
  insert('customers', Array.from({ length: 800 }, (_, i) => [i + 1, 1 + (i % REGIONS.length), `First${i}`, `Last${i}`, `c${i}@example.com`, date(), pick(['bronze', 'silver', 'gold']), 1950 + Math.floor(r() * 55)]));
  insert('orders', Array.from({ length: 4000 }, (_, i) => [i + 1, 1 + Math.floor(r() * 800), 1 + Math.floor(r() * 40), `${date()}T10:00:00`, pick(CHANNELS), pick(['paid', 'paid', 'paid', 'cancelled', 'refunded']), Math.round(r() * 50000) / 100, Math.round(r() * 2000) / 100, 'USD']));
  insert('order_items', Array.from({ length: 9000 }, (_, i) => [i + 1, 1 + Math.floor(r() * 4000), 1 + Math.floor(r() * 300), 1 + Math.floor(r() * 4), Math.round(r() * 30000) / 100, 0]));
  insert('carriers', CARRIERS.map((name, i) => [i + 1, name, pick(['standard', 'express']), Math.round(r() * 500) / 100]));
  insert('shipments', Array.from({ length: 3500 }, (_, i) => [i + 1, i + 1, 1 + Math.floor(r() * CARRIERS.length), date(), date(), Math.round(r() * 300) / 10, Math.round(r() * 3000) / 100]));
  insert('returns', Array.from({ length: 600 }, (_, i) => [i + 1, 1 + Math.floor(r() * 9000), date(), pick(['damaged', 'wrong size', 'changed mind', 'late']), Math.round(r() * 20000) / 100, r() < 0.5 ? 1 : 0]));
  insert('currencies', [['USD', 'US dollar', 1], ['EUR', 'Euro', 1.08], ['GBP', 'Pound sterling', 1.27]]);
  db.close();
}

const SYSTEM = `You are the analytics assistant of Northwind Retail. You answer questions from store managers,
finance and marketing about sales, returns, shipping and customers, with numbers taken from the
company's warehouse (a SQLite database; its schema is below).

How to work:
1. Read the question carefully and decide which tables hold the answer. Prefer the fact tables
   (orders, order_items, payments, shipments, returns) joined to the dimension tables
   (customers, products, categories, stores, regions, carriers) over any derived numbers.
2. Write one read-only SQLite query with run_sql. Use explicit JOINs, qualify columns with their
   table, filter dates with strftime('%Y', column) for years and strftime('%Y-%m', column) for
   months, and round money to two decimals only in the final answer, not in the query.
3. Revenue means the sum of orders.total_amount of orders whose status is 'paid', unless the
   question says otherwise. A return counts in the year it was returned, not ordered.
4. If the data cannot answer the question (it is not recorded in the warehouse), call decline
   with the reason and what could be asked instead. Never guess a number.
5. If the question is ambiguous in a way that changes the number (a period without a year, a
   region that does not exist), call ask_back with one short clarifying question.
6. When the query result holds the answer, reply with one or two sentences that cite the number
   exactly as the result gives it. Do not call a tool in the same reply.

You have at most {{max_calls}} model calls for a question; a schema look-up costs one.

Warehouse schema (table(column TYPE, ...), PK marks primary keys, then foreign keys):
{{schema}}
--- user ---
{{question}}
`;

/** The golden questions: templates over the warehouse's values, each with its golden SQL. */
function questions(n) {
  const r = rng(11);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const month = () => `${pick(YEARS)}-${String(1 + Math.floor(r() * 12)).padStart(2, '0')}`;
  const templates = [
    () => {
      const region = pick(REGIONS);
      const m = month();
      return [`How many orders did customers in the ${region} region place in ${m}?`, `SELECT count(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id JOIN regions g ON g.region_id = c.region_id WHERE g.name = '${region}' AND strftime('%Y-%m', o.ordered_at) = '${m}'`];
    },
    () => {
      const cat = pick(CATEGORIES);
      const channel = pick(CHANNELS);
      const year = pick(YEARS);
      return [`What was the revenue from ${cat} products sold through the ${channel} channel in ${year}?`, `SELECT sum(i.quantity * i.unit_price) FROM order_items i JOIN orders o ON o.order_id = i.order_id JOIN products p ON p.product_id = i.product_id JOIN categories c ON c.category_id = p.category_id WHERE c.name = '${cat}' AND o.channel = '${channel}' AND o.status = 'paid' AND strftime('%Y', o.ordered_at) = '${year}'`];
    },
    () => {
      const k = 3 + Math.floor(r() * 8);
      const region = pick(REGIONS);
      const year = pick(YEARS);
      return [`Which ${k} stores in the ${region} region had the highest paid order totals in ${year}, and how much did each take?`, `SELECT s.name, sum(o.total_amount) AS total FROM orders o JOIN stores s ON s.store_id = o.store_id JOIN regions g ON g.region_id = s.region_id WHERE g.name = '${region}' AND o.status = 'paid' AND strftime('%Y', o.ordered_at) = '${year}' GROUP BY s.name ORDER BY total DESC LIMIT ${k}`];
    },
    () => {
      const carrier = pick(CARRIERS);
      const m = month();
      return [`What was the average shipping cost per shipment for carrier ${carrier} for shipments sent in ${m}?`, `SELECT avg(sh.shipping_cost) FROM shipments sh JOIN carriers c ON c.carrier_id = sh.carrier_id WHERE c.name = '${carrier}' AND strftime('%Y-%m', sh.shipped_at) = '${m}'`];
    },
    () => {
      const reason = pick(['damaged', 'wrong size', 'changed mind', 'late']);
      const cat = pick(CATEGORIES);
      const year = pick(YEARS);
      return [`How many ${cat} items were returned as "${reason}" in ${year}, by month?`, `SELECT strftime('%Y-%m', r.returned_at) AS month, count(*) FROM returns r JOIN order_items i ON i.order_item_id = r.order_item_id JOIN products p ON p.product_id = i.product_id JOIN categories c ON c.category_id = p.category_id WHERE r.reason = '${reason}' AND c.name = '${cat}' AND strftime('%Y', r.returned_at) = '${year}' GROUP BY month ORDER BY month`];
    },
    () => {
      const channel = pick(CHANNELS);
      const year = pick(YEARS);
      const tier = pick(['bronze', 'silver', 'gold']);
      return [`List the order count and paid revenue per region for ${tier} customers on the ${channel} channel in ${year}.`, `SELECT g.name, count(*), sum(CASE WHEN o.status = 'paid' THEN o.total_amount ELSE 0 END) FROM orders o JOIN customers c ON c.customer_id = o.customer_id JOIN regions g ON g.region_id = c.region_id WHERE o.channel = '${channel}' AND c.loyalty_tier = '${tier}' AND strftime('%Y', o.ordered_at) = '${year}' GROUP BY g.name ORDER BY g.name`];
    },
  ];
  return Array.from({ length: n }, (_, i) => {
    const [question, sql] = templates[i % templates.length]();
    return { id: `q-${String(i + 1).padStart(4, '0')}`, question, golden_sql: sql, split: i % 10 === 9 ? 'test' : 'dev' };
  });
}

/**
 * The scripted model, as a live endpoint for `recordAgent`. Seed 0–1: the golden query, then an
 * answer. Seed 2: a schema look-up first. Seed 3: a wrong year first, then a second query. Seed 4:
 * the golden query, a check query, then the answer. `version` changes the answers' wording (a
 * re-record with another model version).
 */
export function scriptedModel(golden, version, requestKey) {
  const byQuestion = new Map(golden.map((q) => [q.question, q]));
  let calls = 0;
  return {
    endpoint: 'scripted://analyst',
    stats: { attempts: 0, errors: 0 },
    abort() {},
    async complete(request, site) {
      this.stats.attempts += 1;
      const user = request.messages.find((m) => m.role === 'user').content;
      const q = byQuestion.get(user);
      if (!q) throw new Error(`no script for ${user}`);
      const plan = {
        0: ['golden'],
        1: ['golden'],
        2: ['schema', 'golden'],
        3: ['wrong-year', 'golden'],
        4: ['golden', 'check'],
      }[site.seed % 5];
      const step = plan[site.callIndex];
      let reply;
      if (step === undefined) {
        const last = [...request.messages].reverse().find((m) => m.role === 'tool');
        const result = JSON.parse(last.content);
        const cell = result.rows?.[0]?.[result.rows[0].length - 1];
        reply = { content: version === 1 ? `The answer is ${cell} (from ${result.row_count} row${result.row_count === 1 ? '' : 's'}).` : `According to the warehouse: ${cell}.` };
      } else {
        const sql =
          step === 'golden'
            ? q.golden_sql
            : step === 'schema'
              ? `SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name IN ('orders', 'order_items', 'customers')`
              : step === 'wrong-year'
                ? q.golden_sql.replace(/20(2\d)/, (m, y) => `20${Number(y) - 1}`)
                : `SELECT count(*) AS rows_checked FROM (${q.golden_sql})`;
        reply = { content: null, tool_calls: [{ id: `call_${site.seed}_${site.callIndex}`, type: 'function', function: { name: 'run_sql', arguments: JSON.stringify({ sql }) } }] };
      }
      calls += 1;
      const prompt = JSON.stringify(request.messages).length + JSON.stringify(request.tools ?? []).length;
      return { key: requestKey(request), reply, usage: { prompt_tokens: Math.ceil(prompt / 4), completion_tokens: Math.ceil(JSON.stringify(reply).length / 4) } };
    },
    get calls() {
      return calls;
    },
  };
}

/** A logger that keeps quiet (the recording session's warnings are not the point here). */
const quiet = { debug() {}, info() {}, warning() {}, error() {}, group: (_n, f) => f() };

/**
 * Writes the project to `out` and records it. Returns the config file and the golden questions.
 */
export async function generateToolsProject(out, { questions: n = 1000, seeds = 5, log = () => {}, load = build } = {}) {
  const root = resolve(out);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, 'warehouse'), { recursive: true });
  mkdirSync(join(root, 'golden'), { recursive: true });
  mkdirSync(join(root, 'prompts'), { recursive: true });
  buildWarehouse(join(root, 'warehouse', 'shop.sqlite'));
  const golden = questions(n);
  writeFileSync(join(root, 'golden', 'questions.yml'), `questions:\n${golden.map((q) => `  - id: ${q.id}\n    question: ${JSON.stringify(q.question)}\n    split: ${q.split}\n    golden_sql: ${JSON.stringify(q.golden_sql)}\n`).join('')}`);
  writeFileSync(join(root, 'prompts', 'tools.md'), SYSTEM);
  const config = join(root, 'replaygate.yml');
  writeFileSync(
    config,
    `# Generated by scripts/generate-tools-project.mjs (${n} questions × ${seeds} seeds); do not commit.\nwarehouse:\n  path: warehouse/shop.sqlite\n  isolation: inline\ngolden: golden\nmatch: relaxed\nseeds: ${seeds}\nagents:\n  tools:\n    kind: tools\n    model: scripted/analyst-v1\n    prompt: prompts/tools.md\n    recording: recordings/tools\n    temperature: 0.7\n    max_tokens: 1024\n    max_calls: 5\n`,
  );
  await recordProject(config, golden, { seeds: Array.from({ length: seeds }, (_, i) => i), load });
  log(`recorded ${n} questions × ${seeds} seeds`);
  await writeFormat1Copy(join(root, 'recordings', 'tools'), join(root, 'recordings', 'tools-format1'), load);
  return { config, golden };
}

/** Records (or re-records, with `force` and `questions`) the tools agent through `replaygate record`'s own code. */
export async function recordProject(config, golden, { seeds, questions, force = false, version = 1, load = build } = {}) {
  const { openProject } = await load('pipeline/project.js');
  const { recordAgent } = await load('record/record.js');
  const { requestKey } = await load('recording/canonical.js');
  const project = await openProject(config);
  try {
    return await recordAgent(project, 'tools', {
      live: scriptedModel(golden, version, requestKey),
      ...(seeds ? { seeds } : {}),
      ...(questions ? { questions: new Set(questions) } : {}),
      force,
      allowRerecordTest: true,
      logger: quiet,
      now: () => new Date('2026-01-01T00:00:00Z'),
    });
  } finally {
    await project.close();
  }
}

/** The same calls in format 1: one `calls.jsonl`, each line the whole call, as replaygate 0.1 wrote it. */
export async function writeFormat1Copy(from, to, load = build) {
  const { Recording } = await load('recording/recording.js');
  const { readManifestSync, writeManifestSync } = await load('recording/manifest.js');
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  const recording = await Recording.open(from);
  const lines = [];
  try {
    for (const ref of recording.calls()) {
      const c = recording.readCall(ref);
      lines.push(JSON.stringify({ key: c.key, request: c.request, reply: c.reply, usage: c.usage, question_id: c.question_id, seed: c.seed, call_index: c.call_index }));
    }
  } finally {
    recording.close();
  }
  writeFileSync(join(to, 'calls.jsonl'), `${lines.join('\n')}\n`);
  writeManifestSync(to, { ...readManifestSync(from), name: 'tools-format1' }, 1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: 'out/tools-1000x5' }, questions: { type: 'string', default: '1000' }, seeds: { type: 'string', default: '5' } } });
  const started = process.cpuUsage();
  await generateToolsProject(values.out, { questions: Number(values.questions), seeds: Number(values.seeds), log: (m) => console.log(m) });
  const cpu = process.cpuUsage(started);
  console.log(`wrote ${values.out} (${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU)`);
}
