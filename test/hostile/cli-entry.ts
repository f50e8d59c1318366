/** The CLI entry as bin/replaygate.js runs it, for tests that bundle the CLI (test/hostile/migration.test.ts). */
import { main } from '../../src/cli/index.js';

process.exitCode = await main(process.argv.slice(2));
