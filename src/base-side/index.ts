/**
 * The base side of a comparison, shared by the GitHub Action and `replaygate gate --base-ref`:
 * a git ref's files materialised into a temporary folder (git.ts, checkout.ts), paths inside
 * it mapped back to `path at base <sha>` (path-map.ts), a broken base told apart from a
 * broken head (base-load-error.ts), and the base-versus-head gate itself (gate-sides.ts).
 */
export { BaseLoadError, onBase } from './base-load-error.js';
export { checkoutBase, type BaseCheckout, type CheckoutBaseOptions } from './checkout.js';
export { decideAgent, gateAgainstBase, heldOutSplit, prepareSides, type AgentGate, type GateSidesOptions, type HeldOutSplit, type PreparedSides, type SidesGate } from './gate-sides.js';
export { changedFiles, git, GitError, materialiseCommit, repositoryRoot, resolveCommit, type ChangedFile, type GitCaller } from './git.js';
export { basePathMapper, identityMap, mapLogger, type TextMap } from './path-map.js';
