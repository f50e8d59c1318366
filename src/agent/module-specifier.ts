/**
 * Module specifiers as Node reads them, for messages about a module that could not be loaded
 * (a `module` agent's imports: load-custom-agent.ts; a `command` agent's program: command-failure.ts).
 */

/** Whether a specifier names a package (`openai`, `@scope/x/y`) rather than a path or a URL. */
export function isBareSpecifier(specifier: string): boolean {
  return !/^(\.|\/|file:|[A-Za-z]:[\\/])/.test(specifier);
}

/** The package of a bare specifier: `openai/resources` → `openai`, `@scope/x/y` → `@scope/x`. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}
