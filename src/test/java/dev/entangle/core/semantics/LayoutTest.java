package dev.entangle.core.semantics;

import static dev.entangle.eval.Tensors.F32;
import static dev.entangle.eval.Tensors.apply;
import static dev.entangle.eval.Tensors.assertTensor;
import static dev.entangle.eval.Tensors.attrs;
import static dev.entangle.eval.Tensors.f32;
import static dev.entangle.eval.Tensors.shape;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.entangle.core.Op;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Tensor;
import org.junit.jupiter.api.Test;

/** expand, reshape, permute, slice and concat against values worked out by hand. */
class LayoutTest {
  private static Tensor iota(long... shape) {
    double[] v = new double[(int) Tensor.numel(shape)];
    for (int i = 0; i < v.length; i++) {
      v[i] = i;
    }
    return f32(shape, v);
  }

  @Test
  void expandBroadcastsSizeOneDimsAndAddsLeadingDims() {
    assertTensor(
        apply(Op.EXPAND, attrs(2, 3, 2), f32(shape(3, 1), 1, 2, 3)),
        F32,
        shape(2, 3, 2),
        1,
        1,
        2,
        2,
        3,
        3,
        1,
        1,
        2,
        2,
        3,
        3);
    assertTensor(apply(Op.EXPAND, attrs(2, 2), f32(shape(), 7)), F32, shape(2, 2), 7, 7, 7, 7);
  }

  @Test
  void expandToAnIncompatibleShapeIsRefused() {
    EvalException e =
        assertThrows(EvalException.class, () -> apply(Op.EXPAND, attrs(2, 4), iota(2, 3)));
    assertEquals("expand: expand of [2, 3] to [2, 4]", e.getMessage());
  }

  @Test
  void reshapeKeepsRowMajorOrder() {
    assertTensor(apply(Op.RESHAPE, attrs(3, 2), iota(2, 3)), F32, shape(3, 2), 0, 1, 2, 3, 4, 5);
    assertThrows(EvalException.class, () -> apply(Op.RESHAPE, attrs(4, 2), iota(2, 3)));
  }

  @Test
  void permuteMovesDims() {
    assertTensor(apply(Op.PERMUTE, attrs(1, 0), iota(2, 3)), F32, shape(3, 2), 0, 3, 1, 4, 2, 5);
    Tensor p = apply(Op.PERMUTE, attrs(2, 0, 1), iota(2, 3, 4));
    assertEquals(4, p.size(0));
    // out[k][i][j] = x[i][j][k] = 12 i + 4 j + k
    assertEquals(12 * 1 + 4 * 2 + 3, p.get(3, 1, 2));
    assertEquals(4 * 1 + 2, p.get(2, 0, 1));
  }

  @Test
  void sliceWithAStep() {
    assertTensor(
        apply(Op.SLICE, attrs(1, 1, 6, 2), iota(2, 6)), F32, shape(2, 3), 1, 3, 5, 7, 9, 11);
    assertTensor(apply(Op.SLICE, attrs(0, 1, 2, 1), iota(3, 2)), F32, shape(1, 2), 2, 3);
    assertTensor(apply(Op.SLICE, attrs(1, 4, 6, 3), iota(2, 6)), F32, shape(2, 1), 4, 10);
  }

  @Test
  void anEmptySliceHasNoElements() {
    assertTensor(apply(Op.SLICE, attrs(0, 2, 2, 1), iota(3, 2)), F32, shape(0, 2));
  }

  @Test
  void negativeOrZeroStepsAndBoundsOutsideTheDimAreRefused() {
    EvalException negative =
        assertThrows(EvalException.class, () -> apply(Op.SLICE, attrs(0, 2, 0, -1), iota(3)));
    assertEquals("slice: slice [2:0:-1] of dim 0 of size 3", negative.getMessage());
    assertThrows(EvalException.class, () -> apply(Op.SLICE, attrs(0, 0, 2, 0), iota(3)));
    assertThrows(EvalException.class, () -> apply(Op.SLICE, attrs(0, 0, 4, 1), iota(3)));
  }

  @Test
  void concatAlongAnInnerDim() {
    assertTensor(
        apply(Op.CONCAT, attrs(1), f32(shape(2, 1), 1, 2), f32(shape(2, 2), 3, 4, 5, 6)),
        F32,
        shape(2, 3),
        1,
        3,
        4,
        2,
        5,
        6);
    assertTensor(
        apply(
            Op.CONCAT, attrs(0), f32(shape(1, 2), 1, 2), f32(shape(0, 2)), f32(shape(1, 2), 3, 4)),
        F32,
        shape(2, 2),
        1,
        2,
        3,
        4);
  }

  @Test
  void concatOfPartsThatDifferOffTheDimIsRefused() {
    EvalException e =
        assertThrows(EvalException.class, () -> apply(Op.CONCAT, attrs(0), iota(1, 2), iota(1, 3)));
    assertEquals("concat: concat along dim 0 of shapes [1, 2] and [1, 3]", e.getMessage());
  }
}
