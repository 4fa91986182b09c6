package dev.entangle.lower.aten;

import dev.entangle.core.Op;
import dev.entangle.graph.Arg;
import dev.entangle.lower.LoweringException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Semantics of custom kernels that appear functionalized, {@code
 * higher_order.auto_functionalized(op, arg = value, ...)}: item 0 of the result is the kernel's own
 * return value (none here), items 1.. the new values of the arguments it mutates, in the order of
 * the node's {@code _mutated} list (which the importer takes from the kernel's schema).
 *
 * <p>Declared: vLLM's {@code _C.rms_norm}, {@code _C.fused_add_rms_norm}, {@code _C.silu_and_mul},
 * {@code _C.rotary_embedding} and {@code vllm.unified_attention_with_output}. Other kernels stay
 * opaque.
 */
final class CustomOpLowering {

  int[] lower(String target, Call c) {
    if (!target.equals("higher_order.auto_functionalized")) {
      return null;
    }
    if (!(c.arg(0, null) instanceof Arg.StrArg kernel)
        || !(c.node.kwarg("_mutated") instanceof Arg.ListArg m)) {
      return null;
    }
    List<String> mutated = new ArrayList<>();
    for (Arg a : m.items()) {
      if (!(a instanceof Arg.StrArg s)) {
        return null;
      }
      mutated.add(s.value());
    }
    String op = kernel.value().replaceFirst("^torch\\.ops\\.", "");
    Map<String, Integer> values =
        switch (op) {
          case "_C.rms_norm.default" -> Map.of("result", rmsNorm(c, "input"));
          case "_C.fused_add_rms_norm.default" -> {
            int sum = c.b.add(Op.ADD, new long[0], kw(c, "input"), kw(c, "residual"));
            yield Map.of("residual", sum, "input", normTimesWeight(c, sum));
          }
          case "_C.silu_and_mul.default" -> Map.of("out", siluAndMul(c));
          case "_C.rotary_embedding.default" -> rope(c, mutated);
          case "vllm.unified_attention_with_output.default" ->
              Map.of(
                  "output",
                  c.b.add(Op.ATTENTION, new long[0], kw(c, "query"), kw(c, "key"), kw(c, "value")));
          default -> null;
        };
    if (values == null) {
      return null;
    }
    int[] out = new int[1 + mutated.size()];
    out[0] = -1;
    for (int i = 0; i < mutated.size(); i++) {
      Integer v = values.get(mutated.get(i));
      if (v == null) {
        throw new LoweringException(
            op
                + " is declared to mutate '"
                + mutated.get(i)
                + "', which its semantics here do not define; check the kernel's schema");
      }
      out[1 + i] = v;
    }
    return out;
  }

  private static int kw(Call c, String name) {
    if (c.node.kwarg(name) instanceof Arg.NodeRef r) {
      return c.value(r);
    }
    throw new LoweringException("argument '" + name + "' must be a tensor");
  }

  private static double eps(Call c) {
    Arg e = c.node.kwarg("epsilon");
    if (e instanceof Arg.FloatArg f) {
      return f.value();
    }
    if (e instanceof Arg.IntArg i) {
      return i.value();
    }
    throw new LoweringException("argument 'epsilon' must be a number");
  }

  private static int rmsNorm(Call c, String input) {
    return normTimesWeight(c, kw(c, input));
  }

  /** {@code x * rsqrt(mean(x^2, last dim) + eps) * weight}. */
  private static int normTimesWeight(Call c, int x) {
    int n = c.b.add(Op.RMS_NORMALIZE, new long[] {1, Double.doubleToLongBits(eps(c))}, x);
    return c.b.add(Op.MUL, new long[0], n, c.expandTo(kw(c, "weight"), c.shape(x)));
  }

  /** {@code silu(x[..., :d]) * x[..., d:]} for x[..., 2d]. */
  private static int siluAndMul(Call c) {
    int x = kw(c, "input");
    long[] s = c.shape(x);
    int last = s.length - 1;
    long d = s[last] / 2;
    int gate = LayoutLowering.slice(c, x, last, 0, d, 1);
    int up = LayoutLowering.slice(c, x, last, d, 2 * d, 1);
    return c.b.add(Op.MUL, new long[0], c.b.add(Op.SILU, new long[0], gate), up);
  }

  private static Map<String, Integer> rope(Call c, List<String> mutated) {
    long headSize = c.node.kwarg("head_size") instanceof Arg.IntArg h ? h.value() : -1;
    boolean neox = c.node.kwarg("is_neox") instanceof Arg.BoolArg b && b.value();
    if (headSize <= 0) {
      throw new LoweringException("rotary_embedding needs an integer head_size");
    }
    int pos = kw(c, "positions");
    int cache = kw(c, "cos_sin_cache");
    long[] attrs = {headSize, neox ? 1 : 0};
    Map<String, Integer> out = new HashMap<>();
    for (String name : mutated) {
      out.put(name, c.b.add(Op.ROPE, attrs, kw(c, name), pos, cache));
    }
    return out;
  }
}
