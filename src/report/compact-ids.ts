/** Question ids listed in few characters, for terminal lines (pure). */

/**
 * Ids listed compactly: after the first, an id that shares the first id's prefix (ending in
 * `-`, `_`, `.`, `:` or `/`) before its trailing number is written as that number alone (a note after a space, like ` ×3`, is kept);
 * at most `max`, then the count.
 * @example compactIds(['chq-001', 'chq-002', 'chq-006'], 10) // 'chq-001, 002, 006'
 * @example compactIds(['a-1', 'a-2', 'a-3'], 2) // 'a-1, 2, … (3 in all)'
 * @example compactIds(['q-01 ×2', 'q-07 ×1']) // 'q-01 ×2, 07 ×1'
 */
export function compactIds(ids: readonly string[], max = 10): string {
  // The prefix must end in a separator (`chq-`, `spider-dev-`), so that hex ids never shorten.
  const prefixOf = (id: string): string | undefined => /^(.*?[-_.:/])\d+(?:\s.*)?$/.exec(id)?.[1];
  const first = ids[0];
  const prefix = first === undefined ? undefined : prefixOf(first);
  const shown = ids.slice(0, max).map((id, i) => (i > 0 && prefix !== undefined && prefix !== '' && prefixOf(id) === prefix ? id.slice(prefix.length) : id));
  return `${shown.join(', ')}${ids.length > max ? `, … (${ids.length} in all)` : ''}`;
}

