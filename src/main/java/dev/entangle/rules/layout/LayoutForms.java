package dev.entangle.rules.layout;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.rules.SearchDeadline;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The block maps of an e-graph's classes, computed once on a clean e-graph: a class's forms are
 * those of its layout nodes ({@code expand}, {@code reshape}, {@code permute}, {@code slice},
 * {@code concat}) over its children's forms, and the identity over the class itself when it also
 * holds another node or no layout node gives a form (it is then a source). At most {@link
 * #PER_CLASS} forms are kept per class. A class met again while its forms are being computed (a
 * cycle) stands for itself: its identity, which is always true. A source that is a reshape or
 * permute of a class holding an earlier G_d tensor reads that one instead (its {@link #root}).
 */
final class LayoutForms {
  /** The most forms kept per class. */
  static final int PER_CLASS = 2;

  private static final List<BlockMap> PENDING = List.of();

  private final EGraph<TypeInfo> g;
  private final SearchDeadline deadline;
  private final Map<Integer, List<BlockMap>> forms = new HashMap<>();
  private final Map<Integer, BlockMap> roots = new HashMap<>();

  /** The forms an earlier reading found, for classes met again on a cycle; else empty. */
  private final Map<Integer, List<BlockMap>> earlier;

  private boolean cycles;

  LayoutForms(EGraph<TypeInfo> g, SearchDeadline deadline) {
    this(g, deadline, Map.of());
  }

  private LayoutForms(
      EGraph<TypeInfo> g, SearchDeadline deadline, Map<Integer, List<BlockMap>> earlier) {
    this.g = g;
    this.deadline = deadline;
    this.earlier = earlier;
  }

  /** Whether a class was met again while its forms were being computed. */
  boolean metCycles() {
    return cycles;
  }

  /**
   * A new reading in which a class met again on a cycle has the forms this reading found for it,
   * not only its identity: a slice of a class that is also the concat of its slices (as a tiling
   * makes it) then reads the class's sources, whichever of the two was read first.
   */
  LayoutForms again() {
    return new LayoutForms(g, deadline, forms);
  }

  static boolean isLayout(int op) {
    return op == Op.EXPAND.id()
        || op == Op.RESHAPE.id()
        || op == Op.PERMUTE.id()
        || op == Op.SLICE.id()
        || op == Op.CONCAT.id();
  }

  /** The forms of a class (canonical or not), the layout nodes' first; empty for a tuple. */
  List<BlockMap> of(int cls) {
    int c = g.find(cls);
    List<BlockMap> known = forms.get(c);
    if (known == PENDING) {
      cycles = true;
      List<BlockMap> before = earlier.get(c);
      return before != null && !before.isEmpty() ? before : identity(c);
    }
    if (known != null) {
      return known;
    }
    forms.put(c, PENDING);
    deadline.poll();
    List<BlockMap> out = new ArrayList<>();
    boolean source = false;
    for (ENode n : g.nodes(c)) {
      if (!isLayout(n.op())) {
        source = true;
        continue;
      }
      for (int k = 0; k < PER_CLASS; k++) {
        BlockMap m = ofNode(n, k);
        if (m != null && !out.contains(m)) {
          out.add(m);
        }
      }
    }
    if (out.size() > PER_CLASS) {
      // the forms that read the class's sources, not the class itself, first (a node that views
      // the class again, as a reshape back and forth does, gives only the class's own identity)
      out.sort(Comparator.comparingLong(m -> unreducedCells(m, c)));
      out.subList(PER_CLASS, out.size()).clear();
    }
    if (source || out.isEmpty()) {
      for (BlockMap m : identity(c)) {
        if (!out.contains(m)) {
          out.add(m);
        }
      }
    }
    List<BlockMap> done = List.copyOf(out);
    forms.put(c, done);
    return done;
  }

  /**
   * How far a form's boxes are from reading sources as far down as they go, as a sort key: first
   * how many read the class itself or a class holding no G_d tensor (a slice or view met on a
   * cycle, a value only G_s computes), then how many read a G_d tensor whose own first form reads
   * other sources. A form over G_d tensors alone, in however many boxes, comes before one with a
   * box over a value no rank holds.
   */
  private long unreducedCells(BlockMap m, int c) {
    long foreign = 0;
    long above = 0;
    for (Cell cell : m.cells()) {
      int s = cell.source();
      if (s == c || order(s) == Long.MAX_VALUE) {
        foreign++;
        continue;
      }
      List<BlockMap> own = forms.get(s);
      boolean reduced = own == null || own == PENDING || own.isEmpty() || readsOnly(own.get(0), s);
      above += reduced ? 0 : 1;
    }
    return (foreign << 32) + above;
  }

  /** Whether every box of a form reads the source s. */
  private static boolean readsOnly(BlockMap m, int s) {
    for (Cell cell : m.cells()) {
      if (cell.source() != s) {
        return false;
      }
    }
    return true;
  }

  /**
   * The class read whole as a source: its identity, or, when it is a reshape or permute of a class
   * holding an earlier G_d tensor ({@link #order}), that layout of the earlier class's identity
   * (followed down to the earliest). A tensor and its reshapes and transposes (JAX names each view
   * of a value anew) then read one source, whichever of them a composition starts from, so equal
   * compositions over them have one form.
   */
  private List<BlockMap> identity(int c) {
    BlockMap m = root(g.find(c));
    return m == null ? List.of() : List.of(m);
  }

  private BlockMap root(int c) {
    if (roots.containsKey(c)) {
      return roots.get(c);
    }
    TypeInfo t = g.data(c);
    BlockMap m = null;
    if (t != null && !t.isTuple()) {
      ENode view = null;
      long best = order(c);
      for (ENode n : g.nodes(c)) {
        if (n.op() == Op.RESHAPE.id() || n.op() == Op.PERMUTE.id()) {
          long o = order(g.find(n.child(0)));
          if (o < best) {
            best = o;
            view = n;
          }
        }
      }
      if (view != null) {
        BlockMap below = root(g.find(view.child(0)));
        if (below != null) {
          m =
              view.op() == Op.RESHAPE.id()
                  ? below.reshape(view.attrs())
                  : below.permute(view.attrs());
        }
      }
      if (m == null) {
        m = BlockMap.identity(c, t.shape());
      }
    }
    roots.put(c, m);
    return m;
  }

  /**
   * The first G_d tensor a class holds (their ids follow the programs' order); after every tensor
   * when it holds none.
   */
  private long order(int c) {
    long first = Long.MAX_VALUE;
    for (ENode n : g.nodes(c)) {
      if (n.op() == Op.TENSOR.id()) {
        first = Math.min(first, n.attr(0));
      }
    }
    return first;
  }

  /** The node's form over its children's k-th forms (their last when they have fewer). */
  private BlockMap ofNode(ENode n, int k) {
    List<BlockMap> parts = new ArrayList<>();
    boolean varies = k == 0;
    for (int i = 0; i < n.arity(); i++) {
      List<BlockMap> f = of(n.child(i));
      if (f.isEmpty()) {
        return null;
      }
      varies |= k < f.size();
      parts.add(f.get(Math.min(k, f.size() - 1)));
    }
    if (!varies) {
      return null;
    }
    BlockMap x = parts.get(0);
    long[] a = n.attrs();
    Op op = Op.of(n.op());
    return switch (op) {
      case EXPAND -> x.expand(a);
      case RESHAPE -> x.reshape(a);
      case PERMUTE -> x.permute(a);
      case SLICE -> a.length == 4 ? x.slice((int) a[0], a[1], a[2], a[3]) : null;
      case CONCAT -> BlockMap.concat(parts, (int) a[0]);
      default -> null;
    };
  }
}
