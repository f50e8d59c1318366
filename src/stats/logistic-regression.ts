/** A fitted logistic regression (see {@link logisticRegression}). */
export interface LogisticFit {
  /** β₀ (intercept) then one coefficient per feature column, in column order. */
  readonly coefficients: readonly number[];
  /** Newton (IRLS) iterations taken. */
  readonly iterations: number;
  /** True when the change in deviance fell below the tolerance within `maxIterations`. */
  readonly converged: boolean;
  /** −2 × log-likelihood at the fit (without the penalty). */
  readonly deviance: number;
  /** The ridge penalty λ used (0 = maximum likelihood). */
  readonly ridge: number;
  readonly method: 'irls';
}

/** Options of {@link logisticRegression}. */
export interface LogisticOptions {
  /**
   * Ridge penalty λ on the feature coefficients (not the intercept): the fit maximises
   * log L − (λ/2)·Σβⱼ². Default 0 (maximum likelihood, as R's `glm`).
   */
  readonly ridge?: number;
  /** Default 25, as R's `glm.control(maxit = 25)`. */
  readonly maxIterations?: number;
  /** Relative change in deviance that ends the iteration; default 1e-8, as R's `glm.control(epsilon = 1e-8)`. */
  readonly tolerance?: number;
}

/**
 * Logistic regression y ~ x by Newton's method (iteratively reweighted least squares), the
 * algorithm of R's `glm(family = binomial)`: start from β = 0 (R starts from μ = (y + ½)/2, so
 * the two stop at points within the tolerance of each other), repeat
 * β ← β + (XᵀWX + λD)⁻¹ (Xᵀ(y − p) − λDβ) with p = σ(Xβ), W = diag(p(1 − p)), D = diag(0, 1, …, 1),
 * until |dev − dev_old| / (|dev| + 0.1) < tolerance (R's convergence test).
 *
 * Separation (a feature that splits the labels perfectly) has no finite maximum-likelihood
 * fit: the deviance creeps towards 0 and the iteration stops, as `glm`'s does, at large
 * coefficients that are where it stopped, not estimates (R: −24.57 and 49.13 for
 * y = x = (0,0,0,1,1,1); here −24.20 and 48.41). A ridge penalty λ > 0 always has a finite fit:
 * use one wherever separation can occur.
 *
 * Source: McCullagh & Nelder, Generalized Linear Models (2nd ed., 1989), §2.5 and §4.4; R's
 * `glm.fit`. Reference: `glm(am ~ hp + wt, data = mtcars, family = binomial)` in R 4.2 gives
 * (Intercept) 18.8662987172041, hp 0.0362555960822166, wt −8.08347518244464 in 8 iterations.
 *
 * @param x - n rows of features (without the intercept column; it is added), every row the same length.
 * @param y - n labels, `true` = 1.
 * @param options - ridge penalty, iteration limit and tolerance.
 * @throws RangeError when x and y differ in length, rows differ in width, n = 0, a value is
 *   not finite, or the system is singular (a feature constant or collinear with others and λ = 0).
 * @example logisticRegression(mtcars.map((c) => [c.wt]), mtcars.map((c) => c.am === 1)).coefficients
 * // [12.04036965896271, -4.02396994032789]
 */
export function logisticRegression(x: readonly (readonly number[])[], y: readonly boolean[], options: LogisticOptions = {}): LogisticFit {
  const n = x.length;
  if (n !== y.length) throw new RangeError(`logisticRegression: ${n} rows of features but ${y.length} labels`);
  if (n === 0) throw new RangeError('logisticRegression: no observations');
  const width = x[0]?.length ?? 0;
  for (const [i, row] of x.entries()) {
    if (row.length !== width) throw new RangeError(`logisticRegression: row ${i} has ${row.length} features, row 0 has ${width}`);
    if (!row.every(Number.isFinite)) throw new RangeError(`logisticRegression: row ${i} has a value that is not a finite number`);
  }
  const ridge = options.ridge ?? 0;
  if (!(ridge >= 0)) throw new RangeError(`logisticRegression: the ridge penalty must be ≥ 0, got ${ridge}`);
  const maxIterations = options.maxIterations ?? 25;
  const tolerance = options.tolerance ?? 1e-8;
  const p = width + 1;
  const design = x.map((row) => [1, ...row]);
  const target = y.map((v) => (v ? 1 : 0));
  let beta = new Array<number>(p).fill(0);
  let deviance = devianceOf(design, target, beta);
  let iterations = 0;
  let converged = false;
  while (iterations < maxIterations) {
    iterations += 1;
    const gradient = new Array<number>(p).fill(0);
    const hessian = Array.from({ length: p }, () => new Array<number>(p).fill(0));
    for (let i = 0; i < n; i += 1) {
      const row = design[i] as number[];
      const mu = sigmoid(dot(row, beta));
      const w = mu * (1 - mu);
      const r = (target[i] as number) - mu;
      for (let a = 0; a < p; a += 1) {
        gradient[a] = (gradient[a] as number) + (row[a] as number) * r;
        const ha = hessian[a] as number[];
        for (let b = 0; b < p; b += 1) ha[b] = (ha[b] as number) + w * (row[a] as number) * (row[b] as number);
      }
    }
    for (let a = 1; a < p; a += 1) {
      gradient[a] = (gradient[a] as number) - ridge * (beta[a] as number);
      (hessian[a] as number[])[a] = ((hessian[a] as number[])[a] as number) + ridge;
    }
    const step = solve(hessian, gradient);
    beta = beta.map((v, a) => v + (step[a] as number));
    const next = devianceOf(design, target, beta);
    const change = Math.abs(next - deviance) / (Math.abs(next) + 0.1);
    deviance = next;
    if (change < tolerance) {
      converged = true;
      break;
    }
  }
  return { coefficients: beta, iterations, converged, deviance, ridge, method: 'irls' };
}

/**
 * The fitted probability σ(β₀ + Σ βⱼ xⱼ) of one feature row.
 *
 * @example logisticPredict([0, 1], [0]) // 0.5
 */
export function logisticPredict(coefficients: readonly number[], row: readonly number[]): number {
  if (row.length + 1 !== coefficients.length) throw new RangeError(`logisticPredict: ${coefficients.length} coefficients but ${row.length} features`);
  return sigmoid(dot([1, ...row], coefficients));
}

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i += 1) s += (a[i] as number) * (b[i] as number);
  return s;
}

/** −2 log L, computed stably from the linear predictor. */
function devianceOf(design: readonly (readonly number[])[], target: readonly number[], beta: readonly number[]): number {
  let ll = 0;
  for (let i = 0; i < design.length; i += 1) {
    const z = dot(design[i] as number[], beta);
    // log σ(z) = −log(1 + e^−z); log(1 − σ(z)) = −log(1 + e^z)
    ll += target[i] === 1 ? -softplus(-z) : -softplus(z);
  }
  return -2 * ll;
}

function softplus(z: number): number {
  return z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
}

/** Solves A s = g by Gaussian elimination with partial pivoting (A is small and symmetric). */
function solve(a: readonly (readonly number[])[], g: readonly number[]): number[] {
  const p = g.length;
  const m = a.map((row, i) => [...row, g[i] as number]);
  for (let c = 0; c < p; c += 1) {
    let pivot = c;
    for (let r = c + 1; r < p; r += 1) if (Math.abs((m[r] as number[])[c] as number) > Math.abs((m[pivot] as number[])[c] as number)) pivot = r;
    const scale = Math.max(...m.map((row) => Math.abs(row[c] as number)), 1);
    if (Math.abs((m[pivot] as number[])[c] as number) < 1e-12 * scale) {
      throw new RangeError('logisticRegression: singular system (a feature is constant or collinear with others); drop it or use a ridge penalty');
    }
    [m[c], m[pivot]] = [m[pivot] as number[], m[c] as number[]];
    const rowC = m[c] as number[];
    for (let r = 0; r < p; r += 1) {
      if (r === c) continue;
      const rowR = m[r] as number[];
      const f = (rowR[c] as number) / (rowC[c] as number);
      if (f === 0) continue;
      for (let k = c; k <= p; k += 1) rowR[k] = (rowR[k] as number) - f * (rowC[k] as number);
    }
  }
  return m.map((row, i) => (row[p] as number) / (row[i] as number));
}
