package dev.entangle.lower;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.Shapes;
import dev.entangle.core.TermBuilder;
import dev.entangle.core.TypeInfo;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.lower.aten.AtenNormalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every node of a graph lowered into the core language and printed in the lemma files' syntax
 * ({@code (matmul (permute[1 0] a) b)}; inputs by name, constants as {@code (scalar[V dtype])}),
 * with each term's shape checked by the same inference the checker uses.
 */
public final class LoweredTerms implements TermBuilder {
  private final OpTable table = new OpTable();
  private final Shapes shapes =
      new Shapes(
          table,
          id -> {
            throw new IllegalStateException("no G_d tensors here");
          });
  private final List<String> texts = new ArrayList<>();
  private final List<TypeInfo> types = new ArrayList<>();
  private final Map<String, int[]> values = new HashMap<>();

  /** The term of each call_function node by name (one text per result item, joined by " | "). */
  public static Map<String, String> of(Graph g) {
    LoweredTerms t = new LoweredTerms();
    AtenNormalizer normalizer = new AtenNormalizer(t.table);
    Map<String, String> out = new LinkedHashMap<>();
    for (Node n : g.nodes()) {
      if (n.op() == NodeOp.PLACEHOLDER) {
        t.texts.add(n.name());
        t.types.add(AtenNormalizer.typeOf(n.type(), n));
        t.values.put(n.name(), new int[] {t.texts.size() - 1});
      } else if (n.op() == NodeOp.CALL_FUNCTION) {
        int[] hs = normalizer.lower(n, name -> t.values.get(name), t);
        t.values.put(n.name(), hs);
        List<String> items = new ArrayList<>();
        for (int h : hs) {
          items.add(h < 0 ? "-" : t.texts.get(h));
        }
        out.put(n.name(), String.join(" | ", items));
        if (!n.meta().tuple() && hs.length == 1) {
          TypeInfo declared = AtenNormalizer.declaredType(n);
          TypeInfo got = t.types.get(hs[0]);
          if (!Arrays.equals(declared.shape(), got.shape()) || declared.dtype() != got.dtype()) {
            throw new AssertionError(
                n.name()
                    + ": lowered to "
                    + Arrays.toString(got.shape())
                    + " "
                    + Dtype.name(got.dtype())
                    + ", declared "
                    + n.type());
          }
        }
      }
    }
    return out;
  }

  @Override
  public int add(int op, long[] attrs, int... children) {
    TypeInfo[] c = new TypeInfo[children.length];
    StringBuilder sb = new StringBuilder("(");
    Op core = Op.of(op);
    sb.append(core == null ? table.opaqueTarget(op) : core.symbol());
    if (core == Op.SCALAR) {
      sb.append('[')
          .append(Double.longBitsToDouble(attrs[0]))
          .append(' ')
          .append(Dtype.name(attrs[1]))
          .append(']');
    } else if (core == Op.EW1 || core == Op.EW2) {
      sb.append('[').append(table.opaqueTarget((int) attrs[0])).append(']');
    } else if (attrs.length > 0) {
      sb.append('[');
      for (int i = 0; i < attrs.length; i++) {
        sb.append(i == 0 ? "" : " ").append(attrs[i]);
      }
      sb.append(']');
    }
    for (int i = 0; i < children.length; i++) {
      c[i] = types.get(children[i]);
      sb.append(' ').append(texts.get(children[i]));
    }
    types.add(shapes.infer(op, attrs, c));
    texts.add(sb.append(')').toString());
    return texts.size() - 1;
  }

  @Override
  public TypeInfo type(int handle) {
    return types.get(handle);
  }
}
