import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_COMMENT_CHARS, MAX_SUMMARY_BYTES, fitComment } from '../../src/report/fit-comment.js';

const head = '<!-- replaygate-comment: replaygate.yml -->\n## ❌ replaygate gate: fail\n\n**Why it failed**\n\n- stable break: gq-008';
const pointer = 'Full report: [job summary](https://github.com/acme/shop/actions/runs/1).';

function table(rows: number, width = 60): string {
  const lines = ['| question | base | head | detail |', '| --- | ---: | ---: | --- |'];
  for (let i = 0; i < rows; i += 1) lines.push(`| q-${String(i).padStart(5, '0')} | 4 of 5 | 0 of 5 | ${'x'.repeat(width)} |`);
  return lines.join('\n');
}

function details(summary: string, body: string): string {
  return `<details><summary>${summary}</summary>\n\n${body}\n\n</details>`;
}

describe('fitComment', () => {
  it('returns a text that fits unchanged', () => {
    const out = fitComment({ head, body: table(3), pointer });
    expect(out.text).toBe(`${head}\n\n${table(3)}`);
    expect(out).toMatchObject({ shedDetails: 0, cutLines: 0 });
  });

  it('sheds <details> blocks, last first, before cutting anything', () => {
    const body = ['### Moved questions', table(50), details('Runs of agent a', table(400)), details('Runs of agent b', table(400))].join('\n\n');
    const out = fitComment({ head, body, pointer });
    expect(out.size).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
    expect(out.cutLines).toBe(0);
    expect(out.shedDetails).toBeGreaterThanOrEqual(1);
    expect(out.text).toContain('✂️ Left out here: Runs of agent b');
    expect(out.text.startsWith(head)).toBe(true);
    expect(out.text).toContain('| q-00049 |');
    expect(out.text.trimEnd().endsWith(pointer)).toBe(true);
  });

  it('cuts a 300 KB table at a whole row, keeps the verdict on top and points to the job summary', () => {
    const body = table(4000); // ≈ 300 KB
    expect(body.length).toBeGreaterThan(300_000);
    const out = fitComment({ head, body, pointer });
    expect(out.text.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
    expect(out.text.length).toBeGreaterThan(MAX_COMMENT_CHARS - 200); // uses the budget
    expect(out.text.startsWith(head)).toBe(true);
    const [kept, note] = out.text.split('\n\n> ✂️');
    const lastRow = kept?.split('\n').at(-1) ?? '';
    expect(lastRow).toMatch(/^\| q-\d{5} \| 4 of 5 \| 0 of 5 \| x{60} \|$/);
    expect(note).toContain(`${out.cutLines} lines of the report left out`);
    expect(note).toContain(pointer);
    mkdirSync('test/__outputs__', { recursive: true });
    const lines = out.text.split('\n');
    const excerpt = [...lines.slice(0, 12), `<!-- test excerpt: ${lines.length - 18} rows not shown here -->`, ...lines.slice(-6)];
    writeFileSync('test/__outputs__/action-comment-cut.md', `${excerpt.join('\n')}\n`);
  });

  it('never leaves a table header without its delimiter row', () => {
    const body = `${'para\n'.repeat(10)}\n| a | b |\n| --- | --- |\n| 1 | 2 |`;
    const budget = head.length + 2 + 'para\n'.repeat(10).length + 1 + '| a | b |'.length + 300;
    const out = fitComment({ head, body, pointer }, { maxSize: budget });
    expect(out.text).not.toMatch(/\| a \| b \|\n\n>/);
    expect(out.size).toBeLessThanOrEqual(budget);
  });

  it('closes an open code fence and <details> at the cut', () => {
    const body = `<details><summary>SQL</summary>\n\n\`\`\`sql\n${'SELECT 1;\n'.repeat(8000)}\`\`\`\n\n</details>`;
    const out = fitComment({ head, body: `intro\n\n\`\`\`\n${'line\n'.repeat(20000)}\`\`\``, pointer });
    expect(out.text.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
    expect((out.text.match(/^```/gm) ?? []).length % 2).toBe(0);
    const shed = fitComment({ head, body, pointer });
    expect(shed.shedDetails).toBe(1);
    expect(shed.text).not.toContain('SELECT 1;');
  });

  it('cuts the head itself when the reasons alone exceed the budget, verdict first', () => {
    const hugeHead = `${head}\n${'- MissingRecording: q\n'.repeat(5000)}`;
    const out = fitComment({ head: hugeHead, body: 'body', pointer });
    expect(out.text.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
    expect(out.text.split('\n')[1]).toBe('## ❌ replaygate gate: fail');
  });

  it('measures bytes for a job summary (1 MiB)', () => {
    const body = table(9000, 120).replace(/x/g, 'é'); // 2 bytes per é
    const out = fitComment({ head, body, pointer }, { maxSize: MAX_SUMMARY_BYTES, measure: (s) => Buffer.byteLength(s), unit: 'bytes' });
    expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(MAX_SUMMARY_BYTES);
    expect(out.size).toBe(Buffer.byteLength(out.text));
    expect(out.text).toContain("GitHub's limit of 1,048,576 bytes");
  });

  it('a ``` line inside a ```` block is content: a cut inside the block closes it with ````; a quoted </details> ends nothing', () => {
    const sql = ['````sql', ...Array.from({ length: 3000 }, (_, k) => (k % 10 === 0 ? '```' : `SELECT ${k} FROM t -- ${'y'.repeat(20)}`)), '````'].join('\n');
    const out = fitComment({ head, body: `### SQL\n\n${sql}\n\nafter`, pointer });
    expect(out.size).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
    const [kept] = out.text.split('\n\n> ✂️ ');
    expect(kept?.split('\n').at(-1)).toBe('````');
    const quoted = ['<details><summary>a</summary>', '', '| x | `</details>` |', '|---|---|', ...Array.from({ length: 3000 }, () => `| ${'z'.repeat(30)} | \`</details>\` |`), '', '</details>'].join('\n');
    const shed = fitComment({ head, body: quoted, pointer });
    expect(shed.shedDetails).toBe(1);
    expect(shed.text).not.toContain('| x |');
  });
});
