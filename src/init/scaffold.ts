import { besideIgnoreText } from '../recording/layout.js';

/**
 * The files `replaygate init` writes into a new project (pure: no I/O). A project made from
 * them loads, `replaygate check` runs its golden SQL, and `replaygate record` records its
 * agent; the workflow gates every pull request with the Action.
 */

/** What the scaffold is built from (the answers to `init`'s questions, or their defaults). */
export interface ScaffoldAnswers {
  /** Agent name in `replaygate.yml` (also its recording folder's name). */
  readonly agent: string;
  /** Model name sent to the endpoint. */
  readonly model: string;
  /** Warehouse file as written in `replaygate.yml` (relative to the project, `/` separators). */
  readonly warehouse: string;
  /** The one example golden question. */
  readonly example: { readonly question: string; readonly goldenSql: string };
}

/** Agent name, model and example question used when nothing is asked (not a terminal). */
export const SCAFFOLD_DEFAULTS = { agent: 'sql-agent', model: 'gpt-4o-mini' } as const;

/** Paths the scaffold writes, in the order they are listed to the user. */
export const SCAFFOLD_PATHS = ['replaygate.yml', 'golden/questions.yml', 'prompts/sql.md', '.github/workflows/replaygate.yml', '.gitattributes', 'recordings/.gitignore'] as const;

/** Agent names `init` accepts: the config key, the recording folder and the CLI's `-a` value in one. */
export const AGENT_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * The scaffold's files, path → text.
 * @example scaffoldFiles({ agent: 'sql-agent', model: 'gpt-4o-mini', warehouse: 'warehouse/example.sqlite', example })['prompts/sql.md'].includes('{{schema}}') // true
 */
export function scaffoldFiles(answers: ScaffoldAnswers): Record<(typeof SCAFFOLD_PATHS)[number], string> {
  return {
    'replaygate.yml': configYaml(answers),
    'golden/questions.yml': goldenYaml(answers),
    'prompts/sql.md': PROMPT,
    '.github/workflows/replaygate.yml': WORKFLOW,
    '.gitattributes': GITATTRIBUTES,
    // What a writer of recordings/<agent> would make sure of (src/recording/ignore-beside.ts), committed from the first commit.
    'recordings/.gitignore': besideIgnoreText(answers.agent),
  };
}

/** A YAML double-quoted scalar (JSON strings are valid YAML 1.2 double-quoted scalars). */
function quoted(text: string): string {
  return JSON.stringify(text);
}

function configYaml(a: ScaffoldAnswers): string {
  return `# replaygate project, created by \`replaygate init\`.
# replaygate replays your agent from recordings (no model at CI time), runs its SQL on the
# warehouse and compares each answer with the golden question's result.
# Every key: https://github.com/replaygate/replaygate#replaygateyml

warehouse:
  path: ${quoted(a.warehouse)}   # one SQLite database (its name is main); several: databases: {name: file}
  # max_rows: 10000            # rows kept per statement
  # timeout_ms: 10000          # per statement

golden: golden                 # every *.yml below golden/ holds golden questions
# semantic: semantic           # metrics and dimensions for a tools agent (docs/semantic-layer.md)
match: relaxed                 # exact | relaxed | spider: how an answer's rows are compared
seeds: 5                       # runs per question (seeds 0..4): repeats tell a stable break from noise

agents:
  ${a.agent}:
    kind: sql                  # sql: one model call that writes SQL; tools: a tool-calling loop
    model: ${quoted(a.model)}
    prompt: prompts/sql.md
    recording: recordings/${a.agent}   # written by replaygate record; commit it
    temperature: 0             # record at the settings you serve
    top_p: 1
    max_tokens: 1024

# gate:                        # the rules \`replaygate gate\` and the Action apply (defaults shown)
#   stable_break: {base_min: 0.8, candidate_max: 0.2}
#   fail_on_stable_break: true
#   fail_on_interval_below_zero: true
#   fail_on_missing_recording: true
`;
}

function goldenYaml(a: ScaffoldAnswers): string {
  return `# Golden questions: a question, and the SQL whose result is the right answer.
# Add the questions your users ask; ids are unique across all files.
# Optional fields: split (dev | test; test is held out: record it once, at the end),
# kind (answer | decline | forbidden), hint, ordered, set, notes.
questions:
  - id: q-001
    question: ${quoted(a.example.question)}
    golden_sql: ${quoted(a.example.goldenSql)}
`;
}

const PROMPT = `You are a careful data analyst. You answer questions about a SQLite database by writing one SQLite SELECT statement.
Reply with the statement in a \`\`\`sql fenced block and nothing else.
--- user ---
Tables, as name(column type, ...), primary keys marked PK, foreign keys as table.column -> table.column:
{{schema}}

Question: {{question}}
`;

/**
 * The pull-request workflow: the same text as docs/workflows/replaygate.yml, the README's
 * workflow (test/init/scaffold-workflow.test.ts checks they are equal and grant what the Action's
 * defaults need: \`pull-requests: write\` for the comment, \`checks: write\` for the check run).
 */
const WORKFLOW = `# The gate on every pull request from this repository: one sticky comment, a check run with
# annotations on the changed prompt and golden lines, and a failing check when the gate fails.
name: replaygate
on: pull_request
permissions:
  contents: read        # checkout
  pull-requests: write  # the sticky comment
  checks: write         # the check run with its annotations
concurrency: replaygate-\${{ github.ref }}   # one run per PR at a time: never two comments
jobs:
  replaygate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0  # the base commit and the merge base must be in the clone
      - uses: replaygate/replaygate@v1
        id: gate
        with:
          fail-on: verdict  # \`never\` to adopt: report without failing (see docs/action.md)
`;

const GITATTRIBUTES = `# Recordings are written by replaygate (record, import): keep their bytes exactly as written
# (no line-ending conversion) and show them collapsed in pull request diffs. Each golden
# question has its own calls file, so branches that re-record different questions merge with
# plain git; two replies for one request after a merge are an error naming both lines
# (docs/recordings.md).
recordings/** -text linguist-generated=true
`;
