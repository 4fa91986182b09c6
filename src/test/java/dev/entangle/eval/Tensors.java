package dev.entangle.eval;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.Tensor;

/** Test fixture: tensors written inline, kernels applied, results compared. */
public final class Tensors {
  public static final int F32 = Dtype.FLOAT32.code();
  public static final int I64 = Dtype.INT64.code();
  public static final int BOOL = Dtype.BOOL.code();
  public static final int F16 = Dtype.code("float16");
  public static final int BF16 = Dtype.code("bfloat16");
  public static final int F64 = Dtype.code("float64");

  private Tensors() {}

  public static long[] shape(long... s) {
    return s;
  }

  public static long[] attrs(long... a) {
    return a;
  }

  public static Tensor f32(long[] shape, double... v) {
    return Tensor.of(F32, shape, v);
  }

  public static Tensor i64(long[] shape, double... v) {
    return Tensor.of(I64, shape, v);
  }

  public static Tensor bool(long[] shape, double... v) {
    return Tensor.of(BOOL, shape, v);
  }

  public static long bits(double v) {
    return Double.doubleToLongBits(v);
  }

  public static Kernels kernels() {
    return new Kernels(new OpTable(), WorkBudget.unlimited());
  }

  public static Tensor apply(Op op, long[] attrs, Tensor... in) {
    return kernels().apply(op.id(), attrs, in);
  }

  /** Asserts shape, dtype and elements (within 1e-12, NaN equal to NaN). */
  public static void assertTensor(Tensor t, int dtype, long[] shape, double... values) {
    assertArrayEquals(shape, t.shape(), "shape of " + t);
    assertEquals(Dtype.name(dtype), Dtype.name(t.dtype()), "dtype of " + t);
    assertArrayEquals(values, t.values(), 1e-12, "elements of " + t);
  }
}
