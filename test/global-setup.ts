import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The tests read the public data set (benchmark databases, published predictions) from
 * `../shared/data` beside the repository, as CI lays it out. Without it, say so once instead of
 * failing sixty tests with ENOENT.
 */
export default function checkSharedData(): void {
  const data = resolve(import.meta.dirname, '..', '..', 'shared', 'data');
  if (!existsSync(join(data, 'spider', 'dev.json'))) {
    throw new Error(
      `The tests need the public data set at ${data} (Spider databases and questions, published predictions; see the README). ` +
        'Place the shared/ folder beside this repository and run npm test again.',
    );
  }
}
