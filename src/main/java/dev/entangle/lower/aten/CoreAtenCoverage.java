package dev.entangle.lower.aten;

import dev.entangle.core.OpTable;
import dev.entangle.core.TermBuilder;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.AtenPointwise;
import dev.entangle.graph.Meta;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Coverage of PyTorch's Core ATen IR ({@code core-aten-ops.txt}, the {@code core}-tagged overloads
 * of the pinned torch): for each operator, what the lowering does with it, found by asking the
 * lowering itself (each family is offered a call of that target; one that takes it up handles the
 * name), so the table cannot drift from the code. A family that handles a name may still refuse
 * some of its argument forms (they stay opaque).
 */
public final class CoreAtenCoverage {
  private static final String RESOURCE = "core-aten-ops.txt";

  private CoreAtenCoverage() {}

  /** The Core ATen overloads, e.g. {@code aten.add.Tensor}, in the resource file's order. */
  public static List<String> operators() {
    List<String> out = new ArrayList<>();
    try (InputStream in = CoreAtenCoverage.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the resource " + RESOURCE + " is missing from the jar");
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line; (line = r.readLine()) != null; ) {
        line = line.strip();
        if (!line.isEmpty() && !line.startsWith("#")) {
          out.add(line);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Each Core ATen base name (overloads joined) with its status, in order. */
  public static Map<String, String> statuses() {
    Map<String, List<String>> overloads = new LinkedHashMap<>();
    for (String op : operators()) {
      overloads
          .computeIfAbsent(AtenNormalizer.baseName(op), k -> new ArrayList<>())
          .add(op.substring(op.lastIndexOf('.') + 1));
    }
    Map<String, String> out = new LinkedHashMap<>();
    overloads.forEach((base, ovs) -> out.put(base + " (" + String.join(", ", ovs) + ")", of(base)));
    return out;
  }

  /** What the lowering does with calls of a base name such as {@code aten.add}. */
  static String of(String base) {
    if (AtenNormalizer.UNINITIALIZED.contains(base)) {
      return "a random sample or uninitialized memory: no defined value (never related)";
    }
    if (AtenNormalizer.readsShapesOnly(base + ".default")) {
      return "lowered: a constant of its operand's shape";
    }
    String family = family(base);
    if (family != null) {
      return "lowered (" + family + ")";
    }
    if (AtenNormalizer.ELEMENTWISE.contains(base)) {
      return AtenPointwise.knows(base + ".default")
          ? "lowered: element-wise `ew1`/`ew2` with a kernel"
          : "element-wise `ew1`/`ew2` without a kernel (unsupported where a check stops at it)";
    }
    return "unsupported: no lowering yet (kept opaque: it maps only where G_d makes the same call"
        + " on related operands; a check that stops at it is `unsupported`)";
  }

  /** The lowering family that takes up a call of this name, or null. */
  private static String family(String base) {
    Node probe =
        new Node(
            "probe", NodeOp.CALL_FUNCTION, base + ".default", List.of(), Map.of(), Meta.empty(), 0);
    Call c = new Call(probe, name -> new int[0], REFUSING);
    Map<String, java.util.function.Function<Call, int[]>> families = new LinkedHashMap<>();
    OpTable table = new OpTable();
    families.put("dropout", x -> new DropoutLowering(table).lower(base, x));
    families.put("arithmetic", x -> new ArithmeticLowering().lower(base, x));
    families.put("layout", x -> new LayoutLowering().lower(base, x));
    families.put(
        "fixed indices: where the program computes them from constants, else opaque",
        x -> new FixedIndexLowering().lower(base, x));
    families.put(
        "scaled dot-product attention, forward and backward",
        x -> new AttentionLowering().lower(base, x));
    families.put("reductions and row-wise", x -> new ReductionLowering().lower(base, x));
    families.put("losses, as torch decomposes them", x -> new LossLowering().lower(base, x));
    families.put(
        "convolutions; a transposed one stays opaque",
        x -> new ConvolutionLowering().lower(base, x));
    families.put(
        "pooling, as slices; a max pool's indices stay opaque",
        x -> new PoolingLowering().lower(base, x, y -> new int[2]));
    for (var e : families.entrySet()) {
      try {
        if (e.getValue().apply(c) != null) {
          return e.getKey();
        }
      } catch (RuntimeException taken) {
        return e.getKey(); // it read the call's arguments: the family handles the name
      }
    }
    return null;
  }

  /** A builder that builds nothing: a probe call never gets as far as a term. */
  private static final TermBuilder REFUSING =
      new TermBuilder() {
        @Override
        public int add(int op, long[] attrs, int... children) {
          throw new IllegalStateException("a probe builds no term");
        }

        @Override
        public TypeInfo type(int handle) {
          throw new IllegalStateException("a probe has no terms");
        }
      };
}
