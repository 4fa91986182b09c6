package dev.entangle.lower.xla;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.graph.Arg;
import dev.entangle.lower.LoweringException;
import dev.entangle.lower.aten.AtenNormalizer;
import dev.entangle.lower.aten.Call;
import java.util.Set;

/**
 * The custom calls of AWS Neuron that transformers-neuronx emits, by {@code custom_call_target}:
 *
 * <ul>
 *   <li>{@code AwsNeuronTransferWithStaticRing}: a copy of its operand;
 *   <li>{@code AwsNeuronRmsNorm(x, weight, eps)}, {@code backend_config} the normalized dim d:
 *       {@code x * rsqrt(mean(x^2, d) + eps) * weight} (the weight along d, converted to x's
 *       dtype), computed in x's dtype (transformers-neuronx converts x to f32 first) and converted
 *       to the result's;
 *   <li>{@code AwsNeuronSoftmax(x)}, {@code backend_config} the dim: softmax along it;
 *   <li>{@code AwsNeuronGelu(x)}: GELU in its tanh form (transformers-neuronx's {@code gelu_new}).
 * </ul>
 *
 * Other targets return null and stay opaque (the same call on related operands still maps).
 */
public final class XlaCustomCalls {
  /** The custom call targets whose semantics are declared here. */
  public static final Set<String> TARGETS =
      Set.of(
          "AwsNeuronTransferWithStaticRing",
          "AwsNeuronRmsNorm",
          "AwsNeuronSoftmax",
          "AwsNeuronGelu");

  Integer lower(Call c) {
    String target = c.node.kwarg("custom_call_target") instanceof Arg.StrArg s ? s.value() : "";
    TypeInfo out = AtenNormalizer.declaredType(c.node);
    if (out.isTuple()) {
      return null;
    }
    return switch (target) {
      case "AwsNeuronTransferWithStaticRing" -> c.cast(c.tensor(0, null), out.dtype());
      case "AwsNeuronRmsNorm" -> rmsNorm(c, out);
      case "AwsNeuronSoftmax" -> {
        int x = c.tensor(0, null);
        int d = c.dim(dimConfig(c), c.type(x).rank());
        yield c.cast(c.b.add(Op.SOFTMAX, new long[] {d}, x), out.dtype());
      }
      case "AwsNeuronGelu" ->
          c.cast(c.b.add(Op.GELU, new long[] {1}, c.tensor(0, null)), out.dtype());
      default -> null;
    };
  }

  /** The dim a call's {@code backend_config} names ({@code "0"}). */
  private static long dimConfig(Call c) {
    if (c.node.kwarg("backend_config") instanceof Arg.StrArg s) {
      try {
        return Long.parseLong(s.value().strip());
      } catch (NumberFormatException e) {
        // fall through
      }
    }
    throw new LoweringException("its backend_config must name the dim, such as \"2\"");
  }

  private static int rmsNorm(Call c, TypeInfo out) {
    if (c.node.args().size() != 3) {
      throw new LoweringException("AwsNeuronRmsNorm takes the input, the weight and epsilon");
    }
    int x = c.tensor(0, null);
    long[] shape = c.shape(x);
    int rank = shape.length;
    int d = c.dim(dimConfig(c), rank);
    int dt = c.type(x).dtype();
    int w = c.cast(c.tensor(1, null), dt);
    if (c.shape(w).length != 1 || c.shape(w)[0] != shape[d]) {
      throw new LoweringException(
          "the weight of AwsNeuronRmsNorm must be 1-d of the size of dim " + d);
    }
    long[] toLast = new long[rank];
    long[] back = new long[rank];
    for (int i = 0, k = 0; i < rank; i++) {
      if (i != d) {
        toLast[k++] = i;
      }
    }
    toLast[rank - 1] = d;
    for (int i = 0; i < rank; i++) {
      back[(int) toLast[i]] = i;
    }
    Double eps = epsilon(c);
    int normalized;
    if (eps != null) {
      int moved = XlaLowering.permute(c, x, toLast);
      int n = c.b.add(Op.RMS_NORMALIZE, new long[] {1, Double.doubleToLongBits(eps)}, moved);
      normalized = XlaLowering.permute(c, n, back);
    } else {
      // epsilon is computed, not a literal: the formula itself
      int square = c.b.add(Op.MUL, new long[0], x, x);
      int mean = c.b.add(Op.RMEAN, new long[] {1, d}, square);
      int e = c.expandTo(c.cast(c.tensor(2, null), dt), c.shape(mean));
      int r = c.b.add(Op.RSQRT, new long[0], c.b.add(Op.ADD, new long[0], mean, e));
      normalized = c.b.add(Op.MUL, new long[0], x, c.expandTo(r, shape));
    }
    int weight = XlaLowering.broadcast(c, w, new long[] {d}, shape);
    return c.cast(c.b.add(Op.MUL, new long[0], normalized, weight), out.dtype());
  }

  /** Epsilon, when the importer read the third operand as a literal ({@code operand_values}). */
  private static Double epsilon(Call c) {
    if (c.node.kwarg("operand_values") instanceof Arg.ListArg l
        && l.items().size() == 3
        && !(l.items().get(2) instanceof Arg.NoneArg)) {
      return XlaLowering.number(l.items().get(2));
    }
    return null;
  }
}
