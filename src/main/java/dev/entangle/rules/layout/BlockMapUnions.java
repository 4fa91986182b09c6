package dev.entangle.rules.layout;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.rules.NativeRule;
import dev.entangle.rules.SearchDeadline;
import java.util.BitSet;
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
public final class BlockMapUnions implements NativeRule<BlockMapUnions.Match> {
  /** The lemma's name in lemma files. */
  public static final String NAME = "block-maps";

  /** What a search finds. */
  public sealed interface Match permits Same, Tiled {}

  /** Two classes with one block map. */
  public record Same(int a, int b) implements Match {}

  /**
   * A class whose block map is that of {@code form} (each rank's share laid out across the ranks).
   */
  public record Tiled(int cls, Blocks form) implements Match {}

  /** A clean form over G_d tensors: a class holding one, a range of one, or a concat of forms. */
  public sealed interface Piece permits Whole, Part, Blocks {}

  /** A class holding a G_d tensor. */
  public record Whole(int cls) implements Piece {}

  /** Elements {@code start} to {@code end} along {@code dim} of the G_d tensor of class cls. */
  public record Part(int cls, int dim, long start, long end) implements Piece {}

  /** The concat along {@code dim} of {@code parts}. */
  public record Blocks(int dim, List<Piece> parts) implements Piece {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "compositions of layout operators with equal block maps (index maps over the same sources) are equal";
  }

  @Override
  public boolean wholeGraph() {
    return true;
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Match> found) {
    deadline.poll();
    int[] layout = layoutClasses(g);
    LayoutForms forms = new LayoutForms(g, deadline);
    for (int c : layout) {
      forms.of(c);
    }
    if (forms.metCycles()) {
      forms = forms.again(); // a class met on a cycle read itself: read once more, as first read
    }
    Map<BlockMap, Integer> seen = new HashMap<>();
    for (int c : layout) {
      for (BlockMap m : forms.of(c)) {
        Integer other = seen.putIfAbsent(m, c);
        if (other != null && other != c && sameType(g.data(other), g.data(c))) {
          found.match(new Same(other, c));
        }
        int whole = wholeSource(g, m);
        if (whole >= 0 && whole != c && sameType(g.data(whole), g.data(c))) {
          found.match(new Same(whole, c));
        }
      }
    }
    Map<BlockMap, Integer> tensors = new HashMap<>();
    for (int c : g.classesWithOp(Op.TENSOR.id())) {
      for (BlockMap m : forms.of(c)) {
        tensors.putIfAbsent(m, g.find(c));
      }
    }
    Tilings tilings = new Tilings(g, tensors);
    for (int c : layout) {
      deadline.poll();
      for (BlockMap m : forms.of(c)) {
        Tiled t = tilings.of(c, m);
        if (t != null) {
          found.match(t);
          break;
        }
      }
    }
  }

  private static final List<Op> LAYOUT_OPS =
      List.of(Op.EXPAND, Op.RESHAPE, Op.PERMUTE, Op.SLICE, Op.CONCAT);

  /** The canonical classes holding a layout node, ascending. */
  private static int[] layoutClasses(EGraph<TypeInfo> g) {
    BitSet out = new BitSet();
    for (Op op : LAYOUT_OPS) {
      for (int c : g.classesWithOp(op.id())) {
        out.set(g.find(c));
      }
    }
    int[] ids = new int[out.cardinality()];
    for (int c = out.nextSetBit(0), i = 0; c >= 0; c = out.nextSetBit(c + 1)) {
      ids[i++] = c;
    }
    return ids;
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
  public void apply(EGraph<TypeInfo> g, Match match, Unions unions) {
    if (match instanceof Same same) {
      unions.union(same.a(), same.b());
    } else if (match instanceof Tiled t) {
      unions.union(t.cls(), Tilings.build(g, t.form()));
    }
  }
}
