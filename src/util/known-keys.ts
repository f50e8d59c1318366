import leven from 'leven';

/**
 * The known key nearest to an unknown one, for "did you mean …?": the closest by Levenshtein
 * distance (the `leven` package) when it is at most 40% of the longer name's length
 * (at least 1, at most 3 edits), or the known key that differs only in case, `-`/`_` or
 * spacing. Ties go to the first known key.
 * @returns undefined when no known key is near enough to be a likely typo.
 * @example nearestKey('temprature', ['model', 'temperature', 'top_p']) // 'temperature'
 * @example nearestKey('colour', ['model', 'prompt']) // undefined
 */
export function nearestKey(key: string, known: Iterable<string>): string | undefined {
  const fold = (s: string): string => s.toLowerCase().replace(/[-\s]/g, '_');
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    if (fold(candidate) === fold(key)) return candidate;
    const limit = Math.min(3, Math.max(1, Math.round(Math.max(key.length, candidate.length) * 0.4)));
    const distance = leven(fold(key), fold(candidate), { maxDistance: limit + 1 });
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The message for an unknown key: names it (with its section, e.g. `agents.a.temprature`),
 * suggests the nearest known key, and lists the known ones.
 * @param key - the unknown key as written.
 * @param known - the keys allowed at that place.
 * @param section - dotted path of the mapping holding the key (`''` at the top level).
 * @example unknownKeyMessage('temprature', ['model', 'temperature'], 'agents.a')
 * // "unknown key 'agents.a.temprature': did you mean 'temperature'? (known: model, temperature)"
 */
export function unknownKeyMessage(key: string, known: readonly string[], section = ''): string {
  const full = section === '' ? key : `${section}.${key}`;
  const near = nearestKey(key, known);
  const list = known.length === 0 ? 'this section takes no keys' : `known: ${known.join(', ')}`;
  return `unknown key '${full}'${near === undefined ? '' : `: did you mean '${near}'?`} (${list})`;
}

/**
 * Refuses the first key of `value` that is not in `known`.
 * @param where - `file:line` of a key, for the message.
 * @param fail - builds the error (ConfigError or DataError) from a message and a place.
 * @throws whatever `fail` builds, for the first unknown key in document order.
 * @example rejectUnknownKeys({ modle: 'x' }, ['model'], (k) => `a.yml:${k}`, (m, w) => new ConfigError(m, w))
 * // throws "a.yml:modle: unknown key 'modle': did you mean 'model'? (known: model)"
 */
export function rejectUnknownKeys(
  value: Readonly<Record<string, unknown>>,
  known: readonly string[],
  where: (key: string) => string,
  fail: (message: string, where: string) => Error,
  section = '',
): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw fail(unknownKeyMessage(key, known, section), where(key));
  }
}
