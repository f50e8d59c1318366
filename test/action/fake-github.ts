/**
 * A fake GitHub REST API on 127.0.0.1 for the Action's tests: issue comment listing with real
 * pagination (`per_page`, `page`, `Link` header), create, update, `GET /user`, the GraphQL
 * `viewer`, and GitHub's status codes and error bodies (401 bad credentials, 403 "Resource not
 * accessible by integration" for a read-only or installation token, 404, 422 body too long),
 * check runs (create with at most 50 annotations, update adding up to 50 more; 422 beyond, as
 * GitHub answers) and `GET /pulls/{n}` and `GET /pulls/{n}/files` for the fork pattern. Every request is logged.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeUser {
  readonly login: string;
  readonly id: number;
  readonly type: 'User' | 'Bot';
}

/** A token: whose it is, whether it is an installation token (GITHUB_TOKEN), and its rights. */
export interface FakeToken {
  readonly user: FakeUser;
  /** Installation tokens cannot call `GET /user` (403); GraphQL viewer names the bot without `[bot]`. */
  readonly installation: boolean;
  /** May create/update comments (false: the read-only token of a fork pull request). */
  readonly write: boolean;
  /** May create check runs (default: `write`; false: a workflow without `checks: write`). */
  readonly checks?: boolean;
}

/** A check run as stored: what was sent, annotations of every request in order. */
export interface FakeCheckRun {
  readonly id: number;
  readonly name: string;
  readonly head_sha: string;
  readonly status: string;
  readonly conclusion: string;
  readonly details_url?: string;
  output: { title: string; summary: string };
  readonly annotations: Record<string, unknown>[];
  /** Annotations per request (create, then each update). */
  readonly batches: number[];
}

/** A pull request the fake knows: number → head commit. */
export interface FakePull {
  readonly number: number;
  readonly headSha: string;
  /** Paths the pull request changed (`GET /pulls/{n}/files`, paginated). */
  readonly files?: readonly string[];
}

export interface FakeComment {
  id: number;
  node_id: string;
  url: string;
  html_url: string;
  issue_url: string;
  body: string;
  user: FakeUser & { node_id: string; html_url: string };
  created_at: string;
  updated_at: string;
  author_association: string;
}

export interface LoggedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly status: number;
  readonly authorization: string | undefined;
}

export const ACTIONS_BOT: FakeUser = { login: 'github-actions[bot]', id: 41898282, type: 'Bot' };
export const OCTOCAT: FakeUser = { login: 'octocat', id: 583231, type: 'User' };
export const MAX_COMMENT_BODY_CHARS = 65_536;

/** The fake API. `url` is the value for `GITHUB_API_URL`. */
export class FakeGitHub {
  readonly requests: LoggedRequest[] = [];
  /** Comments per `owner/repo#number`. */
  readonly comments = new Map<string, FakeComment[]>();
  readonly tokens = new Map<string, FakeToken>();
  /** Repositories that exist (`owner/repo`); others answer 404. */
  readonly repos = new Set<string>();
  /** Check runs per `owner/repo`. */
  readonly checkRuns = new Map<string, FakeCheckRun[]>();
  /** Pull requests per `owner/repo`. */
  readonly pulls = new Map<string, FakePull[]>();
  private nextId = 1_000_000_001;
  private clock = Date.parse('2025-05-01T10:00:00Z');
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        this.send(req, res, 500, { message: `fake-github bug: ${String(error)}` });
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Adds a comment as `user` directly (no request logged). */
  seedComment(repo: string, issue: number, user: FakeUser, body: string): FakeComment {
    return this.addComment(repo, issue, user, body);
  }

  commentsOn(repo: string, issue: number): FakeComment[] {
    return this.comments.get(`${repo}#${issue}`) ?? [];
  }

  /** Requests matching method and a path pattern. */
  count(method: string, pattern: RegExp): number {
    return this.requests.filter((r) => r.method === method && pattern.test(r.path)).length;
  }

  private addComment(repo: string, issue: number, user: FakeUser, body: string): FakeComment {
    const id = this.nextId++;
    const at = new Date((this.clock += 60_000)).toISOString().replace('.000Z', 'Z');
    const comment: FakeComment = {
      id,
      node_id: `IC_kwDO${id.toString(36)}`,
      url: `${this.url}/repos/${repo}/issues/comments/${id}`,
      html_url: `https://github.com/${repo}/pull/${issue}#issuecomment-${id}`,
      issue_url: `${this.url}/repos/${repo}/issues/${issue}`,
      body,
      user: { ...user, node_id: `MDQ6VXNlcj${user.id}`, html_url: `https://github.com/${user.login.replace('[bot]', '')}` },
      created_at: at,
      updated_at: at,
      author_association: user.type === 'Bot' ? 'NONE' : 'MEMBER',
    };
    const key = `${repo}#${issue}`;
    this.comments.set(key, [...(this.comments.get(key) ?? []), comment]);
    return comment;
  }

  private token(req: IncomingMessage): FakeToken | undefined {
    const header = req.headers.authorization ?? '';
    const match = /^(?:token|bearer)\s+(.+)$/i.exec(header);
    return match?.[1] === undefined ? undefined : this.tokens.get(match[1]);
  }

  private send(req: IncomingMessage, res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const url = new URL(req.url ?? '/', this.url);
    this.requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status,
      authorization: req.headers.authorization,
    });
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'x-github-media-type': 'github.v3; format=json',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      ...headers,
    });
    res.end(text);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const raw = await readBody(req);
    const token = this.token(req);
    const docs = 'https://docs.github.com/rest';
    if (token === undefined) {
      return this.send(req, res, 401, { message: 'Bad credentials', documentation_url: docs, status: '401' });
    }
    const forbidden = (doc: string): void =>
      this.send(req, res, 403, { message: 'Resource not accessible by integration', documentation_url: `${docs}/${doc}`, status: '403' });

    if (method === 'GET' && path === '/user') {
      if (token.installation) return forbidden('users/users#get-the-authenticated-user');
      return this.send(req, res, 200, { login: token.user.login, id: token.user.id, type: token.user.type });
    }
    if (method === 'POST' && path === '/graphql') {
      const query = String((JSON.parse(raw || '{}') as { query?: unknown }).query ?? '');
      if (!/viewer\s*\{\s*login\s*\}/.test(query)) {
        return this.send(req, res, 200, { errors: [{ message: 'fake-github: only `viewer { login }` is implemented' }] });
      }
      const login = token.installation ? token.user.login.replace(/\[bot\]$/, '') : token.user.login;
      return this.send(req, res, 200, { data: { viewer: { login } } });
    }

    let m = /^\/repos\/([^/]+)\/([^/]+)\/check-runs(?:\/(\d+))?$/.exec(path);
    if (m) {
      const repo = `${m[1]}/${m[2]}`;
      if (!this.repos.has(repo)) return this.send(req, res, 404, { message: 'Not Found', documentation_url: docs, status: '404' });
      if (!(token.checks ?? token.write)) return forbidden('checks/runs#create-a-check-run');
      const input = JSON.parse(raw || '{}') as { name?: string; head_sha?: string; status?: string; conclusion?: string; details_url?: string; output?: { title?: string; summary?: string; annotations?: Record<string, unknown>[] } };
      const annotations = input.output?.annotations ?? [];
      if (annotations.length > 50) {
        return this.send(req, res, 422, { message: 'Validation Failed', errors: ['Only 50 annotations are allowed per request'], status: '422' });
      }
      for (const a of annotations) {
        for (const k of ['path', 'start_line', 'end_line', 'annotation_level', 'message']) {
          if (a[k] === undefined) return this.send(req, res, 422, { message: `Invalid request.\n\n"${k}" wasn't supplied.`, status: '422' });
        }
      }
      const runs = this.checkRuns.get(repo) ?? [];
      if (method === 'POST' && m[3] === undefined) {
        if (typeof input.name !== 'string' || typeof input.head_sha !== 'string') return this.send(req, res, 422, { message: 'Invalid request.', status: '422' });
        const id = this.nextId++;
        const run: FakeCheckRun = {
          id,
          name: input.name,
          head_sha: input.head_sha,
          status: input.status ?? 'queued',
          conclusion: input.conclusion ?? '',
          ...(input.details_url === undefined ? {} : { details_url: input.details_url }),
          output: { title: input.output?.title ?? '', summary: input.output?.summary ?? '' },
          annotations: [...annotations],
          batches: [annotations.length],
        };
        this.checkRuns.set(repo, [...runs, run]);
        return this.send(req, res, 201, { id, name: run.name, head_sha: run.head_sha, html_url: `https://github.com/${repo}/runs/${id}` });
      }
      const run = runs.find((r) => r.id === Number(m?.[3]));
      if (method === 'PATCH' && run !== undefined) {
        run.annotations.push(...annotations);
        run.batches.push(annotations.length);
        if (input.output?.title !== undefined) run.output = { title: input.output.title, summary: input.output.summary ?? run.output.summary };
        return this.send(req, res, 200, { id: run.id, name: run.name, head_sha: run.head_sha, html_url: `https://github.com/${repo}/runs/${run.id}` });
      }
      return this.send(req, res, 404, { message: 'Not Found', documentation_url: docs, status: '404' });
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/files$/.exec(path);
    if (m && method === 'GET') {
      const repo = `${m[1]}/${m[2]}`;
      const pull = (this.pulls.get(repo) ?? []).find((p) => p.number === Number(m?.[3]));
      if (!this.repos.has(repo) || pull === undefined) return this.send(req, res, 404, { message: 'Not Found', documentation_url: docs, status: '404' });
      const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30) || 30));
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
      const files = (pull.files ?? []).slice((page - 1) * perPage, page * perPage);
      return this.send(req, res, 200, files.map((filename) => ({ filename, status: 'modified', additions: 1, deletions: 1, changes: 2 })));
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/.exec(path);
    if (m && method === 'GET') {
      const repo = `${m[1]}/${m[2]}`;
      const pull = (this.pulls.get(repo) ?? []).find((p) => p.number === Number(m?.[3]));
      if (!this.repos.has(repo) || pull === undefined) return this.send(req, res, 404, { message: 'Not Found', documentation_url: docs, status: '404' });
      return this.send(req, res, 200, { number: pull.number, state: 'open', head: { sha: pull.headSha, ref: 'prompt-v2' }, base: { ref: 'main' } });
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(path);
    if (m) {
      const repo = `${m[1]}/${m[2]}`;
      const issue = Number(m[3]);
      if (!this.repos.has(repo)) return this.send(req, res, 404, { message: 'Not Found', documentation_url: docs, status: '404' });
      if (method === 'GET') {
        const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30) || 30));
        const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
        const all = this.commentsOn(repo, issue);
        const last = Math.max(1, Math.ceil(all.length / perPage));
        const slice = all.slice((page - 1) * perPage, page * perPage);
        const link = (p: number, rel: string): string => {
          const u = new URL(url.pathname, this.url);
          u.searchParams.set('per_page', String(perPage));
          u.searchParams.set('page', String(p));
          return `<${u.toString()}>; rel="${rel}"`;
        };
        const links: string[] = [];
        if (page > 1) links.push(link(page - 1, 'prev'));
        if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
        if (page > 1) links.push(link(1, 'first'));
        return this.send(req, res, 200, slice, links.length > 0 ? { link: links.join(', ') } : {});
      }
      if (method === 'POST') {
        if (!token.write) return forbidden('issues/comments#create-an-issue-comment');
        const body = (JSON.parse(raw || '{}') as { body?: unknown }).body;
        if (typeof body !== 'string') return this.send(req, res, 422, { message: 'Invalid request.\n\n"body" wasn\'t supplied.', status: '422' });
        if (body.length > MAX_COMMENT_BODY_CHARS) return this.send(req, res, 422, tooLong());
        return this.send(req, res, 201, this.addComment(repo, issue, token.user, body));
      }
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(path);
    if (m && method === 'PATCH') {
      const repo = `${m[1]}/${m[2]}`;
      const id = Number(m[3]);
      const comment = [...this.comments.entries()].filter(([k]) => k.startsWith(`${repo}#`)).flatMap(([, list]) => list).find((c) => c.id === id);
      if (!this.repos.has(repo) || comment === undefined) return this.send(req, res, 404, { message: 'Not Found', documentation_url: docs, status: '404' });
      if (!token.write) return forbidden('issues/comments#update-an-issue-comment');
      const body = (JSON.parse(raw || '{}') as { body?: unknown }).body;
      if (typeof body !== 'string') return this.send(req, res, 422, { message: 'Invalid request.', status: '422' });
      if (body.length > MAX_COMMENT_BODY_CHARS) return this.send(req, res, 422, tooLong());
      comment.body = body;
      comment.updated_at = new Date((this.clock += 60_000)).toISOString().replace('.000Z', 'Z');
      return this.send(req, res, 200, comment);
    }
    return this.send(req, res, 404, { message: 'Not Found', documentation_url: docs, status: '404' });
  }
}

function tooLong(): unknown {
  return {
    message: 'Validation Failed',
    errors: [{ resource: 'IssueComment', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' }],
    documentation_url: 'https://docs.github.com/rest/issues/comments#create-an-issue-comment',
    status: '422',
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
