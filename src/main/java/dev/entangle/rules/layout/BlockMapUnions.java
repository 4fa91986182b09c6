package dev.entangle.rules.layout;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.rules.IdleSearches;
import dev.entangle.rules.NativeRule;
import dev.entangle.rules.SearchDeadline;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The layout fragment decided: every class's {@link BlockMap}s are computed ({@link LayoutForms})
 * and classes with an equal form (an equal index map over the same sources, hence the same shape
 * and dtype) are made equal. Whatever the number of ranks, a composition of slices, concats,
 * reshapes, permutes and expands meets every other composition of the same elements in one step,
 * without rewriting one identity at a time.
 */
public final class BlockMapUnions implements NativeRule<BlockMapUnions.Same> {
  /** The lemma's name in lemma files. */
  public static final String NAME = "block-maps";

  /** Two classes with one block map. */
  public record Same(int a, int b) {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "compositions of layout operators with equal block maps (index maps over the same sources) are equal";
  }

  private final IdleSearches idle = new IdleSearches();

  @Override
  public boolean wholeGraph() {
    return true;
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Same> found) {
    deadline.poll();
    if (idle.unchanged(g)) {
      return;
    }
    LayoutForms forms = new LayoutForms(g, deadline);
    Map<BlockMap, Integer> seen = new HashMap<>();
    boolean any = false;
    for (int c : layoutClasses(g)) {
      for (BlockMap m : forms.of(c)) {
        Integer other = seen.putIfAbsent(m, c);
        if (other != null && other != c && sameType(g.data(other), g.data(c))) {
          any = true;
          found.match(new Same(other, c));
        }
        int whole = wholeSource(g, m);
        if (whole >= 0 && whole != c && sameType(g.data(whole), g.data(c))) {
          any = true;
          found.match(new Same(whole, c));
        }
      }
    }
    idle.searched(g, any);
  }

  /** The canonical classes holding a layout node, ascending. */
  private static int[] layoutClasses(EGraph<TypeInfo> g) {
    TreeSet<Integer> out = new TreeSet<>();
    for (Op op : List.of(Op.EXPAND, Op.RESHAPE, Op.PERMUTE, Op.SLICE, Op.CONCAT)) {
      for (int c : g.classesWithOp(op.id())) {
        out.add(g.find(c));
      }
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /** The source a form reads whole and unchanged (its identity), or -1. */
  private static int wholeSource(EGraph<TypeInfo> g, BlockMap m) {
    if (m.cellCount() != 1) {
      return -1;
    }
    int src = m.cell(0).source();
    TypeInfo t = g.data(src);
    return t != null && !t.isTuple() && m.isIdentityOf(t.shape()) ? src : -1;
  }

  private static boolean sameType(TypeInfo a, TypeInfo b) {
    return a != null && b != null && a.dtype() == b.dtype() && a.sameShape(b);
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Same match, Unions unions) {
    unions.union(match.a(), match.b());
  }
}
