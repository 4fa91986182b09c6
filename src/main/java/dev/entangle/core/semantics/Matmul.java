package dev.entangle.core.semantics;

import static dev.entangle.core.semantics.ShapeChecks.*;

import dev.entangle.core.Op;
import dev.entangle.core.Semantics;
import dev.entangle.core.ShapeException;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.Tensor;
import java.util.Arrays;

/**
 * {@code a[..., m, k] @ b[k, n]} and the batched {@code a[B..., m, k] @ b[B..., k, n]}. Each output
 * element sums its k products in increasing k (the blocking changes the loop order, not the order
 * of any sum), so results do not depend on the block sizes.
 */
public final class Matmul implements Semantics {
  /** The family's semantics, named by its operators in {@link Op}. */
  public static final Matmul SEMANTICS = new Matmul();

  private static final int BLOCK_I = 64;
  private static final int BLOCK_K = 256;
  private static final int BLOCK_J = 1024;

  private Matmul() {}

  /** The number of multiply-adds of {@code a @ b}. */
  public static long cost(long[] a, long[] b) {
    long batch = 1;
    for (int i = 0; i < a.length - 2; i++) {
      batch *= a[i];
    }
    return batch * a[a.length - 2] * a[a.length - 1] * b[b.length - 1];
  }

  public static double[] matmul(Tensor a, Tensor b, long[] outShape) {
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

  @Override
  public TypeInfo type(Op op, long[] attrs, TypeInfo[] c, Context context) {
    long[] x = c[0].shape();
    long[] y = c[1].shape();
    if (x.length < 2 || y.length < 2) {
      throw new ShapeException("matmul needs operands of at least 2 dims");
    }
    long k = x[x.length - 1];
    if (y[y.length - 2] != k) {
      throw new ShapeException(
          "matmul of "
              + Arrays.toString(x)
              + " and "
              + Arrays.toString(y)
              + ": inner sizes differ");
    }
    if (y.length != 2) {
      if (y.length != x.length) {
        throw new ShapeException("matmul of " + Arrays.toString(x) + " and " + Arrays.toString(y));
      }
      for (int i = 0; i < x.length - 2; i++) {
        if (x[i] != y[i]) {
          throw new ShapeException(
              "matmul of "
                  + Arrays.toString(x)
                  + " and "
                  + Arrays.toString(y)
                  + ": batch sizes differ");
        }
      }
    }
    long[] out = x.clone();
    out[out.length - 1] = y[y.length - 1];
    return TypeInfo.tensor(out, c[0].dtype());
  }

  @Override
  public double[] compute(Op op, long[] attrs, Tensor[] in, TypeInfo out, Context context) {
    return matmul(in[0], in[1], out.shape());
  }

  @Override
  public long cost(Op op, Tensor[] in, long elements) {
    return elements + cost(in[0].rawShape(), in[1].rawShape());
  }

  @Override
  public String shapeRule(Op op) {
    return "a[..., m, k] @ b[k, n] or a[B..., m, k] @ b[B..., k, n]: a's shape with n last";
  }
}
