/**
 * Entry of the GitHub Action (bundled to dist/index.js by scripts/build-action.mjs): wires the
 * real pipeline into {@link run}. Nothing else happens here, so `run` is tested with fakes.
 * The runner's Node 24 has `node:sqlite`, and dist/ ships no native addon: the warehouse uses it.
 */
import { run } from './main.js';
import { pipelineGate } from './pipeline-gate.js';

await run({ runGate: pipelineGate({ driver: 'node:sqlite' }) });
