package dev.entangle.lower.aten;

import dev.entangle.core.Op;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.graph.Arg;
import dev.entangle.lower.LoweringException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Calls that rearrange elements: views and reshapes, transposes and permutes, expand, concat,
 * slices, selects, splits, constant padding, repeats, flips and index_select. Returns null for
 * calls it does not handle.
 */
public final class LayoutLowering {

  int[] lower(String base, Call c) {
    switch (base) {
      case "aten.view",
          "aten.reshape",
          "aten._unsafe_view",
          "aten._reshape_alias",
          "aten.view_copy" -> {
        int x = c.tensor(0, "self");
        return one(c.reshape(x, inferShape(c.ints(1, "size"), c.type(x).numel())));
      }
      case "aten.flatten" -> {
        int x = c.tensor(0, "self");
        long[] s = c.shape(x);
        if (s.length == 0) {
          return one(c.reshape(x, new long[] {1}));
        }
        int a = c.dim(c.integer(1, "start_dim", 0L), s.length);
        int e = c.dim(c.integer(2, "end_dim", -1L), s.length);
        List<Long> out = new ArrayList<>();
        long m = 1;
        for (int i = 0; i < s.length; i++) {
          if (i < a || i > e) {
            out.add(s[i]);
          } else {
            m *= s[i];
            if (i == e) {
              out.add(m);
            }
          }
        }
        return one(c.reshape(x, out.stream().mapToLong(Long::longValue).toArray()));
      }
      case "aten.unsqueeze" -> {
        int x = c.tensor(0, "self");
        long[] s = c.shape(x);
        int d = c.dim(c.integer(1, "dim", null), s.length + 1);
        long[] out = new long[s.length + 1];
        for (int i = 0, k = 0; i < out.length; i++) {
          out[i] = i == d ? 1 : s[k++];
        }
        return one(c.reshape(x, out));
      }
      case "aten.squeeze" -> {
        int x = c.tensor(0, "self");
        long[] s = c.shape(x);
        boolean[] drop = new boolean[s.length];
        if (c.has(1, "dim")) {
          Arg a = c.arg(1, "dim");
          long[] ds =
              a instanceof Arg.ListArg ? c.ints(1, "dim") : new long[] {c.integer(1, "dim", null)};
          for (long d : ds) {
            int k = c.dim(d, s.length);
            drop[k] = s.length > 0 && s[k] == 1;
          }
        } else {
          for (int i = 0; i < s.length; i++) {
            drop[i] = s[i] == 1;
          }
        }
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < s.length; i++) {
          if (!drop[i]) {
            out.add(s[i]);
          }
        }
        return one(c.reshape(x, out.stream().mapToLong(Long::longValue).toArray()));
      }
      case "aten.t", "aten.numpy_T" -> {
        int x = c.tensor(0, "self");
        return one(c.type(x).rank() < 2 ? x : c.b.add(Op.PERMUTE, new long[] {1, 0}, x));
      }
      case "aten.transpose", "aten.swapaxes", "aten.swapdims" -> {
        int x = c.tensor(0, "self");
        int n = c.type(x).rank();
        int d0 = c.dim(c.integer(1, "dim0", null), n);
        int d1 = c.dim(c.integer(2, "dim1", null), n);
        return one(permute(c, x, swap(n, d0, d1)));
      }
      case "aten.permute" -> {
        int x = c.tensor(0, "self");
        int n = c.type(x).rank();
        long[] ds = c.ints(1, "dims");
        for (int i = 0; i < ds.length; i++) {
          ds[i] = c.dim(ds[i], n);
        }
        return one(permute(c, x, ds));
      }
      case "aten.expand" -> {
        int x = c.tensor(0, "self");
        long[] sizes = c.ints(1, "size");
        long[] s = c.shape(x);
        int off = sizes.length - s.length;
        for (int i = 0; i < sizes.length; i++) {
          if (sizes[i] == -1) {
            if (i < off) {
              throw new LoweringException("expand with -1 for a new leading dim");
            }
            sizes[i] = s[i - off];
          }
        }
        return one(c.expandTo(x, sizes));
      }
      case "aten.expand_as" -> {
        return one(c.expandTo(c.tensor(0, "self"), c.shape(c.tensor(1, "other"))));
      }
      case "aten.cat", "aten.concat", "aten.concatenate" -> {
        List<Integer> parts = c.tensorList(0, "tensors");
        List<Integer> kept = new ArrayList<>();
        for (int p : parts) {
          long[] s = c.shape(p);
          if (!(s.length == 1 && s[0] == 0)) { // torch.cat skips legacy empty tensors
            kept.add(p);
          }
        }
        int rank = c.type(kept.get(0)).rank();
        int d = c.dim(c.integer(1, "dim", 0L), rank);
        int[] kids = kept.stream().mapToInt(Integer::intValue).toArray();
        return one(kids.length == 1 ? kids[0] : c.b.add(Op.CONCAT, new long[] {d}, kids));
      }
      case "aten.repeat" -> {
        return one(repeat(c, c.tensor(0, "self"), c.ints(1, "repeats")));
      }
      case "aten.index_select" -> {
        int x = c.tensor(0, "self");
        long[] s = c.shape(x);
        if (s.length == 0) {
          return null; // a 0-d tensor's one element: rare, kept opaque
        }
        int d = c.dim(c.integer(1, "dim", null), s.length);
        int ids = c.tensor(2, "index");
        Tensor fixed = c.type(ids).rank() <= 1 ? c.b.known(ids) : null;
        int runs = fixed == null ? -1 : FixedIndexLowering.select(c, x, d, fixed);
        return one(runs >= 0 ? runs : selectAlong(c, x, d, ids)); // fixed indices: their slices
      }
      case "aten.gather" -> {
        int x = c.tensor(0, "self");
        if (c.type(x).rank() == 0 || c.bool(3, "sparse_grad", false)) {
          return null;
        }
        return one(
            gather(c, x, c.dim(c.integer(1, "dim", null), c.type(x).rank()), c.tensor(2, "index")));
      }
      case "aten.scatter_add" -> {
        int x = c.tensor(0, "self");
        if (c.type(x).rank() == 0) {
          return null;
        }
        int d = c.dim(c.integer(1, "dim", null), c.type(x).rank());
        return one(scatterAdd(c, x, d, c.tensor(2, "index"), c.tensor(3, "src")));
      }
      case "aten.diagonal" -> {
        int x = c.tensor(0, "self");
        int rank = c.type(x).rank();
        if (rank < 2) {
          throw new LoweringException("diagonal takes a tensor of at least 2 dims, got " + rank);
        }
        int d1 = c.dim(c.integer(2, "dim1", 0L), rank);
        int d2 = c.dim(c.integer(3, "dim2", 1L), rank);
        if (d1 == d2) {
          throw new LoweringException("diagonal's two dims must differ, got " + d1 + " twice");
        }
        return one(diagonal(c, x, c.integer(1, "offset", 0L), d1, d2));
      }
      case "aten.flip" -> {
        int x = c.tensor(0, "self");
        long[] s = c.shape(x);
        for (long d : c.ints(1, "dims")) {
          int k = c.dim(d, s.length);
          if (s.length > 0 && s[k] > 1) {
            int reversed = c.arange(s[k] - 1, -1, -1);
            x = selectAlong(c, x, k, reversed);
          }
        }
        return one(x);
      }
      case "aten.slice" -> {
        int x = c.tensor(0, "self");
        long[] s = c.shape(x);
        int d = c.dim(c.integer(1, "dim", 0L), s.length);
        long start = c.has(2, "start") ? c.integer(2, "start", null) : 0;
        long end = c.has(3, "end") ? c.integer(3, "end", null) : Long.MAX_VALUE;
        long step = c.integer(4, "step", 1L);
        return one(slice(c, x, d, start, end, step));
      }
      case "aten.narrow" -> {
        int x = c.tensor(0, "self");
        long[] s = c.shape(x);
        int d = c.dim(c.integer(1, "dim", null), s.length);
        long start = c.integer(2, "start", null);
        start = start < 0 ? start + s[d] : start;
        return one(slice(c, x, d, start, start + c.integer(3, "length", null), 1));
      }
      case "aten.select" -> {
        int x = c.tensor(0, "self");
        long[] s = c.shape(x);
        int d = c.dim(c.integer(1, "dim", null), s.length);
        long i = c.integer(2, "index", null);
        i = i < 0 ? i + s[d] : i;
        if (i < 0 || i >= s[d]) {
          throw new LoweringException("select index " + i + " out of range for size " + s[d]);
        }
        int sl = slice(c, x, d, i, i + 1, 1);
        long[] out = new long[s.length - 1];
        for (int k = 0, j = 0; k < s.length; k++) {
          if (k != d) {
            out[j++] = s[k];
          }
        }
        return one(c.reshape(sl, out));
      }
      case "aten.split",
          "aten.split_with_sizes",
          "aten.chunk",
          "aten.unsafe_split",
          "aten.unsafe_split_with_sizes",
          "aten.tensor_split" -> {
        if (base.equals("aten.tensor_split")) {
          return null;
        }
        return split(base, c);
      }
      case "aten.unbind" -> {
        int x = c.tensor(0, "self");
        long[] s = c.shape(x);
        int d = c.dim(c.integer(1, "dim", 0L), s.length);
        int[] out = new int[(int) s[d]];
        long[] itemShape = new long[s.length - 1];
        for (int k = 0, j = 0; k < s.length; k++) {
          if (k != d) {
            itemShape[j++] = s[k];
          }
        }
        for (int i = 0; i < out.length; i++) {
          out[i] = c.reshape(slice(c, x, d, i, i + 1, 1), itemShape);
        }
        return out;
      }
      case "aten.slice_scatter" -> {
        return sliceScatter(c);
      }
      case "aten.select_scatter" -> {
        // select_scatter(x, src, dim, index): the slice [index, index + 1) replaced by src
        int x = c.tensor(0, "self");
        long[] s = c.shape(x);
        int d = c.dim(c.integer(2, "dim", null), s.length);
        long i = c.integer(3, "index", null);
        if (i < -s[d] || i >= s[d]) {
          throw new LoweringException(
              "select_scatter index " + i + " out of range for dim " + d + " of size " + s[d]);
        }
        long at = i < 0 ? i + s[d] : i;
        int src = c.reshape(c.tensor(1, "src"), withSize(s, d, 1));
        return one(splice(c, d, s[d], at, at + 1, src, (from, to) -> slice(c, x, d, from, to, 1)));
      }
      case "aten.reflection_pad1d",
          "aten.reflection_pad2d",
          "aten.reflection_pad3d",
          "aten.replication_pad1d",
          "aten.replication_pad2d",
          "aten.replication_pad3d" -> {
        return one(edgePad(c, base.startsWith("aten.reflection"), "padding"));
      }
      case "aten.upsample_nearest1d", "aten.upsample_nearest2d", "aten.upsample_nearest3d" -> {
        return nearestUpsample(c);
      }
      case "aten.slice_backward" -> {
        return sliceBackward(c);
      }
      case "aten.constant_pad_nd" -> {
        return one(constantPad(c, c.number(2, "value", 0.0)));
      }
      case "aten.pad" -> {
        Arg mode = c.arg(2, "mode");
        if (mode instanceof Arg.StrArg m && !m.value().equals("constant")) {
          return switch (m.value()) {
            case "reflect" -> one(edgePad(c, true, "pad"));
            case "replicate" -> one(edgePad(c, false, "pad"));
            default -> null; // circular padding stays opaque
          };
        }
        return one(constantPad(c, c.number(3, "value", 0.0)));
      }
      default -> {
        return null;
      }
    }
  }

  /** {@code slice_scatter(x, src, dim, start, end)}: x with that slice replaced by src (step 1). */
  private static int[] sliceScatter(Call c) {
    int x = c.tensor(0, "self");
    int src = c.tensor(1, "src");
    long[] s = c.shape(x);
    int d = c.dim(c.integer(2, "dim", 0L), s.length);
    long n = s[d];
    long start = c.has(3, "start") ? c.integer(3, "start", null) : 0;
    long end = c.has(4, "end") ? c.integer(4, "end", null) : Long.MAX_VALUE;
    if (c.integer(5, "step", 1L) != 1) {
      return null;
    }
    long[] b = sliceBounds(start, end, n);
    return one(splice(c, d, n, b[0], b[1], src, (from, to) -> slice(c, x, d, from, to, 1)));
  }

  /**
   * {@code slice_backward(g, input_sizes, dim, start, end, step)}, the gradient of a slice: zeros
   * of the input's shape with g in the slice (step 1), a concat of a zero block, g and a zero
   * block.
   */
  private static int[] sliceBackward(Call c) {
    int g = c.tensor(0, "grad_output");
    long[] sizes = c.ints(1, "input_sizes");
    int d = c.dim(c.integer(2, "dim", null), sizes.length);
    long n = sizes[d];
    if (c.integer(5, "step", 1L) != 1 || c.type(g).rank() != sizes.length) {
      return null;
    }
    long[] b = sliceBounds(c.integer(3, "start", null), c.integer(4, "end", null), n);
    long start = b[0];
    long end = b[1];
    if (c.shape(g)[d] != end - start) {
      throw new LoweringException(
          "slice_backward of a gradient of size "
              + c.shape(g)[d]
              + " along dim "
              + d
              + " into the slice ["
              + start
              + ", "
              + end
              + ")");
    }
    int dtype = c.type(g).dtype();
    return one(
        splice(
            c,
            d,
            n,
            start,
            end,
            g,
            (from, to) -> c.filled(0.0, dtype, withSize(c.shape(g), d, to - from))));
  }

  /**
   * Python slice bounds {@code [start, end)} of a dim of size n: negative ones count from the end,
   * both clamped.
   */
  private static long[] sliceBounds(long start, long end, long n) {
    long s = clamp(start < 0 ? start + n : start, n);
    return new long[] {s, Math.max(s, clamp(end < 0 ? end + n : end, n))};
  }

  /** Makes the block of positions {@code [from, to)} along the spliced dim. */
  @FunctionalInterface
  private interface Block {
    int of(long from, long to);
  }

  /**
   * A tensor of size n along dim d holding {@code middle} at {@code [start, end)} and {@code
   * outside}'s blocks before and after it: a concat of the non-empty parts.
   */
  private static int splice(
      Call c, int d, long n, long start, long end, int middle, Block outside) {
    List<Integer> parts = new ArrayList<>();
    if (start > 0) {
      parts.add(outside.of(0, start));
    }
    parts.add(middle);
    if (end < n) {
      parts.add(outside.of(end, n));
    }
    int[] kids = parts.stream().mapToInt(Integer::intValue).toArray();
    return kids.length == 1 ? kids[0] : c.b.add(Op.CONCAT, new long[] {d}, kids);
  }

  /** Padding counts are (before, after) pairs, at most one per dim of a rank-d tensor. */
  private static void checkPairs(long[] pad, int rank) {
    if (pad.length % 2 != 0 || pad.length > 2 * rank) {
      throw new LoweringException(
          "padding "
              + Arrays.toString(pad)
              + " does not fit a "
              + rank
              + "-d tensor: it needs a (before, after) pair per padded dim");
    }
  }

  /**
   * Reflection or replication padding: {@code pad} holds (before, after) counts for the last dim,
   * then the one before it; each dim gains, before and after, the entries next to its edge in
   * reverse order without the edge itself (reflection) or the edge entry repeated (replication).
   */
  private static int edgePad(Call c, boolean reflect, String padKey) {
    int h = c.tensor(0, "self");
    long[] pad = c.ints(1, padKey);
    int rank = c.type(h).rank();
    checkPairs(pad, rank);
    for (int i = 0; i < pad.length / 2; i++) {
      int d = rank - 1 - i;
      long n = c.shape(h)[d];
      long before = pad[2 * i];
      long after = pad[2 * i + 1];
      if (before < 0 || after < 0 || (reflect ? Math.max(before, after) >= n : n == 0)) {
        throw new LoweringException(
            (reflect ? "reflection" : "replication")
                + " padding "
                + Arrays.toString(pad)
                + " does not fit dim "
                + d
                + " of size "
                + n
                + (reflect ? " (each count must be smaller than the size)" : ""));
      }
      List<Integer> parts = new ArrayList<>(3);
      if (before > 0) {
        parts.add(edge(c, h, d, reflect ? 1 : 0, before, reflect));
      }
      parts.add(h);
      if (after > 0) {
        parts.add(edge(c, h, d, reflect ? n - 1 - after : n - 1, after, reflect));
      }
      int[] kids = parts.stream().mapToInt(Integer::intValue).toArray();
      h = kids.length == 1 ? h : c.b.add(Op.CONCAT, new long[] {d}, kids);
    }
    return h;
  }

  /**
   * A padding block of {@code count} entries along d from {@code from}: those entries reversed
   * (reflection), or the one entry there repeated (replication).
   */
  private static int edge(Call c, int h, int d, long from, long count, boolean reflect) {
    if (!reflect) {
      int one = slice(c, h, d, from, from + 1, 1);
      return c.expandTo(one, withSize(c.shape(h), d, count));
    }
    int block = slice(c, h, d, from, from + count, 1);
    if (count == 1) {
      return block;
    }
    int reversed = c.arange(count - 1, -1, -1);
    return selectAlong(c, block, d, reversed);
  }

  /**
   * Nearest upsampling by whole factors: each of the last k dims (k = 1 to 3) grows from n to a
   * multiple m * n, each entry repeated m times in place (a dim of 1 after it, expanded, merged).
   * Output sizes that are not whole multiples, or scales given that disagree with them, give null
   * (kept opaque). Arguments: (input, output_size, scales...).
   */
  private static int[] nearestUpsample(Call c) {
    int x = c.tensor(0, "input");
    long[] s = c.shape(x);
    // the .vec overload gives (input, output_size or None, scale_factors), the others (input,
    // output_size, one scale per dim or None)
    Arg factors = c.arg(2, "scale_factors");
    double[] scales;
    long[] out;
    if (factors instanceof Arg.ListArg l) {
      scales = new double[l.items().size()];
      for (int i = 0; i < scales.length; i++) {
        if (!(l.items().get(i) instanceof Arg.FloatArg f)) {
          return null;
        }
        scales[i] = f.value();
      }
    } else {
      scales = null;
    }
    if (c.has(1, "output_size")) {
      out = c.ints(1, "output_size");
    } else if (scales != null) {
      out = new long[scales.length];
      for (int i = 0; i < out.length && scales.length <= s.length; i++) {
        out[i] = (long) Math.floor(s[s.length - scales.length + i] * scales[i]);
      }
    } else {
      return null;
    }
    int k = out.length;
    if (k == 0 || k > s.length || (scales != null && scales.length != k)) {
      return null;
    }
    for (int i = 0; i < k; i++) {
      long n = s[s.length - k + i];
      if (n == 0 || out[i] % n != 0) {
        return null;
      }
      double scale =
          scales != null ? scales[i] : c.has(2 + i, null) ? c.number(2 + i, null, null) : 0;
      if (scale != 0 && scale != (double) (out[i] / n)) {
        return null; // torch reads positions through the given scale: not a whole repeat
      }
    }
    int lead = s.length - k;
    long[] split = new long[lead + 2 * k];
    long[] spread = new long[lead + 2 * k];
    long[] merged = s.clone();
    for (int i = 0; i < lead; i++) {
      split[i] = s[i];
      spread[i] = s[i];
    }
    for (int i = 0; i < k; i++) {
      long n = s[lead + i];
      split[lead + 2 * i] = n;
      split[lead + 2 * i + 1] = 1;
      spread[lead + 2 * i] = n;
      spread[lead + 2 * i + 1] = out[i] / n;
      merged[lead + i] = out[i];
    }
    return one(c.reshape(c.expandTo(c.reshape(x, split), spread), merged));
  }

  /**
   * {@code constant_pad_nd(x, pad, value)}: {@code pad} holds (before, after) counts for the last
   * dim, then the one before it, and so on; each dim is cropped by a negative count and extended by
   * a positive one with blocks of {@code value} (concat of a filled block, x and a filled block).
   */
  private static int constantPad(Call c, double value) {
    int h = c.tensor(0, "self");
    long[] pad = c.ints(1, "pad");
    int rank = c.type(h).rank();
    checkPairs(pad, rank);
    for (int i = 0; i < pad.length / 2; i++) {
      int d = rank - 1 - i;
      long before = pad[2 * i];
      long after = pad[2 * i + 1];
      long n = c.shape(h)[d];
      if (before < 0 || after < 0) {
        long start = Math.max(0, -before);
        long end = n - Math.max(0, -after);
        if (end < start) {
          throw new LoweringException(
              "padding "
                  + Arrays.toString(pad)
                  + " crops dim "
                  + d
                  + " of size "
                  + n
                  + " below nothing");
        }
        h = slice(c, h, d, start, end, 1);
      }
      h = c.pad(h, d, Math.max(0, before), Math.max(0, after), value);
    }
    return h;
  }

  private static long[] withSize(long[] shape, int d, long size) {
    long[] out = shape.clone();
    out[d] = size;
    return out;
  }

  private static int[] one(int h) {
    return new int[] {h};
  }

  /**
   * A permutation that moves some dims of a tensor to the end or one to the front, the others
   * keeping their order, and its inverse.
   */
  record DimMove(long[] order, long[] inverse) {
    /** {@code dims}, in the order given, after the others. */
    static DimMove toLast(int rank, int... dims) {
      long[] order = new long[rank];
      int j = 0;
      for (int i = 0; i < rank; i++) {
        if (!contains(dims, i)) {
          order[j++] = i;
        }
      }
      for (int d : dims) {
        order[j++] = d;
      }
      return of(order);
    }

    /** {@code d} before the others. */
    static DimMove toFront(int rank, int d) {
      long[] order = new long[rank];
      order[0] = d;
      for (int i = 0, j = 1; i < rank; i++) {
        if (i != d) {
          order[j++] = i;
        }
      }
      return of(order);
    }

    /** The shape a tensor of shape {@code s} has once permuted. */
    long[] shape(long[] s) {
      long[] out = new long[order.length];
      for (int i = 0; i < order.length; i++) {
        out[i] = s[(int) order[i]];
      }
      return out;
    }

    private static DimMove of(long[] order) {
      long[] inverse = new long[order.length];
      for (int i = 0; i < order.length; i++) {
        inverse[(int) order[i]] = i;
      }
      return new DimMove(order, inverse);
    }

    private static boolean contains(int[] dims, int i) {
      for (int d : dims) {
        if (d == i) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * {@code x.repeat(repeats)} as torch decomposes it: x (with leading dims of 1 for the extra
   * repeats) viewed with a dim of 1 before each of its dims, expanded there to the repeat count,
   * and the pairs merged, so that each dim holds its repeats of the whole one after another.
   */
  static int repeat(Call c, int x, long[] repeats) {
    long[] s = c.shape(x);
    int n = repeats.length;
    if (n < s.length) {
      throw new LoweringException(
          "repeat takes at least one count per dim: "
              + n
              + " counts for a "
              + s.length
              + "-d tensor");
    }
    long[] split = new long[2 * n];
    long[] tiled = new long[2 * n];
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      if (repeats[i] < 0) {
        throw new LoweringException("repeat counts must not be negative, got " + repeats[i]);
      }
      long size = i < n - s.length ? 1 : s[i - (n - s.length)];
      split[2 * i] = 1;
      split[2 * i + 1] = size;
      tiled[2 * i] = repeats[i];
      tiled[2 * i + 1] = size;
      out[i] = repeats[i] * size;
    }
    return c.reshape(c.expandTo(c.reshape(x, split), tiled), out);
  }

  /**
   * torch's {@code gather(x, d, ids)}: {@code out[..i.., j, ..k..] = x[..i.., ids[..i.., j, ..k..],
   * ..k..]} along dim d, with ids of x's rank, no larger than x in the other dims. With d moved
   * last in both, x cut to the ids' sizes in the other dims and repeated for each of the ids'
   * entries along d, each entry picks its element of x's last dim ({@link Op#PICK}); the layout is
   * put back.
   */
  static int gather(Call c, int x, int d, int ids) {
    long[] s = c.shape(x);
    long[] t = c.shape(ids);
    if (t.length != s.length) {
      throw new LoweringException(
          "gather takes an index of the input's rank: input "
              + Arrays.toString(s)
              + ", index "
              + Arrays.toString(t));
    }
    int rank = s.length;
    for (int i = 0; i < rank; i++) {
      if (i != d && t[i] > s[i]) {
        throw new LoweringException(
            "gather's index is larger than the input in dim " + i + ": " + t[i] + " > " + s[i]);
      }
    }
    DimMove move = DimMove.toLast(rank, d);
    int table = permute(c, x, move.order());
    int picks = permute(c, ids, move.order());
    long[] rows = c.shape(picks); // [t..., k]
    for (int i = 0; i < rank - 1; i++) {
      table = slice(c, table, i, 0, rows[i], 1);
    }
    long n = s[d];
    long[] single = Arrays.copyOf(rows, rank + 1);
    single[rank - 1] = 1;
    single[rank] = n;
    long[] repeated = single.clone();
    repeated[rank - 1] = rows[rank - 1];
    int spread = c.expandTo(c.reshape(table, single), repeated);
    return permute(c, c.b.add(Op.PICK, new long[0], spread, picks), move.inverse());
  }

  /**
   * torch's {@code diagonal(x, offset, d1, d2)}: the entries {@code [i, i + offset]} of dims (d1,
   * d2) ({@code [i - offset, i]} below the main diagonal), as a last dim after the others. With d1
   * and d2 moved last and merged, they are a slice with step {@code m + 1} (m the size of d2).
   */
  static int diagonal(Call c, int x, long offset, int d1, int d2) {
    long[] s = c.shape(x);
    int rank = s.length;
    DimMove move = DimMove.toLast(rank, d1, d2);
    long n = s[d1];
    long m = s[d2];
    long length = Math.max(0, offset >= 0 ? Math.min(n, m - offset) : Math.min(n + offset, m));
    long start = length == 0 ? 0 : offset >= 0 ? offset : -offset * m;
    long[] merged = Arrays.copyOf(move.shape(s), rank - 1);
    merged[rank - 2] = n * m;
    int flat = c.reshape(permute(c, x, move.order()), merged);
    long end = length == 0 ? 0 : start + (length - 1) * (m + 1) + 1;
    return slice(c, flat, rank - 2, start, end, m + 1);
  }

  /**
   * torch's {@code scatter_add(x, d, ids, src)}: x plus, for each entry of ids, src's entry at the
   * same place added at the position it names along d. With d moved last, each entry's share is a
   * one-hot row over x's dim d times its src value; the shares of a row are summed by a product
   * ([1, k] by [k, n] per row), padded with zeros where ids is smaller than x, and added to x.
   */
  public static int scatterAdd(Call c, int x, int d, int ids, int src) {
    long[] s = c.shape(x);
    long[] t = c.shape(ids);
    long[] u = c.shape(src);
    int rank = s.length;
    if (t.length != rank || u.length != rank) {
      throw new LoweringException(
          "scatter_add takes an index and a source of the input's rank: input "
              + Arrays.toString(s)
              + ", index "
              + Arrays.toString(t)
              + ", source "
              + Arrays.toString(u));
    }
    for (int i = 0; i < rank; i++) {
      if (t[i] > u[i] || (i != d && t[i] > s[i])) {
        throw new LoweringException(
            "scatter_add's index "
                + Arrays.toString(t)
                + " is larger than its source "
                + Arrays.toString(u)
                + " or, off dim "
                + d
                + ", than its input "
                + Arrays.toString(s));
      }
    }
    int dtype = c.type(x).dtype();
    for (int i = 0; i < rank; i++) {
      src = slice(c, src, i, 0, t[i], 1); // the source's block the index covers
    }
    DimMove move = DimMove.toLast(rank, d);
    int at = permute(c, ids, move.order());
    int values = permute(c, c.cast(src, dtype), move.order());
    long[] rows = c.shape(at); // [t..., k]
    long n = s[d];
    long k = rows[rank - 1];
    long count = c.type(at).numel() / Math.max(1, k);
    long[] hot = Arrays.copyOf(rows, rank + 1);
    hot[rank] = n;
    long[] column = Arrays.copyOf(rows, rank + 1);
    column[rank] = 1;
    long[] across = new long[rank + 1];
    Arrays.fill(across, 1);
    across[rank] = n;
    int positions = c.b.add(Op.ARANGE, new long[] {0, n, 1, c.type(ids).dtype()});
    int oneHot =
        c.cast(
            c.b.add(
                Op.EQ,
                new long[0],
                c.expandTo(c.reshape(at, column), hot),
                c.expandTo(c.reshape(positions, across), hot)),
            dtype);
    int sums =
        c.b.add(
            Op.MATMUL,
            new long[0],
            c.reshape(values, new long[] {count, 1, k}),
            c.reshape(oneHot, new long[] {count, k, n}));
    long[] block = rows.clone();
    block[rank - 1] = n;
    int added = c.reshape(sums, block);
    long[] moved = move.shape(s);
    for (int i = 0; i < rank - 1; i++) {
      added = c.pad(added, i, 0, moved[i] - block[i], 0); // zeros where ids is smaller than x
    }
    return permute(
        c, c.b.add(Op.ADD, new long[0], permute(c, x, move.order()), added), move.inverse());
  }

  /**
   * The entries {@code ids} (integers, at most 1-d) of x along dim d, in their order (torch's
   * index_select): the dim moved to the front, the rest flattened into rows of a table, the rows
   * looked up ({@link Op#EMBEDDING}), and the layout put back.
   */
  static int selectAlong(Call c, int x, int d, int ids) {
    long[] s = c.shape(x);
    if (c.type(ids).rank() > 1) {
      throw new LoweringException(
          "index_select takes a 0-d or 1-d index, got one of shape "
              + Arrays.toString(c.shape(ids)));
    }
    long k = c.type(ids).numel();
    DimMove move = DimMove.toFront(s.length, d);
    long[] frontShape = move.shape(s);
    long rest = 1;
    for (int i = 1; i < frontShape.length; i++) {
      rest *= frontShape[i];
    }
    int table = c.reshape(permute(c, x, move.order()), new long[] {s[d], rest});
    int rows = c.b.add(Op.EMBEDDING, new long[0], table, c.reshape(ids, new long[] {k}));
    frontShape[0] = k;
    return permute(c, c.reshape(rows, frontShape), move.inverse());
  }

  public static long[] swap(int n, int d0, int d1) {
    long[] p = new long[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    p[d0] = d1;
    p[d1] = d0;
    return p;
  }

  /** x permuted by p; x itself when p is the identity. */
  public static int permute(Call c, int x, long[] p) {
    for (int i = 0; i < p.length; i++) {
      if (p[i] != i) {
        return c.b.add(Op.PERMUTE, p, x);
      }
    }
    return x;
  }

  /** A slice with Python's clamping; the full range is the tensor itself. */
  public static int slice(Call c, int x, int d, long start, long end, long step) {
    long n = c.shape(x)[d];
    if (step < 1) {
      throw new LoweringException("slice step must be positive, got " + step);
    }
    start = clamp(start < 0 ? start + n : start, n);
    end = clamp(end < 0 ? end + n : end, n);
    end = Math.max(start, end);
    if (start == 0 && end == n && step == 1) {
      return x;
    }
    return c.b.add(Op.SLICE, new long[] {d, start, end, step}, x);
  }

  private static long clamp(long v, long n) {
    return Math.max(0, Math.min(v, n));
  }

  private static int[] split(String base, Call c) {
    int x = c.tensor(0, "self");
    long[] s = c.shape(x);
    int d = c.dim(c.integer(2, "dim", 0L), s.length);
    long n = s[d];
    long[] sizes;
    if (base.endsWith("with_sizes")) {
      sizes = c.ints(1, "split_sizes");
    } else if (base.equals("aten.chunk")) {
      long chunks = c.integer(1, "chunks", null);
      long each = (n + chunks - 1) / chunks;
      sizes = evenSizes(n, each);
    } else {
      sizes = evenSizes(n, c.integer(1, "split_size", null));
    }
    long total = 0;
    for (long v : sizes) {
      total += v;
    }
    if (total != n) {
      throw new LoweringException(
          "split sizes add up to " + total + " but dim " + d + " has size " + n);
    }
    int[] out = new int[sizes.length];
    long off = 0;
    for (int i = 0; i < sizes.length; i++) {
      out[i] = slice(c, x, d, off, off + sizes[i], 1);
      off += sizes[i];
    }
    return out;
  }

  private static long[] evenSizes(long n, long each) {
    if (each <= 0) {
      throw new LoweringException("split size must be positive");
    }
    int k = (int) Math.max(1, (n + each - 1) / each);
    long[] sizes = new long[k];
    for (int i = 0; i < k; i++) {
      sizes[i] = Math.min(each, n - i * each);
    }
    return sizes;
  }

  /** Resolves one -1 in a view size. */
  public static long[] inferShape(long[] sizes, long numel) {
    long known = 1;
    int free = -1;
    for (int i = 0; i < sizes.length; i++) {
      if (sizes[i] == -1) {
        if (free >= 0) {
          throw new LoweringException("view size has more than one -1");
        }
        free = i;
      } else {
        known *= sizes[i];
      }
    }
    if (free < 0) {
      return sizes;
    }
    long[] out = sizes.clone();
    if (known == 0 || numel % known != 0) {
      throw new LoweringException(
          "view size " + Arrays.toString(sizes) + " does not fit " + numel + " elements");
    }
    out[free] = numel / known;
    return out;
  }
}
