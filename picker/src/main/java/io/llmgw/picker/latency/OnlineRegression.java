package io.llmgw.picker.latency;

/**
 * Least squares fitted online with exponential forgetting and a small ridge: the normal equations are kept decayed by
 * {@code decay} per observation, so the fit follows a pod whose behaviour drifts, and the ridge keeps them solvable
 * while a feature has not varied yet. The first feature is the constant 1 and is not shrunk: a feature that has not
 * varied yet takes no share of the constant (a pod only ever seen under one request would otherwise be predicted at
 * half its latency when idle). The fit is solved when next read, not on every observation: every request observes,
 * few predictions read, and a burst of observations between two reads is solved once. Not thread-safe.
 */
public final class OnlineRegression {
  private final int d;
  private final double decay;
  private final double ridge;
  private final double[][] a;
  private final double[] b;
  private final double[] theta;
  private double weight;
  private boolean unsolved;

  public OnlineRegression(int features, double decay, double ridge) {
    this.d = features;
    this.decay = decay;
    this.ridge = ridge;
    this.a = new double[d][d];
    this.b = new double[d];
    this.theta = new double[d];
  }

  public void observe(double[] x, double y) {
    for (int i = 0; i < d; i++) {
      b[i] = b[i] * decay + x[i] * y;
      for (int j = 0; j < d; j++) {
        a[i][j] = a[i][j] * decay + x[i] * x[j];
      }
    }
    weight = weight * decay + 1;
    unsolved = true;
  }

  public double predict(double[] x) {
    solveIfObserved();
    double y = 0;
    for (int i = 0; i < d; i++) {
      y += theta[i] * x[i];
    }
    return y;
  }

  /** The fitted weights, one per feature. */
  public double[] weights() {
    solveIfObserved();
    return theta.clone();
  }

  /** The decayed number of observations behind the fit. */
  public double weight() {
    return weight;
  }

  private void solveIfObserved() {
    if (unsolved) {
      unsolved = false;
      solve();
    }
  }

  /** Gaussian elimination with partial pivoting on (A + ridge·I') θ = b, I' the identity without the constant. */
  private void solve() {
    double[][] m = new double[d][d + 1];
    for (int i = 0; i < d; i++) {
      System.arraycopy(a[i], 0, m[i], 0, d);
      m[i][i] += i == 0 ? 0 : ridge;
      m[i][d] = b[i];
    }
    for (int col = 0; col < d; col++) {
      int pivot = col;
      for (int r = col + 1; r < d; r++) {
        if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) {
          pivot = r;
        }
      }
      double[] t = m[col];
      m[col] = m[pivot];
      m[pivot] = t;
      if (Math.abs(m[col][col]) < 1e-12) {
        return; // keep the previous fit rather than divide by nothing
      }
      for (int r = col + 1; r < d; r++) {
        double f = m[r][col] / m[col][col];
        for (int c = col; c <= d; c++) {
          m[r][c] -= f * m[col][c];
        }
      }
    }
    for (int i = d - 1; i >= 0; i--) {
      double s = m[i][d];
      for (int j = i + 1; j < d; j++) {
        s -= m[i][j] * theta[j];
      }
      theta[i] = s / m[i][i];
    }
  }
}
