import { describe, expect, it } from 'vitest';
import { parseSeeds } from '../../src/cli/options.js';

describe('--seeds', () => {
  it.each([
    ['5', [0, 1, 2, 3, 4]],
    ['0,3,7', [0, 3, 7]],
    ['7,', [7]],
    [' 2 , 4 ', [2, 4]],
  ])('%j → %j', (value, seeds) => {
    expect(parseSeeds(value)).toEqual(seeds);
  });
  it.each([['0', /count must be a whole number from 1 to 1000/], ['0,0', /seed 0 twice/], ['1,,2', /each seed must be a whole number/], ['five', /count/]])('refuses %j', (value, message) => {
    expect(() => parseSeeds(value)).toThrow(message);
  });
});
