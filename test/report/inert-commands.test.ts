import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InertCommandFilter, inGitHubActions, inertCommands, inertStream } from '../../src/report/inert-commands.js';

const BREAK = /\r\n|[\r\n\u0085\u2028\u2029]/;
const commandLines = (text: string): string[] => text.split(BREAK).filter((line) => /^[^\S\r\n\u0085\u2028\u2029]*::/.test(line) || line.includes('##['));

const ATTACKS = [
  '::add-mask::x',
  'q1\n::add-mask::hunter2',
  'q1\r::stop-commands::tok',
  'q1\r\n  ::set-env name=A::b',
  'x\u0085\t::error file=a::forged',
  'SELECT 1 -- \u2028::set-output name=verdict::pass',
  'a\u2029::group::fake',
  'old syntax ##[set-output name=verdict;]pass',
  'a\n::endgroup::\n::group::fake\n   ::warning::w',
  'three ###[ and :: mid-line stays',
  '\u202Ebidi\n::debug::x',
];

describe('InertCommandFilter (a stream written piece by piece)', () => {
  it('one piece is exactly inertCommands', () => {
    for (const text of ATTACKS) expect(new InertCommandFilter().filter(text)).toBe(inertCommands(text));
  });

  it('a command split anywhere across two or three writes is still broken (hostile)', () => {
    for (const text of ATTACKS) {
      for (let i = 0; i <= text.length; i += 1) {
        for (let j = i; j <= text.length; j += 1) {
          const f = new InertCommandFilter();
          const out = f.filter(text.slice(0, i)) + f.filter(text.slice(i, j)) + f.filter(text.slice(j));
          expect(commandLines(out), JSON.stringify([text.slice(0, i), text.slice(i, j), text.slice(j)])).toEqual([]);
          // the same text as written at once, except a `##` | `[` split, broken as `## [`
          if (!/##$/.test(text.slice(0, i)) && !/##$/.test(text.slice(0, j))) expect(out).toBe(inertCommands(text));
        }
      }
    }
  });

  it('remembers a line start across writes, and a line already begun', () => {
    const f = new InertCommandFilter();
    expect(f.filter('ab')).toBe('ab');
    expect(f.filter('::c')).toBe('::c'); // mid-line: not a command, left as is
    expect(f.filter('\n  ')).toBe('\n  ');
    expect(f.filter(':')).toBe(':');
    expect(f.filter(':add-mask::x')).toBe(' :add-mask::x'); // ': :' across the two writes
    expect(f.filter('#')).toBe('#');
    expect(f.filter('#[')).toBe(' #[');
    expect(f.filter('##')).toBe('##');
    expect(f.filter('[')).toBe(' [');
    expect(f.filter('')).toBe('');
  });

  it('text without commands passes unchanged, byte for byte', () => {
    const f = new InertCommandFilter();
    const text = 'gate: pass\n  q1: 1.00 (0.68 to 1.00)\r\nhttp://x:80/a::b # x [y]\n\ttab\n';
    expect(f.filter(text)).toBe(text);
  });
});

describe('inertStream', () => {
  it('filters write and keeps the rest of the stream', async () => {
    const sink = new PassThrough();
    const chunks: string[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c.toString()));
    const stream = inertStream(sink, new InertCommandFilter());
    stream.write('a\n::add-mask::x\n');
    stream.write(Buffer.from('::stop-commands::y\n'));
    expect(stream.writable).toBe(true);
    await new Promise<void>((done) => stream.end(done));
    expect(chunks.join('')).toBe('a\n: :add-mask::x\n: :stop-commands::y\n');
  });
});

describe('inGitHubActions', () => {
  it('is GITHUB_ACTIONS=true exactly, as the runner sets it', () => {
    expect(inGitHubActions({ GITHUB_ACTIONS: 'true' })).toBe(true);
    expect(inGitHubActions({})).toBe(false);
    expect(inGitHubActions({ GITHUB_ACTIONS: 'false' })).toBe(false);
  });
});

describe('a progress bar drawn through inertStream (as main() gives it inside Actions)', () => {
  it('draws on a terminal-like stream and draws no command', async () => {
    const { progressFor } = await import('../../src/cli/progress.js');
    const sink = Object.assign(new PassThrough(), { isTTY: true, columns: 100 });
    const drawn: string[] = [];
    sink.on('data', (c: Buffer) => drawn.push(c.toString()));
    const progress = await progressFor({ cwd: '.', env: {}, isTTY: true, progressStream: inertStream(sink, new InertCommandFilter()), stdout: () => {}, stderr: () => {}, protectedPaths: new Set(), exitCode: 0 }, true);
    progress.start(2, '\n::add-mask::label');
    progress.tick(1, '\n::stop-commands::extra ##[group]x');
    progress.stop();
    await new Promise((done) => setImmediate(done));
    const text = drawn.join('');
    expect(text).toContain('add-mask::label');
    expect(commandLines(text)).toEqual([]);
  });
});

describe('inertStream over bytes split anywhere (hostile)', () => {
  // Multi-byte characters next to the commands: é (2 bytes), U+2028 (a line break, 3 bytes), 😀 (4 bytes), U+202E (a bidi control, 3 bytes).
  const TEXTS = [
    'é\n::add-mask::sécret\n',
    'x\u2028::set-output name=a::b\n',
    '😀 ok\n  ::error file=a.ts::😀\r\n##[warning]x\n',
    '\u202e::stop-commands::t\nend é',
  ];
  const drain = async (writes: (s: NodeJS.WritableStream) => void): Promise<Buffer> => {
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (c: Buffer) => chunks.push(Buffer.from(c)));
    const stream = inertStream(sink, new InertCommandFilter());
    const finished = new Promise<void>((done) => sink.on('finish', done));
    writes(stream);
    if (!sink.writableEnded) stream.end();
    await finished;
    return Buffer.concat(chunks);
  };

  it('two byte chunks, every split point: the characters arrive whole and no command survives', async () => {
    for (const text of TEXTS) {
      const bytes = Buffer.from(text, 'utf8');
      const whole = Buffer.from(inertCommands(text), 'utf8');
      for (let i = 0; i <= bytes.length; i += 1) {
        const out = await drain((s) => {
          s.write(bytes.subarray(0, i));
          s.write(bytes.subarray(i));
        });
        const shown = out.toString('utf8');
        expect(shown, `${JSON.stringify(text)} split at byte ${i}`).not.toContain('\ufffd');
        expect(commandLines(shown), `${JSON.stringify(text)} split at byte ${i}`).toEqual([]);
        if (!/##$/.test(bytes.subarray(0, i).toString('latin1'))) expect(out.equals(whole), `${JSON.stringify(text)} split at byte ${i}`).toBe(true);
      }
    }
  });

  it('one byte per write', async () => {
    for (const text of TEXTS) {
      const out = await drain((s) => {
        for (const b of Buffer.from(text, 'utf8')) s.write(Buffer.from([b]));
      });
      expect(commandLines(out.toString('utf8'))).toEqual([]);
      expect(out.toString('utf8')).not.toContain('\ufffd');
    }
  });

  it('end(chunk) and a string in another encoding are filtered too; an incomplete character at the end shows as U+FFFD', async () => {
    const ended = await drain((s) => s.end(Buffer.from('x\n::add-mask::y\n')));
    expect(ended.toString()).toBe('x\n: :add-mask::y\n');
    const hex = await drain((s) => s.write(Buffer.from('::add-mask::z\n').toString('hex'), 'hex'));
    expect(hex.toString()).toBe(': :add-mask::z\n');
    const torn = await drain((s) => s.write(Buffer.from('é', 'utf8').subarray(0, 1)));
    expect(torn.toString()).toBe('\ufffd');
  });
});
