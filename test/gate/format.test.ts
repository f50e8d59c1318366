import { describe, expect, it } from 'vitest';
import { formatFraction, formatIds, formatP, formatSigned } from '../../src/gate/format.js';

describe('gate number formatting', () => {
  it('signed values use a real minus and drop the sign at zero', () => {
    expect(formatSigned(0.016666)).toBe('+0.02');
    expect(formatSigned(-0.2284)).toBe('−0.23');
    expect(formatSigned(-0.001)).toBe('0.00');
  });
  it('p-values below 0.01 keep their size', () => {
    expect(formatP(1)).toBe('1.00');
    expect(formatP(0.0386)).toBe('0.04');
    expect(formatP(1.2905872820555464e-9)).toBe('1.3e-9');
  });
  it('small fractions keep two significant digits', () => {
    expect(formatFraction(4 / 12)).toBe('0.33');
    expect(formatFraction(4 / 972)).toBe('0.0041');
    expect(formatFraction(0)).toBe('0.00');
  });
  it('long id lists are cut with a count', () => {
    expect(formatIds(['a', 'b', 'c'], 2)).toBe('a, b, … (3 in all)');
  });
});
