import { describe, expect, it } from 'vitest';
import { logisticPredict, logisticRegression } from '../../src/stats/logistic-regression.js';

// R's datasets::mtcars: transmission (am: 1 = manual), weight (wt, 1000 lbs), gross horsepower (hp).
const AM = [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1];
const WT = [2.62, 2.875, 2.32, 3.215, 3.44, 3.46, 3.57, 3.19, 3.15, 3.44, 3.44, 4.07, 3.73, 3.78, 5.25, 5.424, 5.345, 2.2, 1.615, 1.835, 2.465, 3.52, 3.435, 3.84, 3.845, 1.935, 2.14, 1.513, 3.17, 2.77, 3.57, 2.78];
const HP = [110, 110, 93, 110, 175, 105, 245, 62, 95, 123, 123, 180, 180, 180, 205, 215, 230, 66, 52, 65, 97, 150, 150, 245, 175, 66, 91, 113, 264, 175, 335, 109];
const y = AM.map((v) => v === 1);

describe('logisticRegression (IRLS)', () => {
  it("matches R's glm(am ~ wt, data = mtcars, family = binomial)", () => {
    // R 4.2: coef(glm(am ~ wt, data = mtcars, family = binomial)) = 12.04036965896271, -4.02396994032789
    const fit = logisticRegression(WT.map((w) => [w]), y);
    expect(fit.converged).toBe(true);
    // R starts from μ = (y + ½)/2 and we from β = 0: both stop within glm's tolerance of the maximum.
    expect(fit.coefficients[0]).toBeCloseTo(12.04036965896271, 6);
    expect(fit.coefficients[1]).toBeCloseTo(-4.02396994032789, 6);
  });

  it("matches R's glm(am ~ hp + wt, data = mtcars, family = binomial): coefficients, deviance, iterations", () => {
    // R 4.2: coef(...) = 18.8662987172041312, 0.0362555960822166, -8.0834751824446371; deviance(m) = 10.059110472267; m$iter = 8
    const fit = logisticRegression(HP.map((h, i) => [h, WT[i] as number]), y);
    expect(fit.coefficients[0]).toBeCloseTo(18.8662987172041312, 7);
    expect(fit.coefficients[1]).toBeCloseTo(0.0362555960822166, 9);
    expect(fit.coefficients[2]).toBeCloseTo(-8.0834751824446371, 7);
    expect(fit.deviance).toBeCloseTo(10.059110472267, 9);
    expect(fit.iterations).toBe(8);
  });

  it('a ridge penalty (λ = 1): the penalised score is zero at the fit, and it agrees with a Newton iteration in R', () => {
    // R: X <- cbind(1, mtcars$hp, mtcars$wt); D <- diag(c(0, 1, 1)); b <- c(0, 0, 0)
    //    for (i in 1:100) { mu <- 1/(1 + exp(-X %*% b)); W <- as.vector(mu*(1 - mu))
    //      b <- b + solve(t(X) %*% (X*W) + D, t(X) %*% (mtcars$am - mu) - D %*% b) }
    //    b = 5.67734860643171846, 0.00968391333486693, -2.41867285124925413
    //    (optim BFGS and nlm stop early here: hp's scale is 100 times wt's)
    const rows = HP.map((h, i) => [h, WT[i] as number]);
    const fit = logisticRegression(rows, y, { ridge: 1 });
    expect(fit.converged).toBe(true);
    expect(fit.coefficients[0]).toBeCloseTo(5.67734860643171846, 9);
    expect(fit.coefficients[1]).toBeCloseTo(0.00968391333486693, 11);
    expect(fit.coefficients[2]).toBeCloseTo(-2.41867285124925413, 9);
    const b = fit.coefficients;
    const grad: [number, number, number] = [0, 0, 0];
    rows.forEach((row, i) => {
      const r = (AM[i] as number) - logisticPredict(b, row);
      grad[0] += r;
      grad[1] += r * (row[0] as number);
      grad[2] += r * (row[1] as number);
    });
    expect(grad[0]).toBeCloseTo(0, 9);
    expect(grad[1]! - (b[1] as number)).toBeCloseTo(0, 7);
    expect(grad[2]! - (b[2] as number)).toBeCloseTo(0, 8);
  });

  it('separation: no finite maximum-likelihood fit (the iteration stops far out, as glm does); a ridge penalty fits', () => {
    // R: y <- x <- c(0,0,0,1,1,1); coef(glm(y ~ x, family = binomial)) = -24.5660685235090, 49.1321382342093 (23 iterations)
    const x = [[0], [0], [0], [1], [1], [1]];
    const labels = [false, false, false, true, true, true];
    const ml = logisticRegression(x, labels);
    expect(ml.iterations).toBe(23);
    expect(ml.coefficients[1]).toBeGreaterThan(40);
    expect(ml.deviance).toBeLessThan(1e-8);
    const ridge = logisticRegression(x, labels, { ridge: 1 });
    expect(ridge.converged).toBe(true);
    expect(Math.abs(ridge.coefficients[1] as number)).toBeLessThan(5);
  });

  it('edge cases: no rows, mismatched lengths, constant feature without ridge, one class', () => {
    expect(() => logisticRegression([], [])).toThrow(/no observations/);
    expect(() => logisticRegression([[1]], [true, false])).toThrow(/1 rows of features but 2 labels/);
    expect(() => logisticRegression([[1], [1], [1]], [true, false, true])).toThrow(/singular/);
    expect(() => logisticRegression([[1], [Number.NaN]], [true, false])).toThrow(/finite/);
    // one class: the intercept runs off towards +∞ and stops there, never NaN
    const one = logisticRegression([[0], [1], [2]], [true, true, true]);
    expect(one.coefficients[0]).toBeGreaterThan(20);
    expect(one.coefficients.every(Number.isFinite)).toBe(true);
    expect(logisticPredict([0, 1], [0])).toBe(0.5);
  });
});
