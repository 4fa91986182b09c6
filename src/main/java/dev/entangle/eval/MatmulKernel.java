package dev.entangle.eval;

/**
 * {@code a[..., m, k] @ b[k, n]} and the batched {@code a[B..., m, k] @ b[B..., k, n]}. Each output
 * element sums its k products in increasing k (the blocking changes the loop order, not the order
 * of any sum), so results do not depend on the block sizes.
 */
final class MatmulKernel {
  private static final int BLOCK_I = 64;
  private static final int BLOCK_K = 256;
  private static final int BLOCK_J = 1024;

  private MatmulKernel() {}

  /** The number of multiply-adds of {@code a @ b}. */
  static long cost(long[] a, long[] b) {
    long batch = 1;
    for (int i = 0; i < a.length - 2; i++) {
      batch *= a[i];
    }
    return batch * a[a.length - 2] * a[a.length - 1] * b[b.length - 1];
  }

  static double[] matmul(Tensor a, Tensor b, long[] outShape) {
    long[] sa = a.rawShape();
    long[] sb = b.rawShape();
    int m = (int) sa[sa.length - 2];
    int k = (int) sa[sa.length - 1];
    int n = (int) sb[sb.length - 1];
    double[] out = new double[Tensor.checkedNumel(outShape)];
    if (m == 0 || n == 0) {
      return out;
    }
    int batches = out.length / (m * n);
    boolean batchedB = sb.length > 2;
    for (int t = 0; t < batches; t++) {
      multiply(a.raw(), t * m * k, b.raw(), batchedB ? t * k * n : 0, out, t * m * n, m, k, n);
    }
    return out;
  }

  /** c[m, n] += a[m, k] b[k, n], row-major, at the given offsets. */
  private static void multiply(
      double[] a, int ao, double[] b, int bo, double[] c, int co, int m, int k, int n) {
    for (int i0 = 0; i0 < m; i0 += BLOCK_I) {
      int i1 = Math.min(m, i0 + BLOCK_I);
      for (int k0 = 0; k0 < k; k0 += BLOCK_K) {
        int k1 = Math.min(k, k0 + BLOCK_K);
        for (int j0 = 0; j0 < n; j0 += BLOCK_J) {
          int j1 = Math.min(n, j0 + BLOCK_J);
          for (int i = i0; i < i1; i++) {
            int crow = co + i * n;
            int arow = ao + i * k;
            for (int p = k0; p < k1; p++) {
              double aip = a[arow + p];
              int brow = bo + p * n;
              for (int j = j0; j < j1; j++) {
                c[crow + j] += aip * b[brow + j];
              }
            }
          }
        }
      }
    }
  }
}
