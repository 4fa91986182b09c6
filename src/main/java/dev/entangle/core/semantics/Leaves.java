package dev.entangle.core.semantics;

import dev.entangle.core.Op;
import dev.entangle.core.Semantics;
import dev.entangle.core.ShapeException;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Rounding;
import dev.entangle.core.numeric.Tensor;
import java.util.Arrays;

/**
 * Operators of no operands: a G_d {@code tensor}, the constants {@code scalar}, {@code full} and
 * {@code arange} (their values rounded to their dtype), and {@code undef}, memory whose contents
 * are not defined.
 */
public final class Leaves implements Semantics {
  /** The family's semantics, named by its operators in {@link Op}. */
  public static final Leaves SEMANTICS = new Leaves();

  private Leaves() {}

  @Override
  public TypeInfo type(Op op, long[] a, TypeInfo[] c, Context context) {
    return switch (op) {
      case TENSOR -> context.tensorType(a[0]);
      case SCALAR -> TypeInfo.constant(new long[0], (int) a[1], Double.longBitsToDouble(a[0]));
      case FULL ->
          TypeInfo.constant(ShapeChecks.tail(a, 2), (int) a[1], Double.longBitsToDouble(a[0]));
      case ARANGE -> TypeInfo.tensor(new long[] {arangeLength(a[0], a[1], a[2])}, (int) a[3]);
      default -> TypeInfo.tensor(ShapeChecks.tail(a, 2), (int) a[1]);
    };
  }

  @Override
  public double[] compute(Op op, long[] a, Tensor[] in, TypeInfo out, Context context) {
    double[] v = new double[Tensor.checkedNumel(out.shape())];
    switch (op) {
      case TENSOR -> {
        return context.tensorValue(a[0]).raw().clone();
      }
      case SCALAR, FULL -> Arrays.fill(v, Rounding.to((int) a[1], Double.longBitsToDouble(a[0])));
      case ARANGE -> {
        for (int i = 0; i < v.length; i++) {
          v[i] = Rounding.to((int) a[3], a[0] + (double) i * a[2]);
        }
      }
      default ->
          throw new EvalException("uninitialized memory or a random sample has no defined value");
    }
    return v;
  }

  @Override
  public boolean hasKernel(Op op) {
    return op != Op.UNDEF;
  }

  @Override
  public String shapeRule(Op op) {
    return switch (op) {
      case TENSOR -> "the G_d tensor's";
      case SCALAR -> "0-d; dtype [dtype]";
      case FULL -> "[sizes...]; dtype [dtype]";
      case ARANGE -> "1-d, the number of steps from [start] to [end]; dtype [dtype]";
      default -> "[sizes...]; dtype [dtype]; never equal to another value";
    };
  }

  /** Number of elements of {@code arange(start, end, step)}. */
  public static long arangeLength(long start, long end, long step) {
    if (step == 0) {
      throw new ShapeException("arange with step 0");
    }
    long n =
        step > 0
            ? Math.floorDiv(end - start + step - 1, step)
            : Math.floorDiv(start - end - step - 1, -step);
    return Math.max(0, n);
  }
}
