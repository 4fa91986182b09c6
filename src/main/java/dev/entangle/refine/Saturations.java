package dev.entangle.refine;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.Rewrite;
import dev.entangle.egraph.RunReport;
import dev.entangle.egraph.Runner;
import dev.entangle.egraph.SaturationMemo;
import java.util.ArrayList;
import java.util.List;

/**
 * Every operator's saturations, in two stages. The first runs every lemma but the decision
 * procedures that compute a form of every class at each search ({@link
 * dev.entangle.egraph.Searcher#wholeGraph}); most operators of most models are proved by it alone.
 * An operator it leaves unproved is explored again with every lemma, on the same e-graph. Each
 * stage keeps its runs to be replayed on an operator whose e-graph was built alike ({@link
 * SaturationMemo}).
 */
final class Saturations {
  /** One stage: its rewrites, where each sits among all lemmas, and its memo. */
  record Stage(List<Rewrite<TypeInfo>> rewrites, int[] lemmaIndex, SaturationMemo<TypeInfo> memo) {
    RunReport run(EGraph<TypeInfo> g, Runner.Limits limits) {
      return memo.run(g, limits);
    }

    /** Adds the report's counts of firing to {@code fired}, indexed like all lemmas. */
    void count(RunReport report, int[] fired) {
      for (int i = 0; i < lemmaIndex.length; i++) {
        fired[lemmaIndex[i]] += report.applied(i);
      }
    }
  }

  final Stage first;

  /** Every lemma; null when the first stage already runs every lemma. */
  final Stage second;

  Saturations(List<Rewrite<TypeInfo>> rewrites, long budget) {
    List<Rewrite<TypeInfo>> quick = new ArrayList<>();
    List<Integer> index = new ArrayList<>();
    for (int i = 0; i < rewrites.size(); i++) {
      if (!rewrites.get(i).searcher().wholeGraph()) {
        quick.add(rewrites.get(i));
        index.add(i);
      }
    }
    if (quick.size() == rewrites.size()) {
      first = stage(rewrites, allIndices(rewrites.size()), budget);
      second = null;
    } else {
      first = stage(quick, index.stream().mapToInt(Integer::intValue).toArray(), budget / 2);
      second = stage(rewrites, allIndices(rewrites.size()), budget / 2);
    }
  }

  private static Stage stage(List<Rewrite<TypeInfo>> rewrites, int[] index, long budget) {
    return new Stage(List.copyOf(rewrites), index, new SaturationMemo<>(rewrites, budget));
  }

  private static int[] allIndices(int n) {
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = i;
    }
    return out;
  }

  /** How many runs were replayed and how many ran, both stages, as {@code [replayed, ran]}. */
  long[] counts() {
    long[] a = first.memo().counts();
    if (second == null) {
      return a;
    }
    long[] b = second.memo().counts();
    return new long[] {a[0] + b[0], a[1] + b[1]};
  }
}
