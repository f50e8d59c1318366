/**
 * The Action (dist/index.js under the runner's Node 24) given hostile inputs, events and
 * configurations: the step always fails cleanly (exit 1), sets verdict=fail, writes a job
 * summary that says what was wrong, names the input, file or key, and never reads a file outside
 * the workspace (config paths, symbolic links and `..` are refused, naming the key).
 */
import { buildMini } from './fixtures.js';
import { fixtureOnce, hostileActionSuite } from './harness.js';

const mini = fixtureOnce(buildMini);
const cfg = 'replaygate.yml';

hostileActionSuite(mini, [
  { name: 'GITHUB_EVENT_PATH holds malformed JSON', event: '{"pull_request": {"number": 7,', names: ['GITHUB_EVENT_PATH', 'not JSON'] },
  { name: 'GITHUB_EVENT_PATH holds binary garbage', event: '\u0000\u0001\u00ff', names: ['GITHUB_EVENT_PATH'] },
  { name: 'an event whose pull_request has the wrong types still scores (exit 0 when all replays)', event: { pull_request: { number: 'seven', base: 5 } }, verdict: 'pass' },
  { name: 'GITHUB_EVENT_PATH points at a folder: a failed step naming it', env: { GITHUB_EVENT_PATH: '/tmp' }, names: ['GITHUB_EVENT_PATH', 'is a folder'] },
  { name: "input 'command' unknown", inputs: { command: 'deploy' }, names: ["Input 'command'", 'gate, score, check'] },
  { name: "input 'comment' not a boolean", inputs: { comment: 'maybe' }, names: ["Input 'comment'"] },
  { name: "input 'base-ref' starting with a dash", inputs: { command: 'gate', 'base-ref': '--upload-pack=evil' }, names: ["Input 'base-ref'"] },
  { name: "input 'config' outside the workspace", inputs: { config: '../../etc/passwd' }, names: ["Input 'config'", 'outside the workspace'] },
  { name: "input 'working-directory' outside the workspace", inputs: { 'working-directory': '..' }, names: ["Input 'working-directory'", 'outside the workspace'] },
  { name: "input 'config' missing", inputs: { config: 'nope.yml' }, names: ["Input 'config'", 'nope.yml'] },
  {
    name: 'a config that is a symlink out of the workspace',
    setup: (p) => {
      p.symlink('linked.yml', '/etc/hostname');
    },
    inputs: { config: 'linked.yml' },
    names: ["Input 'config'", 'symbolic link'],
  },
  {
    name: 'a prompt path with .. leading outside the workspace is refused, naming the key',
    setup: (p) => {
      p.replace(cfg, 'prompt: prompts/sql.md', 'prompt: ../../../../etc/hostname');
    },
    names: ["'agents.base.prompt'", 'outside the workspace'],
  },
  {
    name: 'a prompt that is a symlink out of the workspace is refused',
    setup: (p) => {
      p.symlink('prompts/sql.md', '/etc/hostname');
    },
    names: ["'agents.base.prompt'", 'symbolic link'],
  },
  {
    name: 'a golden file outside the workspace (absolute path) is refused',
    setup: (p) => {
      p.replace(cfg, 'golden: golden', 'golden: /etc/hostname');
    },
    names: ["'golden'", 'outside the workspace'],
  },
  {
    name: 'a warehouse database outside the workspace is refused',
    setup: (p) => {
      p.symlink('warehouse/concert_singer.sqlite', '/etc/hostname');
    },
    names: ["'warehouse.databases.concert_singer'"],
  },
  {
    name: 'a recording folder outside the workspace is refused',
    setup: (p) => {
      p.replace(cfg, 'recording: recordings/base', 'recording: /tmp');
    },
    names: ["'agents.base.recording'"],
  },
  {
    name: 'a calls.jsonl that links out of the workspace is refused (its text never reaches a message)',
    setup: (p) => {
      p.symlink('recordings/base/calls.jsonl', '/etc/passwd');
    },
    names: ["'agents.base.recording'", 'symbolic link'],
  },
  {
    name: 'a custom agent module outside the workspace is refused',
    setup: (p) => {
      p.edit(cfg, (t) => `${t}  custom:\n    kind: module\n    module: /usr/lib/node_modules/npm/index.js\n    model: m\n    prompt: prompts/sql.md\n`);
    },
    names: ["'agents.custom.module'"],
  },
  {
    name: 'a command agent whose program lies outside the workspace is refused',
    setup: (p) => {
      p.edit(cfg, (t) => `${t}  cmd:\n    kind: command\n    command: [node, /usr/lib/node_modules/npm/index.js]\n    prompt: prompts/sql.md\n`);
    },
    names: ["agent 'cmd'", 'outside the project'],
  },
  {
    name: 'a confidence thresholds file that links out of the workspace is refused',
    setup: (p) => {
      p.symlink('thresholds.yml', '/etc/hostname');
      p.edit(cfg, (t) => `${t}confidence:\n  thresholds: thresholds.yml\n`);
    },
    names: ["'confidence.thresholds'", 'symbolic link'],
  },
  {
    name: 'a semantic layer outside the workspace is refused',
    setup: (p) => {
      p.mkdir('outside-link');
      p.symlink('semantic', '/etc');
      p.edit(cfg, (t) => `${t}semantic: semantic/hostname\n`);
    },
    names: ["'semantic'"],
  },
  {
    name: 'an unknown config key fails the step naming file:line and the nearest key',
    setup: (p) => {
      p.replace(cfg, 'seeds:', 'sedes:');
    },
    names: [/replaygate\.yml:\d+/, "did you mean 'seeds'?"],
  },
  {
    name: 'absurd seeds in the config',
    setup: (p) => {
      p.replace(cfg, 'seeds: [0, 1]', 'seeds: 99999999999');
    },
    names: ["'seeds'", 'from 1 to 1000'],
  },
  {
    name: 'calls.jsonl is a folder',
    setup: (p) => {
      p.remove('recordings/base/calls.jsonl').mkdir('recordings/base/calls.jsonl');
    },
    names: ['calls.jsonl'],
  },
  {
    name: 'a reply field of the wrong JSON type',
    setup: (p) => {
      p.edit('recordings/base/calls.jsonl', (t) => {
        const [first, ...rest] = t.split('\n');
        const call = JSON.parse(first ?? '{}') as Record<string, unknown>;
        return [JSON.stringify({ ...call, reply: { content: 42 } }), ...rest].join('\n');
      });
    },
    names: ['calls.jsonl:1', "'reply.content'"],
  },
  {
    name: 'an edited prompt: MissingRecording, with the command that records exactly what is missing',
    setup: (p) => {
      p.replace('prompts/sql.md', 'analyst', 'analysts');
    },
    names: ['MissingRecording', 'replaygate record --agent base --seeds 2'],
  },
  {
    name: 'GITHUB_WORKSPACE that does not exist',
    env: { GITHUB_WORKSPACE: '/nonexistent/workspace' },
    names: ["Input 'working-directory'"],
  },
]);
