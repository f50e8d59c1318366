export { loadGoldenQuestions, parseGoldenYaml } from './load.js';
export type { GoldenQuestion, QuestionKind, Split } from './types.js';
