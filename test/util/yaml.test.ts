import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/util/yaml.js';

describe('parseYaml', () => {
  it('keeps dates and codes as strings, numbers as numbers', () => {
    const y = parseYaml('a: 0123\nb: 2024-01-05\nc: 1.50\nd: 12\ne: 0x1F\ng: 12345678901234567\nlist:\n  - id: x\n    q: 1\n', 'f.yml');
    expect(y.value).toEqual({ a: '0123', b: '2024-01-05', c: 1.5, d: 12, e: '0x1F', g: '12345678901234567', list: [{ id: 'x', q: 1 }] });
    expect(y.where(['list', 0, 'q'])).toBe('f.yml:9');
  });
  it('names file and line of a syntax error', () => {
    expect(() => parseYaml('a: 1\nb: [\n', 'bad.yml')).toThrow(/^bad\.yml:\d+: malformed YAML/);
  });
  it('refuses duplicate keys, naming the line', () => {
    expect(() => parseYaml('a: 1\na: 2\n', 'dup.yml')).toThrow(/dup\.yml:2: malformed YAML: Map keys must be unique/);
  });
});
