import { getOctokit } from '@actions/github';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  COMMENTS_PER_PAGE,
  findOwnComment,
  isOwnComment,
  resolveBotIdentity,
  upsertStickyComment,
} from '../../src/action/sticky-comment.js';
import { ConsoleLogger } from '../../src/util/logger.js';
import { ACTIONS_BOT, FakeGitHub, OCTOCAT } from './fake-github.js';

const REPO = 'acme/shop-analytics';
const where = { owner: 'acme', repo: 'shop-analytics', issueNumber: 42 };
const marker = '<!-- replaygate-comment: replaygate.yml -->';
const quiet = new ConsoleLogger({ write: () => true });

let gh: FakeGitHub;
beforeEach(async () => {
  gh = await new FakeGitHub().start();
  gh.repos.add(REPO);
  gh.tokens.set('ghs_write', { user: ACTIONS_BOT, installation: true, write: true });
  gh.tokens.set('ghs_readonly', { user: ACTIONS_BOT, installation: true, write: false });
  gh.tokens.set('ghp_octocat', { user: OCTOCAT, installation: false, write: true });
});
afterEach(async () => {
  await gh.stop();
});

const client = (token: string) => getOctokit(token, { baseUrl: gh.url });

describe('bot identity', () => {
  it('uses GET /user for a personal access token', async () => {
    expect(await resolveBotIdentity(client('ghp_octocat'), quiet)).toEqual({ login: 'octocat', source: 'GET /user' });
  });

  it('falls back to the GraphQL viewer when GET /user answers 403 (GITHUB_TOKEN)', async () => {
    expect(await resolveBotIdentity(client('ghs_write'), quiet)).toEqual({ login: 'github-actions', source: 'GraphQL viewer' });
    expect(gh.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /user 403', 'POST /graphql 200']);
  });

  it('matches REST bot logins against GraphQL names and ignores others carrying the marker', () => {
    const identity = { login: 'github-actions', source: 'GraphQL viewer' } as const;
    expect(isOwnComment({ id: 1, body: `${marker}\nhi`, user: { login: 'github-actions[bot]' } }, marker, identity)).toBe(true);
    expect(isOwnComment({ id: 2, body: `quoting ${marker}`, user: { login: 'mallory' } }, marker, identity)).toBe(false);
    expect(isOwnComment({ id: 3, body: 'no marker', user: { login: 'github-actions[bot]' } }, marker, identity)).toBe(false);
  });

  it("a marker inside the body (another config's or command's, quoted from a question or SQL in a code span or block) does not make the comment that one's (hostile)", () => {
    const identity = { login: 'github-actions', source: 'GraphQL viewer' } as const;
    const other = '<!-- replaygate-comment command=gate config=other.yml -->';
    const body = `${marker}\n## gate\n\n| \`${other}\` |\n\n\`\`\`sql\n${other}\nSELECT 1\n\`\`\`\n`;
    expect(isOwnComment({ id: 1, body, user: { login: 'github-actions[bot]' } }, marker, identity)).toBe(true);
    expect(isOwnComment({ id: 1, body, user: { login: 'github-actions[bot]' } }, other, identity)).toBe(false);
    expect(isOwnComment({ id: 2, body: `\r\n${marker}\r\nv`, user: { login: 'github-actions[bot]' } }, marker, identity)).toBe(true);
  });
});

describe('sticky comment', () => {
  it('creates one comment, then updates it in place', async () => {
    const first = await upsertStickyComment(client('ghs_write'), where, marker, `${marker}\nv1`, quiet);
    expect(first.action).toBe('created');
    const second = await upsertStickyComment(client('ghs_write'), where, marker, `${marker}\nv2`, quiet);
    expect(second).toMatchObject({ action: 'updated', id: first.action === 'created' ? first.id : -1 });
    const third = await upsertStickyComment(client('ghs_write'), where, marker, `${marker}\nv2`, quiet);
    expect(third.action).toBe('unchanged');
    expect(gh.commentsOn(REPO, 42).map((c) => c.body)).toEqual([`${marker}\nv2`]);
    expect(gh.count('PATCH', /comments\/\d+$/)).toBe(1);
  });

  it('finds ours on page 2 of 3 through the Link header and does not duplicate it', async () => {
    for (let i = 0; i < 140; i += 1) {
      if (i === 130) gh.seedComment(REPO, 42, ACTIONS_BOT, `${marker}\nold scorecard`);
      else gh.seedComment(REPO, 42, i % 3 === 0 ? ACTIONS_BOT : OCTOCAT, i === 7 ? `pasted: ${marker}` : `comment ${i}`);
    }
    const result = await upsertStickyComment(client('ghs_write'), where, marker, `${marker}\nnew`, quiet);
    expect(result.action).toBe('updated');
    expect(gh.commentsOn(REPO, 42)).toHaveLength(140);
    expect(gh.commentsOn(REPO, 42)[130]?.body).toBe(`${marker}\nnew`);
    expect(gh.commentsOn(REPO, 42)[7]?.body).toBe(`pasted: ${marker}`);
    const pages = gh.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/comments'));
    expect(pages.map((r) => [r.query['per_page'], r.query['page'] ?? '1'])).toEqual([
      [String(COMMENTS_PER_PAGE), '1'],
      [String(COMMENTS_PER_PAGE), '2'],
    ]);
  });

  it('walks every page when there is no comment of ours yet', async () => {
    for (let i = 0; i < 250; i += 1) gh.seedComment(REPO, 42, OCTOCAT, `c${i}`);
    const found = await findOwnComment(client('ghs_write'), where, marker, { login: 'github-actions', source: 'GraphQL viewer' });
    expect(found).toBeUndefined();
    expect(gh.count('GET', /\/comments$/)).toBe(3);
  });

  it('skips with a reason on a read-only token (fork pull request: 403)', async () => {
    const result = await upsertStickyComment(client('ghs_readonly'), where, marker, `${marker}\nx`, quiet);
    expect(result.action).toBe('skipped');
    expect(result.action === 'skipped' && result.reason).toMatch(/HTTP 403: Resource not accessible by integration.*fork/);
    expect(gh.commentsOn(REPO, 42)).toHaveLength(0);
  });

  it('skips with a reason on bad credentials (401) and an unknown repository (404)', async () => {
    expect((await upsertStickyComment(client('nope'), where, marker, 'x', quiet)).action).toBe('skipped');
    const other = await upsertStickyComment(client('ghs_write'), { ...where, repo: 'missing' }, marker, 'x', quiet);
    expect(other.action === 'skipped' && other.reason).toMatch(/HTTP 404/);
  });
});

describe('older marker formats', () => {
  const current = '<!-- replaygate-comment command=gate config=replaygate.yml -->';
  it('adopts a comment with an older marker when none has the current one', async () => {
    for (let i = 0; i < 120; i += 1) gh.seedComment(REPO, 42, i === 20 ? ACTIONS_BOT : OCTOCAT, i === 20 ? `${marker}\nold` : `c${i}`);
    const result = await upsertStickyComment(client('ghs_write'), where, [current, marker], `${current}\nnew`, quiet);
    expect(result.action).toBe('updated');
    expect(gh.commentsOn(REPO, 42)[20]?.body).toBe(`${current}\nnew`);
    expect(gh.count('GET', /\/comments$/)).toBe(2);
  });

  it('prefers a comment with the current marker even when an older one comes first', async () => {
    gh.seedComment(REPO, 42, ACTIONS_BOT, `${marker}\nold`);
    gh.seedComment(REPO, 42, ACTIONS_BOT, `${current}\nmine`);
    const found = await findOwnComment(client('ghs_write'), where, [current, marker], { login: 'github-actions', source: 'GraphQL viewer' });
    expect(found?.body).toBe(`${current}\nmine`);
  });
});
