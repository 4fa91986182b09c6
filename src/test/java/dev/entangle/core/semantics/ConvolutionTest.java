package dev.entangle.core.semantics;

import static dev.entangle.eval.Tensors.F32;
import static dev.entangle.eval.Tensors.apply;
import static dev.entangle.eval.Tensors.assertTensor;
import static dev.entangle.eval.Tensors.f32;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.ShapeException;
import dev.entangle.core.TypeInfo;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Convolutions and their gradients against values PyTorch computed ({@code F.conv1d}, {@code
 * F.conv2d} and autograd, in float64 on small integers, so every value is exact): padding, stride
 * over two spatial dims, dilation with groups.
 */
class ConvolutionTest {
  // PADDED
  private static final long[] PADDED_ATTRS = {1, 1, 1, 1, 1};
  private static final long[] PADDED_X_SHAPE = {2, 3, 5};
  private static final double[] PADDED_X = {
    1, 0, -3, -1, -2, -1, 3, 0, 1, 2, -1, -3, -2, 2, -1, 1, 1, -1, 1, -1, 3, -1, 1, -1, 1, 1, -2, 0,
    -2, 1
  };
  private static final long[] PADDED_W_SHAPE = {4, 3, 3};
  private static final double[] PADDED_W = {
    -2, -3, 1, 2, 0, 1, 0, -1, -2, 1, 1, -3, -3, 2, 3, 1, 2, 1, 1, 2, 3, 1, 0, 2, 0, 2, -2, 1, -1,
    -1, 0, -1, 3, -1, -2, -3
  };
  private static final long[] PADDED_Y_SHAPE = {2, 4, 5};
  private static final double[] PADDED_Y = {
    7, 0, 13, 9, 11, 3, 10, -11, 11, -2, 12, -11, -12, -1, -6, 20, 14, 8, 6, -1, 0, 3, 3, 1, -2, 1,
    -6, -5, -2, 5, 9, 1, 3, -5, 0, -4, 8, 5, 4, 1
  };
  private static final long[] PADDED_GY_SHAPE = {2, 4, 5};
  private static final double[] PADDED_GY = {
    -3, -3, 0, 1, -3, 2, -2, 0, 1, 2, 1, 1, 2, 2, 0, 3, 2, 0, 3, -1, -2, 2, 0, -2, -3, 0, -3, 0, 2,
    0, 0, 2, 1, -2, 0, 2, -3, 1, -1, 3
  };
  private static final long[] PADDED_GX_SHAPE = {2, 3, 5};
  private static final double[] PADDED_GX = {
    17, 0, 12, 12, 13, 2, 10, 0, -9, 22, -1, -6, -2, -2, -5, -4, -4, 24, 16, -7, 13, 2, -25, 4, -6,
    -2, -1, 1, -4, 10
  };
  private static final long[] PADDED_GW_SHAPE = {4, 3, 3};
  private static final double[] PADDED_GW = {
    -2, 3, 5, 7, -20, -5, 3, 12, 16, -12, -4, 5, -3, -2, 7, 1, 6, -1, 0, -8, -8, 8, 5, 8, -11, -4,
    -7, -4, -4, -5, -17, 18, 8, -21, 11, -23
  };
  // STRIDED
  private static final long[] STRIDED_ATTRS = {1, 2, 2, 2, 1, 1, 1, 1};
  private static final long[] STRIDED_X_SHAPE = {1, 2, 5, 4};
  private static final double[] STRIDED_X = {
    -2, 2, -1, 0, 1, -1, 3, -2, -1, 1, 0, 1, -1, 0, 1, 1, -2, 3, -3, 2, -2, 2, -3, -2, -3, 1, 3, -1,
    -3, -1, 1, 3, -1, 1, -3, -2, 2, 3, 0, 0
  };
  private static final long[] STRIDED_W_SHAPE = {3, 2, 2, 2};
  private static final double[] STRIDED_W = {
    2, 1, 3, -1, 1, 0, 3, -3, -1, -3, 1, -1, 1, 0, -1, -3, -2, 3, -2, -3, -1, -2, -3, -1
  };
  private static final long[] STRIDED_Y_SHAPE = {1, 3, 3, 3};
  private static final double[] STRIDED_Y = {
    8, 22, -6, 11, -1, 7, -5, 23, 6, 8, 10, 2, 7, -8, -1, -1, 1, -1, 8, -4, 6, 15, 4, -6, 3, 2, -4
  };
  private static final long[] STRIDED_GY_SHAPE = {1, 3, 3, 3};
  private static final double[] STRIDED_GY = {
    -1, 1, 2, -2, 1, -1, -3, 3, -3, 1, 0, -2, 3, 0, 2, -2, 0, -3, 1, -1, 2, -1, -3, -3, 1, 0, 1
  };
  private static final long[] STRIDED_GX_SHAPE = {1, 2, 5, 4};
  private static final double[] STRIDED_GX = {
    -3, 5, 2, 0, -14, 8, -8, 2, 2, 9, 8, 5, 6, 6, 3, -5, 2, 9, -3, -14, -1, 6, -2, 2, 2, 4, 6, 4,
    -2, 12, 0, 4, -2, 3, 0, -7, 14, 9, -9, -9
  };
  private static final long[] STRIDED_GW_SHAPE = {3, 2, 2, 2};
  private static final double[] STRIDED_GW = {
    -2, 7, 5, 0, 11, 3, 3, 0, -7, 5, -4, -1, 4, -7, 10, -15, 10, -11, -6, -2, -2, -7, -12, 3
  };
  // DILATED_GROUPS
  private static final long[] DILATED_GROUPS_ATTRS = {2, 1, 1, 0, 2};
  private static final long[] DILATED_GROUPS_X_SHAPE = {1, 4, 7};
  private static final double[] DILATED_GROUPS_X = {
    3, 2, 2, 1, 3, 1, 3, 1, -3, 2, -3, -2, -1, 3, 3, 1, -1, -2, 3, 1, 0, 0, -2, -1, 0, -3, 3, 1
  };
  private static final long[] DILATED_GROUPS_W_SHAPE = {2, 2, 3};
  private static final double[] DILATED_GROUPS_W = {-3, 2, 0, 2, 2, -2, 3, -2, -1, -2, -2, 2};
  private static final long[] DILATED_GROUPS_Y_SHAPE = {1, 2, 3};
  private static final double[] DILATED_GROUPS_Y = {5, -14, -6, 4, 16, 1};
  private static final long[] DILATED_GROUPS_GY_SHAPE = {1, 2, 3};
  private static final double[] DILATED_GROUPS_GY = {-3, 0, 1, -2, -1, 2};
  private static final long[] DILATED_GROUPS_GX_SHAPE = {1, 4, 7};
  private static final double[] DILATED_GROUPS_GX = {
    9, 0, -9, 0, 2, 0, 0, -6, 0, -4, 0, 8, 0, -2, -6, -3, 10, 2, -2, 1, -2, 4, 2, 0, 2, -8, -2, 4
  };
  private static final long[] DILATED_GROUPS_GW_SHAPE = {2, 2, 3};
  private static final double[] DILATED_GROUPS_GW = {-7, -3, -6, -1, -8, 9, -9, 10, -7, 0, -4, 5};

  private static void check(
      long[] attrs,
      long[] xs,
      double[] x,
      long[] ws,
      double[] w,
      long[] ys,
      double[] y,
      double[] gy,
      double[] gx,
      double[] gw) {
    assertTensor(apply(Op.CONV, attrs, f32(xs, x), f32(ws, w)), F32, ys, y);
    assertTensor(
        apply(Op.CONV_INPUT_GRAD, Convolution.withSizes(attrs, xs), f32(ys, gy), f32(ws, w)),
        F32,
        xs,
        gx);
    assertTensor(
        apply(Op.CONV_WEIGHT_GRAD, Convolution.withSizes(attrs, ws), f32(xs, x), f32(ys, gy)),
        F32,
        ws,
        gw);
  }

  @Test
  void aPaddedConvolutionAndItsGradients() {
    check(
        PADDED_ATTRS,
        PADDED_X_SHAPE,
        PADDED_X,
        PADDED_W_SHAPE,
        PADDED_W,
        PADDED_Y_SHAPE,
        PADDED_Y,
        PADDED_GY,
        PADDED_GX,
        PADDED_GW);
  }

  @Test
  void aStridedTwoDimensionalConvolutionAndItsGradients() {
    check(
        STRIDED_ATTRS,
        STRIDED_X_SHAPE,
        STRIDED_X,
        STRIDED_W_SHAPE,
        STRIDED_W,
        STRIDED_Y_SHAPE,
        STRIDED_Y,
        STRIDED_GY,
        STRIDED_GX,
        STRIDED_GW);
  }

  @Test
  void aDilatedGroupedConvolutionAndItsGradients() {
    check(
        DILATED_GROUPS_ATTRS,
        DILATED_GROUPS_X_SHAPE,
        DILATED_GROUPS_X,
        DILATED_GROUPS_W_SHAPE,
        DILATED_GROUPS_W,
        DILATED_GROUPS_Y_SHAPE,
        DILATED_GROUPS_Y,
        DILATED_GROUPS_GY,
        DILATED_GROUPS_GX,
        DILATED_GROUPS_GW);
  }

  private static TypeInfo type(Op op, long[] attrs, long[] a, long[] b) {
    return op.semantics()
        .type(
            op,
            attrs,
            new TypeInfo[] {TypeInfo.tensor(a, F32), TypeInfo.tensor(b, F32)},
            dev.entangle.core.Semantics.Context.of(new OpTable(), id -> null, id -> null));
  }

  @Test
  void operandsThatDoNotFitAreRefused() {
    long[] attrs = {1, 1, 1, 0, 1};
    // input channels differ from the filters'
    assertThrows(
        ShapeException.class,
        () -> type(Op.CONV, attrs, new long[] {1, 3, 5}, new long[] {2, 2, 3}));
    // a kernel wider than the padded input
    assertThrows(
        ShapeException.class,
        () -> type(Op.CONV, attrs, new long[] {1, 3, 2}, new long[] {2, 3, 3}));
    // two spatial dims named, one given
    assertThrows(
        ShapeException.class,
        () ->
            type(
                Op.CONV,
                new long[] {1, 2, 1, 1, 0, 0, 1, 1},
                new long[] {1, 3, 5},
                new long[] {2, 3, 3}));
    // groups that do not divide the output channels
    assertThrows(
        ShapeException.class,
        () ->
            type(Op.CONV, new long[] {2, 1, 1, 0, 1}, new long[] {1, 4, 5}, new long[] {3, 2, 3}));
    // an output gradient of the wrong length
    assertThrows(
        ShapeException.class,
        () ->
            type(
                Op.CONV_WEIGHT_GRAD,
                new long[] {1, 1, 1, 0, 1, 3},
                new long[] {1, 3, 5},
                new long[] {1, 2, 4}));
    assertTrue(
        Arrays.equals(
            new long[] {1, 2, 3},
            type(Op.CONV, attrs, new long[] {1, 3, 5}, new long[] {2, 3, 3}).shape()));
  }
}
