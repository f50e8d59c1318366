/** Types of scripts/docs/generate.mjs for the staleness test. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly both: string;
}
export type RunCli = (argv: readonly string[], options: { readonly cwd: string; readonly env: Record<string, string> }) => Promise<CliRun>;
export interface Changed {
  readonly file: string;
  readonly before: string;
  readonly after: string;
}
export function docFiles(root: string): string[];
/** The admin URL of a PostgreSQL cluster for `pg=ENV` blocks; `null` leaves those blocks as they are. */
export type PostgresProvider = (() => Promise<string>) | null;
export function generate(
  text: string,
  options: { root: string; file: string; run: RunCli; useCache?: boolean; cache?: Record<string, unknown>; postgres?: PostgresProvider },
): Promise<string>;
export function generateAll(options: { root: string; run: RunCli; check?: boolean; useCache?: boolean; files?: readonly string[]; postgres?: PostgresProvider }): Promise<Changed[]>;
export function firstDifference(before: string, after: string): string;
export function inProcessRunner(main: (argv: string[], overrides: object) => Promise<number>): RunCli;
