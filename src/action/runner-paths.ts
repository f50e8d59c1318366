/**
 * Absolute paths of the runner (`/home/runner/work/repo/repo/…`, `/home/runner/work/_temp/…`)
 * told in the terms a reader of the pull request knows: a path in the workspace as a
 * repository-relative path, the workspace itself as `$GITHUB_WORKSPACE`, a path under `RUNNER_TEMP` or the tool cache as `$RUNNER_TEMP/…`
 * or `$RUNNER_TOOL_CACHE/…`. The comment and the job summary show these; the step's log keeps
 * the absolute paths for whoever debugs the runner. Pure.
 */
import { posix, sep } from 'node:path';

/** The runner's folders, longest first, and what each is shown as. */
function prefixes(env: NodeJS.ProcessEnv, workspace: string | undefined): { path: string; shown: string }[] {
  const out: { path: string; shown: string }[] = [];
  const add = (path: string | undefined, shown: string): void => {
    if (path === undefined || path === '' || path === sep || path === '/') return;
    out.push({ path: path.replace(/[\\/]+$/, ''), shown });
  };
  add(workspace ?? env['GITHUB_WORKSPACE'], '$GITHUB_WORKSPACE');
  add(env['GITHUB_WORKSPACE'], '$GITHUB_WORKSPACE');
  add(env['RUNNER_TEMP'], '$RUNNER_TEMP');
  add(env['RUNNER_TOOL_CACHE'], '$RUNNER_TOOL_CACHE');
  return out.sort((a, b) => b.path.length - a.path.length);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A function that rewrites the runner's absolute paths in a text: `<workspace>/a/b.yml` →
 * `a/b.yml`, the workspace itself → `$GITHUB_WORKSPACE`, `<RUNNER_TEMP>/replaygate/x` → `$RUNNER_TEMP/replaygate/x`.
 * @example runnerPathHider({ GITHUB_WORKSPACE: '/w/r', RUNNER_TEMP: '/w/_temp' })('see /w/r/a.yml and /w/_temp/x') // 'see a.yml and $RUNNER_TEMP/x'
 */
export function runnerPathHider(env: NodeJS.ProcessEnv, workspace?: string): (text: string) => string {
  const list = prefixes(env, workspace);
  if (list.length === 0) return (text) => text;
  const pattern = new RegExp(`(${list.map((p) => escapeRegExp(p.path)).join('|')})(?:([\\\\/])([^\\s'"\`)<>,;]*))?(?![\\w-]|\\.\\w)`, 'g');
  return (text) =>
    text.replace(pattern, (_m, root: string, _slash: string | undefined, rest: string | undefined) => {
      const shown = list.find((p) => p.path === root)?.shown ?? root;
      if (rest === undefined || rest === '') return shown;
      const tail = rest.split(/[\\/]/).join(posix.sep);
      return shown === '$GITHUB_WORKSPACE' ? tail : `${shown}/${tail}`;
    });
}

/** `value` with every string in it rewritten by `f` (plain JSON data: objects, arrays, strings, numbers). */
export function mapStrings<T>(value: T, f: (text: string) => string): T {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? f(v) : v))) as T;
}
