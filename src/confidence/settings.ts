import { relative, resolve } from 'node:path';
import { isInside, realPathOf } from '../config/paths.js';
import type { ProjectConfig } from '../config/types.js';
import { ConfigError } from '../util/errors.js';
import { rejectUnknownKeys } from '../util/known-keys.js';
import { loadYamlFile } from '../util/yaml.js';
import type { MatchPolicy } from './policy.js';
import { readThresholdsFile, thresholdsLine, type ThresholdsFile } from './thresholds-file.js';

/** The `confidence:` section of replaygate.yml, validated. */
export interface ConfidenceSettings {
  /** Fitted thresholds (`confidence: thresholds: <file>`), when configured. */
  readonly thresholds?: { readonly file: string; readonly name: string; readonly value: ThresholdsFile };
  /** Approved definitions (`confidence: definitions: <file or folder, or a list>`), absolute paths. */
  readonly definitions: readonly string[];
}

/** Keys of the `confidence:` section (src/config checks them when the config loads). */
export const CONFIDENCE_KEYS: readonly string[] = ['thresholds', 'definitions'];

/**
 * Validates the `confidence:` section of a project's config and reads the thresholds file it
 * names.
 *
 * ```yaml
 * confidence:
 *   thresholds: confidence-thresholds.yml   # written by `replaygate confidence calibrate`
 *   definitions: definitions                # approved definitions (a folder of *.yml, a file, or a list)
 * ```
 *
 * @throws ConfigError naming `replaygate.yml:line` for an unknown key or a value of the wrong
 *   type, and the thresholds file's own errors (file:line).
 * @example (await confidenceSettings(project.config)).thresholds?.value.passAt // 0.8
 */
export async function confidenceSettings(config: ProjectConfig): Promise<ConfidenceSettings> {
  const raw = config.confidence;
  if (Object.keys(raw).length === 0) return { definitions: [] };
  const yaml = await loadYamlFile(config.file);
  const name = relative(process.cwd(), config.file) || config.file;
  const at = (...keys: string[]): string => yaml.where(['confidence', ...keys]).replace(config.file, name);
  rejectUnknownKeys(raw, CONFIDENCE_KEYS, at, (message, where) => new ConfigError(message, where), 'confidence');
  let thresholds: ConfidenceSettings['thresholds'];
  const t = raw['thresholds'];
  if (t !== undefined) {
    if (typeof t !== 'string' || t.trim() === '') throw new ConfigError("'confidence.thresholds' must be the path of a thresholds file (written by `replaygate confidence calibrate`)", at('thresholds'));
    const file = inside(config.root, t, 'confidence.thresholds', at('thresholds'));
    thresholds = { file, name: t, value: await readThresholdsFile(file, t) };
  }
  const d = raw['definitions'];
  let definitions: string[] = [];
  if (d !== undefined) {
    const list = typeof d === 'string' ? [d] : d;
    if (!Array.isArray(list) || list.length === 0 || !list.every((x) => typeof x === 'string' && x.trim() !== '')) {
      throw new ConfigError("'confidence.definitions' must be a file or folder of approved definitions, or a list of them", at('definitions'));
    }
    definitions = (list as string[]).map((x) => inside(config.root, x, 'confidence.definitions', at('definitions')));
  }
  return { ...(thresholds !== undefined ? { thresholds } : {}), definitions };
}

/**
 * A path of the config resolved against its folder; it must stay inside the project (the product
 * reads nothing outside it) once symbolic links are resolved: a link inside the project that
 * leads out of it is refused like `../x`.
 */
function inside(root: string, path: string, key: string, where: string): string {
  const file = resolve(root, path);
  const realRoot = realPathOf(root);
  const real = realPathOf(file);
  if (real === realRoot || !isInside(realRoot, real)) {
    const through = real !== file ? ` (it leads through a symbolic link to ${real})` : '';
    throw new ConfigError(`'${key}' must name a file or folder inside the project (${root}), got ${JSON.stringify(path)}${through}`, where);
  }
  return file;
}

/** What a gate run is, for comparing a thresholds file with it: seeds per question and the matching policy of its labels. */
export interface GateRunShape {
  /** Seeds per question (the K of `confidence`). */
  readonly k: number;
  /** The gate's matching mode (`match:` of replaygate.yml): what "correct" means, the label policy. */
  readonly labelPolicy: MatchPolicy;
}

/**
 * The one line the gate and the Action print about the confidence thresholds a project uses
 * (`confidence: thresholds:`), after validating the `confidence:` section and the file; undefined
 * when none is configured. Given the gate's run, a file fitted for another K (seeds per question)
 * or on labels of another matching policy is flagged in that line, naming the file and both
 * values: its thresholds and held-out figures describe other scores or another "correct".
 *
 * @throws ConfigError / DataError naming file and line for a bad section or thresholds file.
 * @example await confidenceThresholdsNote(project.config, { k: 10, labelPolicy: 'relaxed' })
 * // 'Confidence thresholds: confidence-thresholds.yml does not fit this gate: k: fitted for K = 5 samples per question, this gate runs K = 10 seeds … — …'
 */
export async function confidenceThresholdsNote(config: ProjectConfig, run?: GateRunShape): Promise<string | undefined> {
  const t = (await confidenceSettings(config)).thresholds;
  if (t === undefined) return undefined;
  const misfit = run === undefined ? [] : thresholdsGateMismatch(t.value, run);
  if (misfit.length === 0) return `Confidence thresholds: ${thresholdsLine(t.value, t.name)}`;
  return `Confidence thresholds: ${t.name} does not fit this gate: ${misfit.join('; ')}; calibrate again on these runs (\`replaygate confidence calibrate\`). The file: ${thresholdsLine(t.value, t.name)}`;
}

/**
 * How a thresholds file differs from a gate's run: another K (agreement takes K + 1 values, so the
 * scores the thresholds cut are other scores) or another label policy (the target pass accuracy
 * was set under another meaning of "correct"). Each entry names the field and both values.
 *
 * @example thresholdsGateMismatch(file, { k: 10, labelPolicy: 'exact' })
 * // ['k: fitted for K = 5 samples per question, this gate runs K = 10 seeds per question', 'label_policy: fitted on relaxed labels, this gate matches exact']
 */
export function thresholdsGateMismatch(file: ThresholdsFile, run: GateRunShape): string[] {
  const out: string[] = [];
  if (file.k !== run.k) out.push(`k: fitted for K = ${file.k} samples per question, this gate runs K = ${run.k} seed${run.k === 1 ? '' : 's'} per question`);
  if (file.labelPolicy !== 'file' && file.labelPolicy !== run.labelPolicy) out.push(`label_policy: fitted on ${file.labelPolicy} labels, this gate matches ${run.labelPolicy} (match: in the config)`);
  return out;
}
