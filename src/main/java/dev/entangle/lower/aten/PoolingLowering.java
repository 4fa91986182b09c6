package dev.entangle.lower.aten;

import dev.entangle.core.Op;
import dev.entangle.lower.LoweringException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * Pooling over the last 1 to 3 dims, lowered to slices, so that the laws of slices, concats and
 * element-wise operators cover it (a batch or the channels split over ranks):
 *
 * <ul>
 *   <li>{@code max_pool*_with_indices} and {@code avg_pool*}: the element-wise maximum or sum of
 *       the window's strided slices of the input padded with -inf or 0 (one slice per kernel
 *       position), the sum divided by the window size or by the count of input elements in it;
 *   <li>{@code avg_pool*_backward}: the adjoint, each slice's share of the gradient put back in
 *       place (zeros between strided positions) and summed, the padding cut off;
 *   <li>{@code _adaptive_avg_pool*} and its backward, when each size is a multiple of the output's:
 *       a mean over blocks, and its gradient spread evenly over them.
 * </ul>
 *
 * <p>A {@code ceil_mode} that adds a window, sizes not divisible for adaptive pooling, and the max
 * pool's {@code indices} (and so its backward) are not lowered: they stay opaque.
 */
final class PoolingLowering {
  private static final int MAX = 0;
  private static final int AVG = 1;

  /** The window along one dim: kernel, stride, padding, dilation and the output's size. */
  private record Window(long kernel, long stride, long pad, long dilation, long size, long out) {
    long padded() {
      return size + 2 * pad;
    }
  }

  /**
   * The lowering of a pooling call, or null when {@code base} is none; {@code opaque} lowers the
   * call as an opaque operator (for the max pool's indices).
   */
  int[] lower(String base, Call c, Function<Call, int[]> opaque) {
    return switch (base) {
      case "aten.max_pool1d_with_indices",
          "aten.max_pool2d_with_indices",
          "aten.max_pool3d_with_indices" ->
          maxPool(c, spatial(base), opaque);
      case "aten.avg_pool1d", "aten.avg_pool2d", "aten.avg_pool3d" -> avgPool(c, spatial(base));
      case "aten.avg_pool2d_backward", "aten.avg_pool3d_backward" ->
          avgPoolBackward(c, spatial(base));
      case "aten.adaptive_avg_pool1d", "aten._adaptive_avg_pool2d", "aten._adaptive_avg_pool3d" ->
          adaptive(c, spatial(base));
      case "aten._adaptive_avg_pool2d_backward", "aten._adaptive_avg_pool3d_backward" ->
          adaptiveBackward(c, spatial(base));
      default -> null;
    };
  }

  private static int spatial(String base) {
    return base.contains("1d") ? 1 : base.contains("2d") ? 2 : 3;
  }

  /** (values, indices): the values lowered, the indices as the opaque call's item. */
  private static int[] maxPool(Call c, int d, Function<Call, int[]> opaque) {
    int x = c.tensor(0, "self");
    Window[] w = windows(c, c.shape(x), d, 1, 2, 3, 4, 5);
    if (w == null) {
      return null;
    }
    int[] out = opaque.apply(c);
    out[0] = pool(c, x, w, MAX);
    return out;
  }

  private static int[] avgPool(Call c, int d) {
    int x = c.tensor(0, "self");
    Window[] w = windows(c, c.shape(x), d, 1, 2, 3, -1, 4);
    return w == null ? null : new int[] {average(c, x, w, 5, 6)};
  }

  /** Each window's sum times its {@link #share}. */
  private static int average(Call c, int x, Window[] w, int countPadAt, int divisorAt) {
    return c.b.add(Op.MUL, new long[0], pool(c, x, w, AVG), share(c, x, w, countPadAt, divisorAt));
  }

  /**
   * What each window's sum is multiplied by: 1 / divisor_override, 1 / the window size, or (padding
   * left out of the count) 1 / the count of input elements each window covers. The arguments are
   * read at the given positions or by name (a call without them: the default of a window size).
   */
  private static int share(Call c, int x, Window[] w, int countPadAt, int divisorAt) {
    long[] outShape = outShape(c.shape(x), w);
    int dt = c.type(x).dtype();
    if (divisorAt >= 0 && c.has(divisorAt, "divisor_override")) {
      long divisor = c.integer(divisorAt, "divisor_override", null);
      if (divisor == 0) {
        throw new LoweringException("divisor_override 0 divides by zero");
      }
      return c.filled(1.0 / divisor, dt, outShape);
    }
    boolean countPad = c.bool(countPadAt, "count_include_pad", true);
    boolean padded = Arrays.stream(w).anyMatch(v -> v.pad() > 0);
    if (countPad || !padded) {
      long n = 1;
      for (Window v : w) {
        n *= v.kernel();
      }
      return c.filled(1.0 / n, dt, outShape);
    }
    // the count of each window's input elements: the same pooling of ones padded with zeros
    int count = pool(c, c.filled(1.0, dt, c.shape(x)), w, AVG);
    return c.b.add(Op.DIV, new long[0], c.filled(1.0, dt, outShape), count);
  }

  /**
   * {@code avg_pool*_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
   * count_include_pad, divisor_override)}.
   */
  private static int[] avgPoolBackward(Call c, int d) {
    int g = c.tensor(0, "grad_output");
    int x = c.tensor(1, "self");
    Window[] w = windows(c, c.shape(x), d, 2, 3, 4, -1, 5);
    return w == null ? null : new int[] {averageBackward(c, g, x, w, 6, 7)};
  }

  /** The adjoint of {@link #average}: each window's share of g put back over its elements. */
  private static int averageBackward(
      Call c, int g, int x, Window[] w, int countPadAt, int divisorAt) {
    if (!Arrays.equals(c.shape(g), outShape(c.shape(x), w))) {
      throw new LoweringException(
          "avg_pool backward: the output gradient's shape "
              + Arrays.toString(c.shape(g))
              + " is not the pooling's "
              + Arrays.toString(outShape(c.shape(x), w)));
    }
    int shared =
        c.b.add(
            Op.MUL,
            new long[0],
            c.cast(g, c.type(x).dtype()),
            share(c, x, w, countPadAt, divisorAt));
    if (tiles(w)) {
      // each window's share spread over its own block
      long[] in = c.shape(x);
      long[] column = blocks(in, w);
      for (int i = 0; i < w.length; i++) {
        column[in.length - w.length + 2 * i + 1] = 1;
      }
      int spread = c.expandTo(c.reshape(shared, column), blocks(in, w));
      return c.reshape(spread, in);
    }
    int rank = c.shape(x).length;
    int sum = -1;
    for (long[] at : positions(w)) {
      int y = shared;
      for (int i = 0; i < w.length; i++) {
        y = unslice(c, y, rank - w.length + i, at[i] * w[i].dilation(), w[i]);
      }
      sum = sum < 0 ? y : c.b.add(Op.ADD, new long[0], sum, y);
    }
    for (int i = 0; i < w.length; i++) {
      sum =
          LayoutLowering.slice(
              c, sum, rank - w.length + i, w[i].pad(), w[i].pad() + w[i].size(), 1);
    }
    return sum;
  }

  /**
   * The element-wise maximum or sum over the kernel's positions of the strided slices of x padded
   * with -inf (max) or 0 (sum); when the windows tile x (stride the kernel, no padding, no
   * dilation, sizes multiples of the kernel), the maximum or sum over each block of x viewed as
   * blocks.
   */
  private static int pool(Call c, int x, Window[] w, int kind) {
    if (tiles(w)) {
      long[] in = c.shape(x);
      int prefix = in.length - w.length;
      long[] dims = new long[w.length + 1]; // keepdim false, then the kernel dims
      for (int i = 0; i < w.length; i++) {
        dims[i + 1] = prefix + 2 * i + 1;
      }
      return c.b.add(kind == MAX ? Op.RAMAX : Op.RSUM, dims, c.reshape(x, blocks(in, w)));
    }
    int rank = c.shape(x).length;
    int dt = c.type(x).dtype();
    double fill = kind == MAX ? Double.NEGATIVE_INFINITY : 0.0;
    int padded = x;
    for (int i = 0; i < w.length; i++) {
      padded = c.pad(padded, rank - w.length + i, w[i].pad(), w[i].pad(), fill);
    }
    int result = -1;
    for (long[] at : positions(w)) {
      int y = padded;
      for (int i = 0; i < w.length; i++) {
        long start = at[i] * w[i].dilation();
        long end = start + w[i].stride() * (w[i].out() - 1) + 1;
        y = LayoutLowering.slice(c, y, rank - w.length + i, start, end, w[i].stride());
      }
      result = result < 0 ? y : c.b.add(kind == MAX ? Op.MAXIMUM : Op.ADD, new long[0], result, y);
    }
    return result;
  }

  /** Whether the windows tile the input: each element in exactly one window, none padded. */
  private static boolean tiles(Window[] w) {
    for (Window v : w) {
      if (v.stride() != v.kernel()
          || v.pad() != 0
          || v.dilation() != 1
          || v.size() % v.kernel() != 0) {
        return false;
      }
    }
    return true;
  }

  /** The input's shape with each pooled dim split into [windows, kernel]. */
  private static long[] blocks(long[] in, Window[] w) {
    int prefix = in.length - w.length;
    long[] out = new long[prefix + 2 * w.length];
    System.arraycopy(in, 0, out, 0, prefix);
    for (int i = 0; i < w.length; i++) {
      out[prefix + 2 * i] = w[i].out();
      out[prefix + 2 * i + 1] = w[i].kernel();
    }
    return out;
  }

  /** Every kernel position, row-major. */
  private static List<long[]> positions(Window[] w) {
    List<long[]> out = new ArrayList<>();
    out.add(new long[0]);
    for (Window v : w) {
      List<long[]> next = new ArrayList<>();
      for (long[] p : out) {
        for (long j = 0; j < v.kernel(); j++) {
          long[] q = Arrays.copyOf(p, p.length + 1);
          q[p.length] = j;
          next.add(q);
        }
      }
      out = next;
    }
    return out;
  }

  /**
   * The adjoint of a strided slice along {@code dim}: y's elements put at start, start + stride,
   * ... of a dim of the window's padded size, zeros elsewhere.
   */
  private static int unslice(Call c, int y, int dim, long start, Window w) {
    int dt = c.type(y).dtype();
    long[] shape = c.shape(y);
    long t = shape[dim];
    int spread = y;
    long spanned = t;
    if (w.stride() > 1 && t > 1) {
      // [.., t, ..] -> [.., t, 1, ..] beside zeros [.., t, stride - 1, ..] -> [.., t * stride, ..]
      long[] column = insert(shape, dim + 1, 1);
      long[] zeros = insert(shape, dim + 1, w.stride() - 1);
      int joined =
          c.b.add(Op.CONCAT, new long[] {dim + 1}, c.reshape(y, column), c.filled(0.0, dt, zeros));
      long[] flat = shape.clone();
      flat[dim] = t * w.stride();
      spanned = w.stride() * (t - 1) + 1;
      spread = LayoutLowering.slice(c, c.reshape(joined, flat), dim, 0, spanned, 1);
    }
    return c.pad(spread, dim, start, w.padded() - start - spanned, 0.0);
  }

  private static long[] insert(long[] shape, int at, long size) {
    long[] out = new long[shape.length + 1];
    for (int i = 0, j = 0; i < out.length; i++) {
      out[i] = i == at ? size : shape[j++];
    }
    return out;
  }

  private static long[] outShape(long[] in, Window[] w) {
    long[] out = in.clone();
    for (int i = 0; i < w.length; i++) {
      out[in.length - w.length + i] = w[i].out();
    }
    return out;
  }

  /**
   * The windows of a pooling call from its arguments at the given positions ({@code dilationAt} -1:
   * none); null when {@code ceil_mode} adds a window (not lowered).
   */
  private static Window[] windows(
      Call c, long[] in, int d, int kernelAt, int strideAt, int padAt, int dilationAt, int ceilAt) {
    if (in.length < d + 1) {
      throw new LoweringException(
          "pooling over " + d + " dims of a " + in.length + "-d tensor (it needs channels too)");
    }
    long[] kernel = c.perDim(kernelAt, "kernel_size", d);
    long[] stride = c.has(strideAt, "stride") ? stride(c, strideAt, kernel) : kernel;
    long[] pad = c.has(padAt, "padding") ? c.perDim(padAt, "padding", d) : new long[d];
    long[] dilation =
        dilationAt >= 0 && c.has(dilationAt, "dilation")
            ? c.perDim(dilationAt, "dilation", d)
            : ones(d);
    boolean ceil = c.bool(ceilAt, "ceil_mode", false);
    Window[] w = new Window[d];
    for (int i = 0; i < d; i++) {
      long size = in[in.length - d + i];
      long span = dilation[i] * (kernel[i] - 1) + 1;
      if (kernel[i] < 1 || stride[i] < 1 || dilation[i] < 1 || pad[i] < 0 || pad[i] * 2 > span) {
        throw new LoweringException(
            "pooling with kernel "
                + Arrays.toString(kernel)
                + ", stride "
                + Arrays.toString(stride)
                + ", padding "
                + Arrays.toString(pad)
                + " and dilation "
                + Arrays.toString(dilation));
      }
      long room = size + 2 * pad[i] - span;
      if (room < 0) {
        throw new LoweringException(
            "a pooling window of " + span + " does not fit " + (size + 2 * pad[i]) + " elements");
      }
      long out = room / stride[i] + 1;
      if (ceil && room % stride[i] != 0 && out * stride[i] < size + pad[i]) {
        return null; // ceil_mode adds a window hanging over the end: not lowered
      }
      w[i] = new Window(kernel[i], stride[i], pad[i], dilation[i], size, out);
    }
    return w;
  }

  /** The stride: the kernel when not given or given as an empty list, as torch reads it. */
  private static long[] stride(Call c, int at, long[] kernel) {
    return c.ints(at, "stride").length == 0 ? kernel : c.perDim(at, "stride", kernel.length);
  }

  private static long[] ones(int d) {
    long[] a = new long[d];
    Arrays.fill(a, 1);
    return a;
  }

  /**
   * {@code _adaptive_avg_pool*(self, output_size)}: when each size is a multiple of the output's,
   * an average pool whose windows tile the input.
   */
  private static int[] adaptive(Call c, int d) {
    int x = c.tensor(0, "self");
    Window[] w = tiling(c.shape(x), c.perDim(1, "output_size", d));
    return w == null ? null : new int[] {average(c, x, w, -1, -1)};
  }

  /** {@code _adaptive_avg_pool*_backward(grad_output, self)}: that pool's backward. */
  private static int[] adaptiveBackward(Call c, int d) {
    int g = c.tensor(0, "grad_output");
    int x = c.tensor(1, "self");
    long[] in = c.shape(x);
    long[] gs = c.shape(g);
    Window[] w =
        gs.length == in.length
            ? tiling(in, Arrays.copyOfRange(gs, gs.length - d, gs.length))
            : null;
    return w == null ? null : new int[] {averageBackward(c, g, x, w, -1, -1)};
  }

  /**
   * The windows that tile the input's last dims into {@code out} blocks each, or null when a size
   * is not a multiple of the output's.
   */
  private static Window[] tiling(long[] in, long[] out) {
    int d = out.length;
    Window[] w = new Window[d];
    for (int i = 0; i < d; i++) {
      long size = in[in.length - d + i];
      if (out[i] < 1 || size % out[i] != 0) {
        return null;
      }
      long k = size / out[i];
      w[i] = new Window(k, k, 0, 1, size, out[i]);
    }
    return w;
  }
}
