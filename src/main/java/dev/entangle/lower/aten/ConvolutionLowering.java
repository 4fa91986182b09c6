package dev.entangle.lower.aten;

import dev.entangle.core.Op;
import dev.entangle.core.semantics.Convolution;
import dev.entangle.lower.LoweringException;
import java.util.Arrays;

/**
 * {@code aten.convolution} and {@code aten.convolution_backward} over 1 to 3 spatial dims, lowered
 * to the core operators {@code conv}, {@code conv_input_grad} and {@code conv_weight_grad} (the
 * bias added as a broadcast, its gradient a sum). Transposed convolutions and a non-zero {@code
 * output_padding} are not lowered yet: such a call stays opaque.
 */
final class ConvolutionLowering {
  int[] lower(String base, Call c) {
    return switch (base) {
      case "aten.convolution" -> convolution(c);
      case "aten.convolution_backward" -> backward(c);
      default -> null;
    };
  }

  /** {@code convolution(input, weight, bias, stride, padding, dilation, transposed, ...)}. */
  private static int[] convolution(Call c) {
    int x = c.tensor(0, "input");
    int w = c.tensor(1, "weight");
    long[] attrs = attrs(c, c.shape(x).length - 2, 3, 6, 7, 8);
    if (attrs == null) {
      return null;
    }
    int y = c.b.add(Op.CONV.id(), attrs, x, c.cast(w, c.type(x).dtype()));
    if (c.has(2, "bias")) {
      long[] shape = c.shape(y);
      long[] column = new long[shape.length];
      Arrays.fill(column, 1);
      column[1] = shape[1];
      int bias = c.reshape(c.cast(c.tensor(2, "bias"), c.type(y).dtype()), column);
      y = c.b.add(Op.ADD, new long[0], y, c.expandTo(bias, shape));
    }
    return new int[] {y};
  }

  /**
   * {@code convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
   * transposed, output_padding, groups, output_mask)}: (grad_input, grad_weight, grad_bias), every
   * item built whatever the mask says (an item the mask leaves out is never read).
   */
  private static int[] backward(Call c) {
    int gy = c.tensor(0, "grad_output");
    int x = c.tensor(1, "input");
    int w = c.tensor(2, "weight");
    long[] xs = c.shape(x);
    long[] ws = c.shape(w);
    int d = xs.length - 2;
    long[] attrs = attrs(c, d, 4, 7, 8, 9);
    if (attrs == null) {
      return null;
    }
    int dt = c.type(gy).dtype();
    int gradInput =
        c.b.add(Op.CONV_INPUT_GRAD.id(), Convolution.withSizes(attrs, xs), gy, c.cast(w, dt));
    int gradWeight =
        c.b.add(Op.CONV_WEIGHT_GRAD.id(), Convolution.withSizes(attrs, ws), c.cast(x, dt), gy);
    // keepdim false, then every dim but the channels: 0, 2, 3, ...
    long[] sumAttrs = new long[c.shape(gy).length];
    for (int i = 2; i < sumAttrs.length; i++) {
      sumAttrs[i] = i;
    }
    int gradBias = c.b.add(Op.RSUM.id(), sumAttrs, gy);
    return new int[] {gradInput, gradWeight, gradBias};
  }

  /**
   * The core attributes {@code [groups, d, stride × d, pad × d, dilation × d]} from the call's
   * arguments at the given positions; null for a transposed convolution or one with output padding.
   */
  private static long[] attrs(
      Call c, int d, int strideAt, int transposedAt, int outputPaddingAt, int groupsAt) {
    if (d < 1 || d > 3) {
      throw new LoweringException(
          "a convolution over " + d + " spatial dims: the checker lowers 1 to 3");
    }
    if (c.bool(transposedAt, "transposed", false)) {
      return null;
    }
    for (long p : c.ints(outputPaddingAt, "output_padding")) {
      if (p != 0) {
        return null;
      }
    }
    return Convolution.attrs(
        c.integer(groupsAt, "groups", 1L),
        c.perDim(strideAt, "stride", d),
        c.perDim(strideAt + 1, "padding", d),
        c.perDim(strideAt + 2, "dilation", d));
  }
}
