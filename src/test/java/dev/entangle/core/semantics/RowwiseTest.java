package dev.entangle.core.semantics;

import static dev.entangle.eval.Tensors.F32;
import static dev.entangle.eval.Tensors.apply;
import static dev.entangle.eval.Tensors.assertTensor;
import static dev.entangle.eval.Tensors.attrs;
import static dev.entangle.eval.Tensors.bits;
import static dev.entangle.eval.Tensors.f32;
import static dev.entangle.eval.Tensors.shape;

import dev.entangle.core.Op;
import dev.entangle.core.numeric.Tensor;
import org.junit.jupiter.api.Test;

/**
 * softmax, log-softmax, their gradients and the normalizations, against values worked out by hand.
 */
class RowwiseTest {
  private static final double LN3 = Math.log(3);

  @Test
  void softmaxAlongEitherDim() {
    assertTensor(
        apply(Op.SOFTMAX, attrs(1), f32(shape(1, 2), 0, LN3)), F32, shape(1, 2), 0.25, 0.75);
    assertTensor(
        apply(Op.SOFTMAX, attrs(0), f32(shape(2, 1), 0, LN3)), F32, shape(2, 1), 0.25, 0.75);
    assertTensor(
        apply(Op.SOFTMAX, attrs(0), f32(shape(2, 2), 0, 5, LN3, 5)),
        F32,
        shape(2, 2),
        0.25,
        0.5,
        0.75,
        0.5);
    assertTensor(
        apply(Op.LOG_SOFTMAX, attrs(1), f32(shape(1, 2), 0, LN3)),
        F32,
        shape(1, 2),
        Math.log(0.25),
        Math.log(0.75));
  }

  @Test
  void softmaxOfLargeValuesStaysFinite() {
    assertTensor(
        apply(Op.SOFTMAX, attrs(0), f32(shape(2), 1000, 1000 + LN3)), F32, shape(2), 0.25, 0.75);
  }

  @Test
  void gradientsOfSoftmaxAndLogSoftmax() {
    Tensor g = f32(shape(2), 1, 0);
    // y (g - sum(g y)) with y = [1/4, 3/4]
    assertTensor(
        apply(Op.SOFTMAX_BACKWARD, attrs(0), g, f32(shape(2), 0.25, 0.75)),
        F32,
        shape(2),
        0.1875,
        -0.1875);
    // g - exp(y) sum(g) with y = log [1/4, 3/4]
    assertTensor(
        apply(Op.LOG_SOFTMAX_BACKWARD, attrs(0), g, f32(shape(2), Math.log(0.25), Math.log(0.75))),
        F32,
        shape(2),
        0.75,
        -0.75);
  }

  @Test
  void layerNormOverTheLastDim() {
    Tensor x = f32(shape(2, 2), 1, 3, 0, 4);
    assertTensor(apply(Op.LN_NORMALIZE, attrs(1, bits(0)), x), F32, shape(2, 2), -1, 1, -1, 1);
    double r = 1 / Math.sqrt(2);
    assertTensor(
        apply(Op.LN_NORMALIZE, attrs(1, bits(1)), x),
        F32,
        shape(2, 2),
        -r,
        r,
        -2 / Math.sqrt(5),
        2 / Math.sqrt(5));
    assertTensor(apply(Op.LN_MEAN, attrs(1), x), F32, shape(2, 1), 2, 2);
    assertTensor(apply(Op.LN_RSTD, attrs(1, bits(0)), x), F32, shape(2, 1), 1, 0.5);
  }

  @Test
  void layerNormOverTheLastTwoDims() {
    Tensor x = f32(shape(1, 2, 2), 0, 1, 2, 3);
    assertTensor(apply(Op.LN_MEAN, attrs(2), x), F32, shape(1, 1, 1), 1.5);
    // biased variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25
    assertTensor(apply(Op.LN_RSTD, attrs(2, bits(0)), x), F32, shape(1, 1, 1), 1 / Math.sqrt(1.25));
  }

  @Test
  void rmsNorm() {
    assertTensor(
        apply(Op.RMS_NORMALIZE, attrs(1, bits(0)), f32(shape(1, 2), 3, 4)),
        F32,
        shape(1, 2),
        3 / Math.sqrt(12.5),
        4 / Math.sqrt(12.5));
    assertTensor(
        apply(Op.RMS_NORMALIZE, attrs(1, bits(0.5)), f32(shape(1, 2), 3, 4)),
        F32,
        shape(1, 2),
        3 / Math.sqrt(13),
        4 / Math.sqrt(13));
  }
}
