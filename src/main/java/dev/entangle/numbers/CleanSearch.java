package dev.entangle.numbers;

import dev.entangle.core.Op;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.core.numeric.Tolerance;
import dev.entangle.core.semantics.Elementwise;
import dev.entangle.core.semantics.Layout;
import dev.entangle.eval.Difference;
import dev.entangle.eval.Fingerprint;
import dev.entangle.eval.GdValue;
import dev.entangle.relation.Expr;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * Searches the G_d values for a clean expression equal to a G_s value, numerically: each G_d
 * tensor, then the same-named tensor of every rank that has it concatenated along each dim, summed,
 * and their max and min, then the same over the groups of a two-dimensional mesh that hold rank 0
 * (its first block of consecutive ranks and its first stride of ranks, for each size dividing their
 * number); each under every permutation of its dims (all of them up to 4 dims, the transpositions
 * beyond) and, where the element count matches, reshaped to the target's shape. Candidates are
 * tried in that order and the first within tolerance ({@link Tolerance#of}) is the answer;
 * otherwise the closest (by relative error) among those already in the target's shape or one
 * reshape away is reported with how it differs. A fingerprint that no arrangement changes rules
 * most candidates out before they are compared, and no pair of different tensors is ever combined,
 * so a search costs time linear in the size of the G_d values; past its work limit it stops and
 * says so.
 */
public final class CleanSearch {
  /** The default limit of elements compared per search. */
  public static final long DEFAULT_WORK = 400_000_000L;

  private static final int ALL_PERMUTATIONS_UP_TO = 4;

  private final List<GdValue> values;
  private final Map<String, List<GdValue>> acrossRanks = new LinkedHashMap<>();
  private final Map<String, Fingerprint> fingerprints = new HashMap<>();
  private final long workLimit;
  private final List<RelationLayouts.Stated> layouts;

  public CleanSearch(List<GdValue> values) {
    this(values, DEFAULT_WORK);
  }

  public CleanSearch(List<GdValue> values, long workLimit) {
    this(values, List.of(), workLimit);
  }

  /**
   * @param values the G_d values to build expressions of, tried in this order
   * @param layouts layouts the input relation states, tried over the ranks' copies of each tensor
   *     after the combinations across ranks ({@link RelationLayouts})
   * @param workLimit the most elements one search compares
   */
  public CleanSearch(List<GdValue> values, List<RelationLayouts.Stated> layouts, long workLimit) {
    this.values = List.copyOf(values);
    this.layouts = List.copyOf(layouts);
    this.workLimit = workLimit;
    Map<String, List<GdValue>> byName = new LinkedHashMap<>();
    for (GdValue v : values) {
      byName.computeIfAbsent(v.name(), k -> new ArrayList<>()).add(v);
    }
    for (var e : byName.entrySet()) {
      List<GdValue> same = new ArrayList<>(e.getValue());
      same.sort((a, b) -> Integer.compare(a.rank(), b.rank()));
      GdValue first = same.get(0);
      boolean oneType =
          same.stream()
              .allMatch(
                  v ->
                      v.value().dtype() == first.value().dtype()
                          && Arrays.equals(v.value().rawShape(), first.value().rawShape()));
      boolean distinctRanks = same.stream().map(GdValue::rank).distinct().count() == same.size();
      if (same.size() > 1 && oneType && distinctRanks) {
        acrossRanks.put(e.getKey(), same);
      }
    }
  }

  /** A candidate before any permutation or reshape: its expression, shape and (lazily) elements. */
  private record Base(String key, Expr expr, long[] shape, Supplier<double[]> data) {}

  /**
   * A permutation of a base's dims (null: none), then a reshape to the target's shape where the
   * shapes still differ; plain when it needs no permutation or no reshape.
   */
  private record Arrangement(long[] perm, boolean plain) {}

  /** Looks for a clean expression equal to {@code target}. */
  public SearchResult search(Tensor target) {
    Tolerance tol = Tolerance.of(target);
    Fingerprint want = Fingerprint.of(target.raw());
    long work = 0;
    int tried = 0;
    Expr best = null;
    Difference bestDiff = null;
    for (Base base : bases(target)) {
      boolean mayEqual = fingerprint(base).mayEqual(want, tol);
      double[] data = null;
      for (Arrangement a : arrangements(base.shape(), target.rawShape())) {
        if (!mayEqual && !a.plain()) {
          continue;
        }
        if (work + target.numel() > workLimit) {
          return new SearchResult.NotFound(
              best,
              bestDiff,
              tried,
              "the search compared " + work + " elements, its limit is " + workLimit);
        }
        work += target.numel();
        data = data == null ? base.data().get() : data;
        double[] arranged =
            a.perm() == null
                ? data
                : Layout.permute(new Tensor(base.shape(), target.dtype(), data), a.perm());
        Difference d = Difference.between(arranged, target, tol);
        tried++;
        Expr expr = expression(base.expr(), a, base.shape(), target.rawShape());
        if (d.matches()) {
          return new SearchResult.Found(expr, d);
        }
        if (bestDiff == null || d.relativeError() < bestDiff.relativeError()) {
          best = expr;
          bestDiff = d;
        }
      }
    }
    return new SearchResult.NotFound(best, bestDiff, tried, null);
  }

  private Fingerprint fingerprint(Base base) {
    return fingerprints.computeIfAbsent(base.key(), k -> Fingerprint.of(base.data().get()));
  }

  /** Every tensor of the target's dtype and element count, then the combinations across ranks. */
  private List<Base> bases(Tensor target) {
    long n = target.numel();
    int dtype = target.dtype();
    List<Base> out = new ArrayList<>();
    for (GdValue v : values) {
      if (v.value().dtype() == dtype && v.value().numel() == n) {
        out.add(
            new Base(
                v.label(),
                new Expr.Tensor(v.rank(), v.name()),
                v.value().rawShape(),
                v.value()::raw));
      }
    }
    for (var e : acrossRanks.entrySet()) {
      acrossRanks(e.getKey(), e.getValue(), n, dtype, out);
    }
    for (RelationLayouts.Stated layout : layouts) {
      inLayout(layout, n, dtype, out);
    }
    // then the groups of a two-dimensional mesh that hold rank 0: its first block of consecutive
    // ranks and its first stride of them, for each size that divides the ranks
    for (var e : acrossRanks.entrySet()) {
      List<GdValue> all = e.getValue();
      for (int size = 2; size < all.size(); size++) {
        if (all.size() % size != 0) {
          continue;
        }
        int stride = all.size() / size;
        List<GdValue> block = new ArrayList<>();
        List<GdValue> strided = new ArrayList<>();
        for (int i = 0; i < size; i++) {
          block.add(all.get(i));
          strided.add(all.get(i * stride));
        }
        acrossRanks(e.getKey() + "/" + ranks(block), block, n, dtype, out);
        acrossRanks(e.getKey() + "/" + ranks(strided), strided, n, dtype, out);
      }
    }
    return out;
  }

  /**
   * A stated layout over the ranks' copies of each tensor that holds its slices, when it has the
   * target's dtype and element count.
   */
  private void inLayout(RelationLayouts.Stated layout, long n, int dtype, List<Base> out) {
    for (var e : acrossRanks.entrySet()) {
      Map<Integer, Tensor> tensors = new HashMap<>();
      e.getValue().forEach(v -> tensors.put(v.rank(), v.value()));
      if (e.getValue().get(0).value().dtype() != dtype
          || !tensors.keySet().containsAll(layout.ranks())) {
        continue;
      }
      Tensor value;
      try {
        value = layout.value(tensors);
      } catch (IllegalArgumentException outside) {
        continue; // its slices reach past this tensor
      }
      if (value.numel() == n) {
        out.add(
            new Base(
                "layout/" + layout.expr() + "/" + e.getKey(),
                layout.over(e.getKey()),
                value.rawShape(),
                value::raw));
      }
    }
  }

  private static String ranks(List<GdValue> parts) {
    return parts.stream().map(v -> Integer.toString(v.rank())).toList().toString();
  }

  /** The concatenations, sums, maxima and minima of one tensor's copies on {@code parts}. */
  private static void acrossRanks(
      String key, List<GdValue> parts, long n, int dtype, List<Base> out) {
    Tensor first = parts.get(0).value();
    if (first.dtype() != dtype) {
      return;
    }
    List<Expr> refs = parts.stream().map(v -> (Expr) new Expr.Tensor(v.rank(), v.name())).toList();
    Tensor[] tensors = parts.stream().map(GdValue::value).toArray(Tensor[]::new);
    if ((long) first.numel() * parts.size() == n) {
      for (int d = 0; d < first.rank(); d++) {
        long[] shape = first.shape();
        shape[d] *= parts.size();
        int dim = d;
        out.add(
            new Base(
                "concat/" + d + "/" + key,
                new Expr.Concat(refs, d),
                shape,
                () -> Layout.concat(tensors, dim, shape)));
      }
    }
    if (first.numel() == n) {
      for (Expr.ReduceKind kind : Expr.ReduceKind.values()) {
        if (kind == Expr.ReduceKind.MEAN) {
          continue; // a mean across ranks is not guessed: with ranks that sum in crossed
          // groups, the mean of what every rank holds can equal the value while no rank does
        }
        Op op =
            switch (kind) {
              case SUM, MEAN -> Op.SUMN;
              case MAX -> Op.MAXN;
              case MIN -> Op.MINN;
            };
        double[][] xs = Arrays.stream(tensors).map(Tensor::raw).toArray(double[][]::new);
        out.add(
            new Base(
                kind.fn() + "/" + key,
                new Expr.Reduce(kind, refs),
                first.shape(),
                () -> Elementwise.combine(op, xs)));
      }
    }
  }

  /**
   * The arrangements of a base of shape {@code s} for a target of shape {@code t}: each permutation
   * (the identity first), as it is when it gives {@code t}, else reshaped to it. Plain ones (no
   * permutation, or one that gives {@code t} without a reshape) are compared even when the
   * fingerprint rules out a match, to find the closest candidate.
   */
  private static List<Arrangement> arrangements(long[] s, long[] t) {
    List<Arrangement> out = new ArrayList<>();
    for (long[] p : permutations(s.length)) {
      boolean identity = isIdentity(p);
      long[] ps = new long[s.length];
      for (int i = 0; i < p.length; i++) {
        ps[i] = s[(int) p[i]];
      }
      boolean exact = Arrays.equals(ps, t);
      out.add(new Arrangement(identity ? null : p, identity || exact));
    }
    return out;
  }

  private static List<long[]> permutations(int n) {
    List<long[]> out = new ArrayList<>();
    long[] id = new long[n];
    for (int i = 0; i < n; i++) {
      id[i] = i;
    }
    if (n <= ALL_PERMUTATIONS_UP_TO) {
      permute(id, 0, out);
      out.sort(CleanSearch::lexicographic);
      return out;
    }
    out.add(id);
    for (int i = 0; i < n; i++) {
      for (int j = i + 1; j < n; j++) {
        long[] p = id.clone();
        p[i] = j;
        p[j] = i;
        out.add(p);
      }
    }
    return out;
  }

  private static void permute(long[] a, int k, List<long[]> out) {
    if (k >= a.length - 1) {
      out.add(a.clone());
      return;
    }
    for (int i = k; i < a.length; i++) {
      swap(a, k, i);
      permute(a, k + 1, out);
      swap(a, k, i);
    }
  }

  private static void swap(long[] a, int i, int j) {
    long x = a[i];
    a[i] = a[j];
    a[j] = x;
  }

  private static int lexicographic(long[] a, long[] b) {
    return Arrays.compare(a, b);
  }

  private static boolean isIdentity(long[] p) {
    for (int i = 0; i < p.length; i++) {
      if (p[i] != i) {
        return false;
      }
    }
    return true;
  }

  /** The expression of an arrangement: a transpose for one swap, else a permute; then a reshape. */
  private static Expr expression(Expr base, Arrangement a, long[] s, long[] t) {
    Expr e = base;
    if (a.perm() != null) {
      int[] moved = IntStream.range(0, a.perm().length).filter(i -> a.perm()[i] != i).toArray();
      e =
          moved.length == 2
              ? new Expr.Transpose(e, moved[0], moved[1])
              : new Expr.Permute(
                  e, Arrays.stream(a.perm()).mapToInt(x -> (int) x).boxed().toList());
    }
    long[] arranged = s;
    if (a.perm() != null) {
      arranged = new long[s.length];
      for (int i = 0; i < s.length; i++) {
        arranged[i] = s[(int) a.perm()[i]];
      }
    }
    if (!Arrays.equals(arranged, t)) {
      e = new Expr.Reshape(e, Arrays.stream(t).boxed().toList());
    }
    return e;
  }
}
