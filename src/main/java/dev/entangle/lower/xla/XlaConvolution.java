package dev.entangle.lower.xla;

import dev.entangle.core.Op;
import dev.entangle.core.semantics.Convolution;
import dev.entangle.graph.Arg;
import dev.entangle.lower.LoweringException;
import dev.entangle.lower.aten.Call;
import java.util.Arrays;

/**
 * XLA's {@code convolution}: its operands and result permuted by {@code dim_labels} into the core
 * operator {@code conv}'s layout ([batch, feature, spatial...] and [output, input, spatial...]).
 * JAX writes a convolution's gradients as convolutions too, with other labels (the weight gradient
 * contracts the batch as the feature dim), so they lower alike. Padding on both sides alike is the
 * operator's; unequal padding is made explicit with zero blocks first. A dilated input ({@code
 * lhs_dilate}, a transposed convolution), reversed filters ({@code rhs_reversal}) and {@code
 * batch_group_count} other than 1 are not lowered: the instruction stays opaque.
 */
final class XlaConvolution {
  private XlaConvolution() {}

  /**
   * A window attribute (a convolution's, a reduce-window's): per dim its size, stride, low and high
   * padding, and window dilation.
   */
  record Window(long[] size, long[] stride, long[] lo, long[] hi, long[] dilation) {}

  static Integer lower(Call c) {
    String labels = string(c, "dim_labels");
    String[] parts = labels.split("->");
    String[] inputs = parts[0].split("_");
    if (parts.length != 2 || inputs.length != 2) {
      throw new LoweringException("dim_labels " + labels + " is not of the form LHS_RHS->OUT");
    }
    String lhs = inputs[0];
    String rhs = inputs[1];
    String out = parts[1];
    int d = lhs.length() - 2;
    if (d < 1 || d > 3 || rhs.length() != d + 2 || out.length() != d + 2) {
      throw new LoweringException(
          "dim_labels " + labels + ": the checker lowers convolutions over 1 to 3 spatial dims");
    }
    if (c.integer(-1, "batch_group_count", 1L) != 1) {
      return null;
    }
    Window w = window(c, d);
    if (w == null) {
      return null;
    }
    int dt = c.outDtype;
    int x = c.cast(XlaLowering.permute(c, c.tensor(0, null), order(lhs, 'b', 'f', labels)), dt);
    int k = c.cast(XlaLowering.permute(c, c.tensor(1, null), order(rhs, 'o', 'i', labels)), dt);
    long[] pad = new long[d];
    if (!Arrays.equals(w.lo(), w.hi())) {
      for (int i = 0; i < d; i++) {
        x = c.pad(x, 2 + i, w.lo()[i], w.hi()[i], 0.0);
      }
    } else {
      pad = w.lo();
    }
    long[] attrs =
        Convolution.attrs(c.integer(-1, "feature_group_count", 1L), w.stride(), pad, w.dilation());
    if (!Arrays.equals(Arrays.copyOfRange(c.shape(k), 2, d + 2), w.size())) {
      throw new LoweringException(
          "a convolution window of "
              + Arrays.toString(w.size())
              + " over filters of "
              + Arrays.toString(c.shape(k)));
    }
    int y = c.b.add(Op.CONV.id(), attrs, x, k);
    // y is [b, f, 0, 1, ...]: the result's dim j is y's dim of the label out[j]
    long[] back = new long[d + 2];
    for (int j = 0; j < back.length; j++) {
      char l = out.charAt(j);
      back[j] = l == 'b' ? 0 : l == 'f' ? 1 : 2 + digit(l, labels);
    }
    return XlaLowering.permute(c, y, back);
  }

  /** The operand's dims in conv's order: the two named labels, then the spatial dims 0, 1, .... */
  private static long[] order(String dims, char first, char second, String labels) {
    long[] o = new long[dims.length()];
    Arrays.fill(o, -1);
    for (int i = 0; i < dims.length(); i++) {
      char l = dims.charAt(i);
      int at = l == first ? 0 : l == second ? 1 : 2 + digit(l, labels);
      if (at >= o.length || o[at] >= 0) {
        throw new LoweringException("dim_labels " + labels + " names a dim twice or none");
      }
      o[at] = i;
    }
    return o;
  }

  private static int digit(char l, String labels) {
    if (l < '0' || l > '9') {
      throw new LoweringException("dim_labels " + labels + ": unknown label " + l);
    }
    return l - '0';
  }

  /**
   * The {@code window} attribute over {@code d} dims, or null for what is not lowered (a dilated
   * input, a reversed window).
   */
  static Window window(Call c, int d) {
    String text = string(c, "window").strip();
    if (text.startsWith("{") && text.endsWith("}")) {
      text = text.substring(1, text.length() - 1);
    }
    long[] size = null;
    long[] stride = ones(d);
    long[] lo = new long[d];
    long[] hi = new long[d];
    long[] dilation = ones(d);
    for (String item : text.strip().split("\\s+")) {
      if (item.isEmpty()) {
        continue;
      }
      int eq = item.indexOf('=');
      if (eq < 0) {
        throw new LoweringException("window item " + item + " is not KEY=VALUE");
      }
      String key = item.substring(0, eq);
      String[] values = item.substring(eq + 1).split("x");
      if (values.length != d) {
        throw new LoweringException("window " + key + " of " + values.length + " dims, not " + d);
      }
      switch (key) {
        case "size" -> size = numbers(values, item);
        case "stride" -> stride = numbers(values, item);
        case "rhs_dilate" -> dilation = numbers(values, item);
        case "pad" -> {
          for (int i = 0; i < d; i++) {
            String[] lh = values[i].split("_");
            if (lh.length != 2) {
              throw new LoweringException("window pad " + values[i] + " is not LOW_HIGH");
            }
            lo[i] = number(lh[0], item);
            hi[i] = number(lh[1], item);
            if (lo[i] < 0 || hi[i] < 0) {
              return null; // negative padding crops: not lowered
            }
          }
        }
        case "lhs_dilate", "rhs_reversal" -> {
          long expected = key.equals("lhs_dilate") ? 1 : 0;
          if (Arrays.stream(numbers(values, item)).anyMatch(v -> v != expected)) {
            return null;
          }
        }
        default -> throw new LoweringException("unknown window item " + item);
      }
    }
    if (size == null) {
      throw new LoweringException("a window without its size");
    }
    return new Window(size, stride, lo, hi, dilation);
  }

  private static long[] ones(int d) {
    long[] a = new long[d];
    Arrays.fill(a, 1);
    return a;
  }

  private static long[] numbers(String[] values, String item) {
    long[] out = new long[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = number(values[i], item);
    }
    return out;
  }

  private static long number(String v, String item) {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new LoweringException("window item " + item + " holds " + v + ", not an integer");
    }
  }

  private static String string(Call c, String key) {
    if (!(c.node.kwarg(key) instanceof Arg.StrArg s)) {
      throw new LoweringException("a convolution without its " + key);
    }
    return s.value();
  }
}
