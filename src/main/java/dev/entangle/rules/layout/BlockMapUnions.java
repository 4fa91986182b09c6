package dev.entangle.rules.layout;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.rules.NativeRule;
import dev.entangle.rules.SearchDeadline;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Same> found) {
    LayoutForms forms = new LayoutForms(g, deadline);
    Map<BlockMap, Integer> seen = new HashMap<>();
    for (int c : g.classIds().toArray()) {
      if (g.find(c) != c) {
        continue;
      }
      List<BlockMap> fs = forms.of(c);
      for (BlockMap m : fs) {
        Integer other = seen.putIfAbsent(m, c);
        if (other != null && other != c && sameType(g.data(other), g.data(c))) {
          found.match(new Same(other, c));
        }
      }
    }
  }

  private static boolean sameType(TypeInfo a, TypeInfo b) {
    return a != null && b != null && a.dtype() == b.dtype() && a.sameShape(b);
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Same match, Unions unions) {
    unions.union(match.a(), match.b());
  }
}
