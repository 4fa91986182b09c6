package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.egraph.NodeRange;

/**
 * {@code sum(concat(a0, a1), concat(b0, b1), ...) = concat(sum(a0, b0, ...), sum(a1, b1, ...))} for
 * terms each a concat along one dim into blocks of the same sizes, for any number of terms and
 * blocks: a reduce-scatter of every rank's partial result is the concat of the ranks' shares. The
 * pattern language cannot state it (a run of terms each a run of blocks). The first concat along a
 * dim, in node order, is taken from each term's class, that of the first term setting the dim.
 */
final class SumOfConcats implements NativeRule<SumOfConcats.Blockwise> {
  static final String NAME = "sumn-of-concats";

  /**
   * A sum equal to the concat along {@code dim} of the sums of {@code columns}, one per block.
   *
   * @param cls the sum's class
   * @param dim the concats' dim
   * @param columns per block, the terms' blocks in the terms' order
   */
  record Blockwise(int cls, long dim, int[][] columns) {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a sum of concats split alike is the concat of the block-wise sums";
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Blockwise> found) {
    deadline.poll();
    if (g.classesWithOp(Op.CONCAT.id()).length == 0) {
      return;
    }
    for (EGraph.Held held : g.nodesWithOp(Op.SUMN.id())) {
      deadline.poll();
      ENode sum = held.node();
      NodeRange first = g.nodes(sum.child(0), Op.CONCAT.id());
      for (int k = first.from(); k < first.to(); k++) {
        Blockwise m = blockwise(g, held.cls(), sum, first.nodes()[k]);
        if (m != null) {
          found.match(m);
          break;
        }
      }
    }
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Blockwise m, Unions unions) {
    int[] sums = new int[m.columns().length];
    for (int i = 0; i < sums.length; i++) {
      sums[i] = g.add(new ENode(Op.SUMN.id(), new long[0], m.columns()[i]));
    }
    unions.union(m.cls(), g.add(new ENode(Op.CONCAT.id(), new long[] {m.dim()}, sums)));
  }

  /**
   * The sum {@code sum} as the concat of block-wise sums, with the first term read as {@code cat};
   * null when some term holds no concat along its dim into blocks of its sizes.
   */
  private static Blockwise blockwise(EGraph<TypeInfo> g, int cls, ENode sum, ENode cat) {
    int blocks = cat.arity();
    if (blocks < 2) {
      return null;
    }
    ENode[] terms = new ENode[sum.arity()];
    terms[0] = cat;
    for (int j = 1; j < terms.length; j++) {
      terms[j] = alike(g, sum.child(j), cat);
      if (terms[j] == null) {
        return null;
      }
    }
    int[][] columns = new int[blocks][terms.length];
    for (int i = 0; i < blocks; i++) {
      for (int j = 0; j < terms.length; j++) {
        columns[i][j] = g.find(terms[j].child(i));
      }
    }
    return new Blockwise(cls, cat.attr(0), columns);
  }

  /** A concat in class {@code c} along {@code like}'s dim into blocks of its sizes, or null. */
  private static ENode alike(EGraph<TypeInfo> g, int c, ENode like) {
    NodeRange r = g.nodes(c, Op.CONCAT.id());
    for (int k = r.from(); k < r.to(); k++) {
      ENode m = r.nodes()[k];
      if (ConcatSplits.alike(g, m, like)) {
        return m;
      }
    }
    return null;
  }
}
