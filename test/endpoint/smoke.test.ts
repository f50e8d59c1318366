import { afterAll, beforeAll, expect, it } from 'vitest';
import { cli } from '../record/helpers.js';
import { copyExample, EXAMPLE_CANDIDATES, type ExampleCopy } from './example-project.js';
import { startFakeModelServer, type FakeModelServer } from './fake-model-server.js';

let fake: FakeModelServer;
let project: ExampleCopy;
beforeAll(async () => {
  fake = await startFakeModelServer(EXAMPLE_CANDIDATES);
  project = copyExample();
});
afterAll(async () => {
  await fake.close();
  project.remove();
});

it('records and replays the python agent', async () => {
  const rec = await cli(['record', '-a', process.env.AG ?? 'python-agent', '--no-progress'], project.root, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-abcdefgh' });
  console.log(rec);
  console.log(fake.requests.length);
  const score = await cli(['score', '-a', process.env.AG ?? 'python-agent', '--no-progress'], project.root, {});
  console.log(score);
});
