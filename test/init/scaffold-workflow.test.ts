/**
 * The workflow `replaygate init` writes is the README's workflow (docs/workflows/replaygate.yml,
 * which test/action/workflows.test.ts checks the README shows), and it grants what the Action's
 * defaults need: `comment: true` → `pull-requests: write`, `check-run: true` → `checks: write`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { scaffoldFiles } from '../../src/init/scaffold.js';

const REPO = join(import.meta.dirname, '../..');

describe("init's workflow", () => {
  const written = scaffoldFiles({ agent: 'sql-agent', model: 'gpt-4o-mini', warehouse: 'warehouse/example.sqlite', example: { question: 'q', goldenSql: 'SELECT 1' } })[
    '.github/workflows/replaygate.yml'
  ];

  it('is the README workflow, byte for byte', () => {
    expect(written).toBe(readFileSync(join(REPO, 'docs/workflows/replaygate.yml'), 'utf8'));
  });

  it("grants the permissions the Action's default inputs need", () => {
    const action = parse(readFileSync(join(REPO, 'action.yml'), 'utf8')) as { inputs: Record<string, { default: string }> };
    const workflow = parse(written ?? '') as { permissions: Record<string, string> };
    const needs: [string, string][] = [
      ['comment', 'pull-requests'],
      ['check-run', 'checks'],
    ];
    for (const [input, permission] of needs) {
      if (action.inputs[input]?.default === 'true') expect(workflow.permissions[permission], `${input}: true needs ${permission}: write`).toBe('write');
    }
    expect(workflow.permissions['contents']).toBe('read');
  });
});
