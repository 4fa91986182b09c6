package dev.entangle.lower.aten;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.graph.Arg;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * Calls whose indices the program fixes, read as the layout they pick: DTensor's reorder of a
 * strided shard sorts positions built from aranges, splits and concats, selects rows by the sorted
 * order, and views the result with {@code as_strided}. Where the builder knows the indices ({@link
 * dev.entangle.core.TermBuilder#known}), a selection is a concat of slices (one per run of evenly
 * spaced indices) and a sort's result is a concat of aranges; a layout the lemmas and the layout
 * procedure read like any other. Indices that are not known, or that make more than {@link
 * #MAX_RUNS} runs, keep the general lowering (a lookup) or stay opaque.
 */
final class FixedIndexLowering {
  /** The most slices one selection becomes. */
  static final int MAX_RUNS = 64;

  /**
   * Calls whose result is a fresh tensor laid out in row-major order from offset 0, which {@code
   * as_strided} with row-major strides only views again.
   */
  private static final Set<String> FRESH =
      Set.of("aten.index_select", "aten.mm", "aten.addmm", "aten.bmm", "aten.embedding");

  int[] lower(String base, Call c) {
    return switch (base) {
      case "aten.sort" -> sort(c, true);
      case "aten.argsort" -> sort(c, false);
      case "aten.as_strided" -> asStrided(c);
      default -> null;
    };
  }

  /**
   * x's entries along dim d at the known indices {@code ids}, as a concat of slices of x; -1 when
   * they are not all within the dim or make too many runs.
   */
  static int select(Call c, int x, int d, Tensor ids) {
    return pick(c, x, d, ids, false); // index_select refuses a negative index
  }

  /**
   * x's entries along dim d at the known indices {@code ids} of any shape (flattened), a negative
   * index counting from the end as {@code aten.index} reads it; -1 when one is outside [-n, n), not
   * whole, or they make too many runs.
   */
  static int selectWrapped(Call c, int x, int d, Tensor ids) {
    return pick(c, x, d, ids, true);
  }

  private static int pick(Call c, int x, int d, Tensor ids, boolean fromEnd) {
    long n = c.shape(x)[d];
    if (ids.numel() == 0) {
      return -1; // nothing selected: the general lowering's empty lookup
    }
    long lowest = fromEnd ? -n : 0;
    long[] v = new long[ids.numel()];
    for (int i = 0; i < v.length; i++) {
      double e = ids.at(i);
      if (e < lowest || e >= n || e != Math.rint(e)) {
        return -1; // torch refuses it; the general lowering says what the numbers say
      }
      v[i] = e < 0 ? (long) e + n : (long) e;
    }
    return slices(c, x, d, v);
  }

  /** x's entries along dim d at indices v, in range, as a concat of slices; -1: too many runs. */
  private static int slices(Call c, int x, int d, long[] v) {
    return concatOfRuns(c, v, d, r -> LayoutLowering.slice(c, x, d, r[0], r[1], r[2]));
  }

  /**
   * The concat along d of one part per run of v ({@link #runs}), each made by {@code part} from the
   * run's {@code [start, end, step]}; -1 when there are too many runs.
   */
  private static int concatOfRuns(Call c, long[] v, int d, ToIntFunction<long[]> part) {
    List<long[]> runs = runs(v);
    if (runs == null) {
      return -1;
    }
    int[] parts = new int[runs.size()];
    for (int i = 0; i < parts.length; i++) {
      parts[i] = part.applyAsInt(runs.get(i));
    }
    return parts.length == 1 ? parts[0] : c.b.add(Op.CONCAT, new long[] {d}, parts);
  }

  /**
   * The runs of evenly spaced, increasing entries of v, each {@code [start, end, step]} as a slice
   * takes it (a run of step 1 first, then one of a larger step of at least three entries, else a
   * single entry); null when there are more than {@link #MAX_RUNS}.
   */
  static List<long[]> runs(long[] v) {
    List<long[]> out = new ArrayList<>();
    int i = 0;
    while (i < v.length) {
      long step = i + 1 < v.length ? v[i + 1] - v[i] : 1;
      boolean even = step == 1 || (step > 1 && i + 2 < v.length && v[i + 2] - v[i + 1] == step);
      if (!even) {
        step = 1;
      }
      int j = i;
      while (even && j + 1 < v.length && v[j + 1] - v[j] == step) {
        j++;
      }
      out.add(new long[] {v[i], v[j] + 1, step});
      if (out.size() > MAX_RUNS) {
        return null;
      }
      i = j + 1;
    }
    return out;
  }

  /**
   * {@code sort} (values and indices) or {@code argsort} (indices) of a known 1-d integer tensor:
   * the indices a concat of aranges, the values the input selected at them. Ties are ordered only
   * by a stable sort; an unstable sort of equal entries, or an input not known, stays opaque.
   */
  private static int[] sort(Call c, boolean withValues) {
    int x = c.tensor(0, "self");
    Tensor t = c.b.known(x);
    if (t == null || t.rank() != 1 || t.numel() == 0 || !Dtype.of(t.dtype()).isIntegral()) {
      return null; // floating keys: the reference kernels may break a tie torch's do not
    }
    long d = c.integer(1, "dim", -1L);
    if (d != 0 && d != -1) {
      return null;
    }
    boolean stable = c.bool(-1, "stable", false);
    boolean descending = c.bool(2, "descending", false);
    int n = t.numel();
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Comparator<Integer> byValue = Comparator.comparingDouble(t::at);
    Arrays.sort(order, descending ? byValue.reversed() : byValue); // stable: ties keep their order
    for (int i = 0; !stable && i + 1 < n; i++) {
      if (t.at(order[i]) == t.at(order[i + 1])) {
        return null; // which of equal entries comes first is not defined
      }
    }
    long[] idx = new long[n];
    for (int i = 0; i < n; i++) {
      idx[i] = order[i];
    }
    int indices = concatOfRuns(c, idx, 0, r -> c.arange(r[0], r[1], r[2]));
    if (indices < 0) {
      return null;
    }
    if (!withValues) {
      return new int[] {indices};
    }
    return new int[] {slices(c, x, 0, idx), indices}; // as many runs as the indices
  }

  /**
   * {@code as_strided(self, size, stride, storage_offset)} of a fresh row-major tensor ({@link
   * #FRESH}) with the row-major strides of {@code size}: the elements from the offset on, reshaped.
   * Any other view of storage stays opaque (what it reads depends on a layout values do not keep).
   */
  private static int[] asStrided(Call c) {
    int x = c.tensor(0, "self");
    String producer = c.inputs.target(((Arg.NodeRef) c.arg(0, "self")).name());
    if (producer == null || !FRESH.contains(AtenNormalizer.baseName(producer))) {
      return null;
    }
    long[] size = c.ints(1, "size");
    long[] stride = c.ints(2, "stride");
    long offset = c.has(3, "storage_offset") ? c.integer(3, "storage_offset", 0L) : 0;
    if (size.length != stride.length || offset < 0) {
      return null;
    }
    long expect = 1;
    for (int i = size.length - 1; i >= 0; i--) {
      if (size[i] != 1 && stride[i] != expect) {
        return null;
      }
      expect *= size[i];
    }
    long total = c.type(x).numel();
    if (offset + expect > total) {
      return null;
    }
    int flat = c.reshape(x, new long[] {total});
    int part = LayoutLowering.slice(c, flat, 0, offset, offset + expect, 1);
    return new int[] {c.reshape(part, size)};
  }
}
