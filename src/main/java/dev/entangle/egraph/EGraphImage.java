package dev.entangle.egraph;

import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * The state of a clean e-graph that keeps a journal, as the {@link SaturationMemo} remembers it, to
 * be put back ({@link #restoreInto}) into an e-graph whose journal names the same values in the
 * same order. Named nodes hold their journal ordinals in place of their names, so one image serves
 * every e-graph built alike. Immutable.
 *
 * @param <D> the analysis fact type
 */
final class EGraphImage<D> {
  private final int[] parents;
  private final ENode[][] nodes;
  private final Object[] data;
  private final ENode[][] parentNodes;
  private final int[][] parentClasses;
  private final int[][] byOp;
  private final int classCount;
  private final long version;
  private final BitSet touched;

  private EGraphImage(EGraph<D> g) {
    int n = g.classes.size();
    parents = g.uf.parents();
    nodes = new ENode[n][];
    data = new Object[n];
    parentNodes = new ENode[n][];
    parentClasses = new int[n][];
    for (int i = 0; i < n; i++) {
      EClass<D> c = g.classes.get(i);
      if (c != null) {
        nodes[i] = renamed(g.journal(), c.nodes, true);
        data[i] = c.data;
        parentNodes[i] = renamed(g.journal(), c.parentNodes, true);
        parentClasses[i] = c.parentClasses.toArray();
      }
    }
    byOp = new int[g.byOp.size()][];
    for (int i = 0; i < byOp.length; i++) {
      byOp[i] = g.byOp.get(i).toArray();
    }
    classCount = g.classCount;
    version = g.version();
    touched = (BitSet) g.touched.clone();
  }

  /**
   * The state of {@code g}, which must be clean and keep a journal.
   *
   * @throws IllegalStateException when it is not clean or keeps no journal
   */
  static <D> EGraphImage<D> of(EGraph<D> g) {
    if (!g.isClean() || g.journal() == null) {
      throw new IllegalStateException("an image is taken of a clean e-graph with a journal");
    }
    return new EGraphImage<>(g);
  }

  /**
   * Puts this state back into {@code g}, with {@code g}'s journal's names in place of ordinals. The
   * journal itself is the caller's to bring up to date.
   */
  @SuppressWarnings("unchecked")
  void restoreInto(EGraph<D> g) {
    Journal journal = g.journal();
    g.uf.restore(parents);
    g.classes.clear();
    g.memo.clear();
    for (int i = 0; i < nodes.length; i++) {
      if (nodes[i] == null) {
        g.classes.add(null);
        continue;
      }
      ENode[] ns = renamed(journal, Arrays.asList(nodes[i]), false);
      for (ENode n : ns) {
        g.memo.put(n, i);
      }
      g.classes.add(
          new EClass<>(
              i,
              ns,
              (D) data[i],
              renamed(journal, Arrays.asList(parentNodes[i]), false),
              parentClasses[i]));
    }
    g.byOp.clear();
    for (int[] l : byOp) {
      g.byOp.add(IntList.of(l));
    }
    g.restored(classCount, version, touched);
  }

  /**
   * How many entries its arrays hold: ids, nodes, parents and index entries (a measure of its
   * memory: an entry and its share of the nodes kept alive take some tens of bytes).
   */
  long size() {
    long s = parents.length;
    for (int i = 0; i < nodes.length; i++) {
      if (nodes[i] != null) {
        s += 2L * nodes[i].length + 2L * parentNodes[i].length;
      }
    }
    for (int[] l : byOp) {
      s += l.length;
    }
    return s;
  }

  /** The nodes with each named node's name written as its journal ordinal, or back. */
  private static ENode[] renamed(Journal journal, List<ENode> from, boolean toOrdinals) {
    ENode[] out = from.toArray(new ENode[0]);
    for (int i = 0; i < out.length; i++) {
      ENode n = out[i];
      if (n.attrs.length > 0 && journal.names(n.op)) {
        long[] attrs = n.attrs.clone();
        attrs[0] = toOrdinals ? journal.ordinalOf(attrs[0]) : journal.name((int) attrs[0]);
        out[i] = ENode.owning(n.op, attrs, n.children);
      }
    }
    return out;
  }
}
