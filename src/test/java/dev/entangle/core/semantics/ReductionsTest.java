package dev.entangle.core.semantics;

import static dev.entangle.eval.Tensors.F32;
import static dev.entangle.eval.Tensors.I64;
import static dev.entangle.eval.Tensors.apply;
import static dev.entangle.eval.Tensors.assertTensor;
import static dev.entangle.eval.Tensors.attrs;
import static dev.entangle.eval.Tensors.f32;
import static dev.entangle.eval.Tensors.shape;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.Semantics;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Tensor;
import org.junit.jupiter.api.Test;

/** Reductions over dims and argmax, with and without keepdim, against values worked out by hand. */
class ReductionsTest {
  private static final Tensor X = f32(shape(2, 3), 1, 2, 3, 4, 5, 6);

  @Test
  void sumOverOneDimWithAndWithoutKeepdim() {
    assertTensor(apply(Op.RSUM, attrs(0, 1), X), F32, shape(2), 6, 15);
    assertTensor(apply(Op.RSUM, attrs(1, 1), X), F32, shape(2, 1), 6, 15);
    assertTensor(apply(Op.RSUM, attrs(0, 0, 1), X), F32, shape(), 21);
  }

  @Test
  void sumOverNonAdjacentDims() {
    double[] v = new double[8];
    for (int i = 0; i < 8; i++) {
      v[i] = i;
    }
    assertTensor(
        apply(Op.RSUM, attrs(0, 0, 2), f32(shape(2, 2, 2), v)),
        F32,
        shape(2),
        0 + 1 + 4 + 5,
        2 + 3 + 6 + 7);
    assertTensor(
        apply(Op.RSUM, attrs(1, 0, 2), f32(shape(2, 2, 2), v)), F32, shape(1, 2, 1), 10, 18);
  }

  @Test
  void meanMaxAndMin() {
    assertTensor(apply(Op.RMEAN, attrs(0, 0), X), F32, shape(3), 2.5, 3.5, 4.5);
    assertTensor(apply(Op.RAMAX, attrs(0, 1), X), F32, shape(2), 3, 6);
    assertTensor(apply(Op.RAMIN, attrs(1, 0), X), F32, shape(1, 3), 1, 2, 3);
  }

  @Test
  void maxAndMinPropagateNan() {
    Tensor x = f32(shape(3), 1, Double.NaN, 3);
    assertTensor(apply(Op.RAMAX, attrs(0, 0), x), F32, shape(), Double.NaN);
    assertTensor(apply(Op.RAMIN, attrs(0, 0), x), F32, shape(), Double.NaN);
  }

  @Test
  void reductionsOverNoElements() {
    Tensor empty = f32(shape(2, 0));
    assertTensor(apply(Op.RSUM, attrs(0, 1), empty), F32, shape(2), 0, 0);
    assertTensor(apply(Op.RMEAN, attrs(0, 1), empty), F32, shape(2), Double.NaN, Double.NaN);
    EvalException e = assertThrows(EvalException.class, () -> apply(Op.RAMAX, attrs(0, 1), empty));
    assertEquals("ramax over dims of size 0 has no value", e.getMessage());
  }

  @Test
  void argmaxTakesTheFirstMaximum() {
    Tensor x = f32(shape(2, 3), 1, 3, 3, 2, 1, 0);
    assertTensor(apply(Op.ARGMAX, attrs(0, 1), x), I64, shape(2), 1, 0);
    assertTensor(apply(Op.ARGMAX, attrs(1, 1), x), I64, shape(2, 1), 1, 0);
    assertTensor(apply(Op.ARGMAX, attrs(0, 0), x), I64, shape(3), 1, 0, 0);
    assertTensor(apply(Op.ARGMAX, attrs(0, 0), f32(shape(3), 1, Double.NaN, 5)), I64, shape(), 1);
  }

  @Test
  void aReductionOverADimOutsideTheTensorIsRefused() {
    assertThrows(EvalException.class, () -> apply(Op.RSUM, attrs(0, 2), X));
  }

  private static Double constantOf(Op op, long[] attrs, long[] shape, double value) {
    TypeInfo x = TypeInfo.constant(shape, F32, value);
    return op.semantics()
        .type(
            op,
            attrs,
            new TypeInfo[] {x},
            Semantics.Context.of(new OpTable(), id -> null, id -> null))
        .constant();
  }

  @Test
  void aReductionOfOneKnownValueIsKnown() {
    // a sum of ones is their count (the gradient of a bias under a loss summing the outputs)
    assertEquals(8.0, constantOf(Op.RSUM, attrs(0, 0), shape(8, 3), 1.0));
    assertEquals(24.0, constantOf(Op.RSUM, attrs(1, 0, 1), shape(8, 3), 1.0));
    assertEquals(0.5, constantOf(Op.RMEAN, attrs(0, 1), shape(8, 3), 0.5));
    assertEquals(-2.0, constantOf(Op.RAMAX, attrs(1, 0), shape(8, 3), -2.0));
    // a sum of 0.1s is not written as one exact double; an extreme of nothing is not the value
    assertNull(constantOf(Op.RSUM, attrs(0, 0), shape(3, 3), 0.1));
    assertNull(constantOf(Op.RAMAX, attrs(0, 0), shape(0, 3), 1.0));
  }
}
