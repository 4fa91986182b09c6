package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.egraph.NodeRange;
import java.util.ArrayList;
import java.util.List;

/**
 * Sums across ranks move out of concats: {@code concat(sum(a0, a1), sum(b0, b1)) = sum(concat(a0,
 * b0), concat(a1, b1))} for any number of parts and terms, and through a concat of concats along
 * another dim split alike, {@code concat_d(concat_e(A0, B0), concat_e(A1, B1)) =
 * concat_e(concat_d(A0, A1), concat_d(B0, B1))} with each column's blocks sums moved out the same
 * way. Both hold for any pairing of the terms; the terms are paired by position (each sum lists its
 * ranks in order), and only toward concats of terms that exist, such as each rank's own (the
 * gradient of a key/value head replicated on several ranks: a concat over heads of sums over each
 * head's replicas, laid out by a rotation's halves along another dim). The pattern language cannot
 * state it (a run of parts each a sum of a run of terms).
 */
final class ConcatOfSums implements NativeRule<ConcatOfSums.SumsOut> {
  static final String NAME = "concat-of-sums";

  /** Most sum nodes of one class tried as its part's sum. */
  private static final int SUMS_PER_PART = 4;

  /** Most pairings of the parts' sums tried for one concat. */
  private static final int PAIRINGS = 16;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a concat of sums across ranks (or of concats of them along another dim) is the sum of"
        + " the existing concats of their terms";
  }

  /**
   * A concat equal to sums of existing concats.
   *
   * @param cls the concat's class
   * @param outerDim -1 when the class is one sum, else the dim of the concat of the columns' sums
   * @param columns each column's terms: the classes of the concats of its parts' terms
   */
  record SumsOut(int cls, int outerDim, int[][] columns) {}

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<SumsOut> found) {
    deadline.poll();
    if (g.classesWithOp(Op.SUMN.id()).length == 0) {
      return;
    }
    List<SumsOut> matches = new ArrayList<>();
    for (EGraph.Held held : g.nodesWithOp(Op.CONCAT.id())) {
      deadline.poll();
      ENode n = held.node();
      if (!g.holds(n.child(0), Op.SUMN.id()) && !g.holds(n.child(0), Op.CONCAT.id())) {
        continue;
      }
      int d = (int) n.attr(0);
      int[] terms = sumsOut(g, n.children(), d);
      if (terms != null) {
        matches.add(new SumsOut(held.cls(), -1, new int[][] {terms}));
        continue;
      }
      SumsOut interchanged = interchanged(g, held.cls(), n, d);
      if (interchanged != null) {
        matches.add(interchanged);
      }
    }
    matches.forEach(found::match);
  }

  @Override
  public void apply(EGraph<TypeInfo> g, SumsOut m, Unions unions) {
    int[] sums = new int[m.columns().length];
    for (int q = 0; q < sums.length; q++) {
      sums[q] = g.add(new ENode(Op.SUMN.id(), new long[0], m.columns()[q]));
    }
    int value =
        m.outerDim() < 0
            ? sums[0]
            : g.add(new ENode(Op.CONCAT.id(), new long[] {m.outerDim()}, sums));
    unions.union(m.cls(), value);
  }

  /**
   * The concat {@code n} along {@code d} of parts that are each a concat along one other dim e into
   * as many blocks, aligned (the i-th blocks of every part of one size along e): the concat along e
   * of each column's concat along d, each with its sums moved out. Null when no such reading has
   * every column's terms.
   */
  private static SumsOut interchanged(EGraph<TypeInfo> g, int cls, ENode n, int d) {
    List<ENode> inner = new ArrayList<>(n.arity());
    for (int i = 0; i < n.arity(); i++) {
      ENode cat = innerConcat(g, n.child(i), d, inner.isEmpty() ? null : inner.get(0));
      if (cat == null) {
        return null;
      }
      inner.add(cat);
    }
    int e = (int) inner.get(0).attr(0);
    int blocks = inner.get(0).arity();
    int[][] columns = new int[blocks][];
    int[] column = new int[n.arity()];
    for (int q = 0; q < blocks; q++) {
      for (int i = 0; i < column.length; i++) {
        column[i] = inner.get(i).child(q);
      }
      columns[q] = sumsOut(g, column, d);
      if (columns[q] == null) {
        return null;
      }
    }
    return new SumsOut(cls, e, columns);
  }

  /**
   * A concat in class {@code c} along a dim other than {@code d}; when {@code like} is given, along
   * its dim into blocks of its sizes.
   */
  private static ENode innerConcat(EGraph<TypeInfo> g, int c, int d, ENode like) {
    NodeRange r = g.nodes(c, Op.CONCAT.id());
    for (int k = r.from(); k < r.to(); k++) {
      ENode m = r.nodes()[k];
      if (m.attr(0) == d || m.arity() < 2) {
        continue;
      }
      if (like == null || ConcatSplits.alike(g, m, like)) {
        return m;
      }
    }
    return null;
  }

  /**
   * For parts that are each a sum of k terms: the classes of the existing concats along {@code d}
   * of the parts' j-th terms, j = 0..k-1; null when no pairing of the parts' sums has them all.
   */
  private static int[] sumsOut(EGraph<TypeInfo> g, int[] parts, int d) {
    List<List<ENode>> sums = new ArrayList<>(parts.length);
    for (int part : parts) {
      List<ENode> own = new ArrayList<>(2);
      NodeRange r = g.nodes(part, Op.SUMN.id());
      for (int k = r.from(); k < r.to() && own.size() < SUMS_PER_PART; k++) {
        if (r.nodes()[k].arity() >= 2) {
          own.add(r.nodes()[k]);
        }
      }
      if (own.isEmpty()) {
        return null;
      }
      sums.add(own);
    }
    int[] choice = new int[parts.length];
    for (int tried = 0; tried < PAIRINGS; tried++) {
      int[] terms = concatsOfTerms(g, sums, choice, d);
      if (terms != null) {
        return terms;
      }
      if (!next(choice, sums)) {
        return null;
      }
    }
    return null;
  }

  /** The next choice of one sum per part, in odometer order; false after the last. */
  private static boolean next(int[] choice, List<List<ENode>> sums) {
    for (int i = choice.length - 1; i >= 0; i--) {
      if (++choice[i] < sums.get(i).size()) {
        return true;
      }
      choice[i] = 0;
    }
    return false;
  }

  private static int[] concatsOfTerms(
      EGraph<TypeInfo> g, List<List<ENode>> sums, int[] choice, int d) {
    int k = sums.get(0).get(choice[0]).arity();
    for (int i = 1; i < choice.length; i++) {
      if (sums.get(i).get(choice[i]).arity() != k) {
        return null;
      }
    }
    int[] out = new int[k];
    int[] row = new int[choice.length];
    for (int j = 0; j < k; j++) {
      for (int i = 0; i < row.length; i++) {
        row[i] = g.find(sums.get(i).get(choice[i]).child(j));
      }
      out[j] = g.lookup(new ENode(Op.CONCAT.id(), new long[] {d}, row.clone()));
      if (out[j] < 0) {
        return null;
      }
    }
    return out;
  }
}
