package dev.entangle.draft;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.Op;
import dev.entangle.core.Steps;
import dev.entangle.core.TypeInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where the uses of a program's inputs slice them: a dim of a computed value is followed back to
 * the input dim it indexes (through element-wise operators, broadcasts, permutes, slices, the
 * leading part of a reshape that splits a dim, the rows and columns of a matrix product, reductions
 * over other dims); a slice of such a dim cuts the input dim at its bounds. A fused projection
 * whose result is sliced into q, k and v blocks is cut at the blocks' bounds.
 */
final class SliceCuts {
  private final CoreProgram program;
  private final Set<Integer> sources;
  private final Map<Integer, List<Origin>[]> valueOrigins = new HashMap<>();
  private final Map<Integer, Map<Integer, TreeSet<Long>>> cuts = new HashMap<>();

  /**
   * A dim that indexes input {@code source}'s dim {@code dim}: position i is the input's position
   * {@code offset + i * scale}.
   */
  private record Origin(int source, int dim, long offset, long scale) {
    Origin shifted(long by) {
      return new Origin(source, dim, offset + by * scale, scale);
    }
  }

  private SliceCuts(CoreProgram program, Set<Integer> sources) {
    this.program = program;
    this.sources = sources;
  }

  /**
   * For each input of {@code sources} that a use slices: per dim, the cut points (0 and the size
   * excluded).
   */
  static Map<Integer, Map<Integer, TreeSet<Long>>> of(CoreProgram program, Set<Integer> sources) {
    SliceCuts s = new SliceCuts(program, sources);
    for (CoreOp op : program.ops()) {
      s.walk(op);
    }
    return s.cuts;
  }

  private void walk(CoreOp op) {
    Steps steps = op.steps();
    List<Origin>[][] slots = newSlots(steps.slots());
    boolean any = false;
    for (int i = 0; i < steps.size(); i++) {
      int slot = steps.slot(i);
      switch (steps.kind(i)) {
        case Steps.REF -> {
          slots[slot] = origins(steps.arg(i));
          any |= slots[slot] != null;
        }
        case Steps.ADD -> {
          if (!any) {
            continue;
          }
          int[] kids = steps.kids(i);
          List<Origin>[][] in = newSlots(kids.length);
          TypeInfo[] types = new TypeInfo[kids.length];
          boolean known = false;
          for (int k = 0; k < kids.length; k++) {
            in[k] = slots[kids[k]];
            types[k] = steps.type(kids[k]);
            known |= in[k] != null;
          }
          if (known && slots[slot] == null) {
            slots[slot] = apply(steps.arg(i), steps.attrs(i), in, types, steps.type(slot));
          }
        }
        default -> {}
      }
    }
    if (!any) {
      return;
    }
    int[] results = op.results();
    int[] values = op.values();
    for (int v : values) {
      int item = program.value(v).item();
      if (item < results.length && results[item] >= 0 && slots[results[item]] != null) {
        valueOrigins.put(v, slots[results[item]]);
      }
    }
  }

  private List<Origin>[] origins(int value) {
    if (sources.contains(value)) {
      long[] shape = program.value(value).type().shape();
      if (shape == null) {
        return null;
      }
      List<Origin>[] o = newDims(shape.length);
      for (int d = 0; d < shape.length; d++) {
        o[d] = List.of(new Origin(value, d, 0, 1));
      }
      return o;
    }
    return valueOrigins.get(value);
  }

  private List<Origin>[] apply(
      int opId, long[] attrs, List<Origin>[][] in, TypeInfo[] types, TypeInfo out) {
    Op op = Op.of(opId);
    if (op == null || out == null || out.isTuple() || out.shape() == null) {
      return null;
    }
    long[] shape = out.shape();
    List<Origin>[] o = newDims(shape.length);
    switch (op.kind) {
      case UNARY, BINARY, COMPARE, TERNARY, COMBINE, ALONG_DIM, ALONG_DIM_2, LAST_DIMS -> {
        for (int k = 0; k < in.length; k++) {
          alignRight(o, shape, in[k], types[k]);
        }
      }
      case LAYOUT -> {
        switch (op) {
          case EXPAND -> alignRight(o, shape, in[0], types[0]);
          case PERMUTE -> {
            if (in[0] != null) {
              for (int d = 0; d < o.length && d < attrs.length; d++) {
                o[d] = in[0][(int) attrs[d]];
              }
            }
          }
          case SLICE -> slice(o, attrs, in[0]);
          case RESHAPE -> reshape(o, shape, in[0], types[0]);
          default -> {}
        }
      }
      case REDUCE -> reduce(o, attrs, in[0]);
      case OTHER -> {
        if (op == Op.MATMUL) {
          matmul(o, in, types);
        }
      }
      default -> {}
    }
    for (List<Origin> x : o) {
      if (x != null) {
        return o;
      }
    }
    return null;
  }

  @SuppressWarnings("unchecked")
  private static List<Origin>[][] newSlots(int n) {
    return (List<Origin>[][]) new List<?>[n][];
  }

  @SuppressWarnings("unchecked")
  private static List<Origin>[] newDims(int n) {
    return (List<Origin>[]) new List<?>[n];
  }

  /** Operand dims aligned to the result's from the right, where they have the result's size. */
  private static void alignRight(List<Origin>[] o, long[] shape, List<Origin>[] in, TypeInfo type) {
    if (in == null || type == null || type.shape() == null) {
      return;
    }
    long[] s = type.shape();
    for (int k = 1; k <= s.length && k <= shape.length; k++) {
      int od = shape.length - k;
      int id = s.length - k;
      if (s[id] == shape[od] && in[id] != null) {
        if (o[od] == null) {
          o[od] = in[id];
        } else {
          List<Origin> both = new ArrayList<>(o[od]);
          in[id].stream().filter(x -> !both.contains(x)).forEach(both::add);
          o[od] = List.copyOf(both);
        }
      }
    }
  }

  private void slice(List<Origin>[] o, long[] attrs, List<Origin>[] in) {
    if (in == null) {
      return;
    }
    int dim = (int) attrs[0];
    long start = attrs[1];
    long end = attrs[2];
    long step = attrs[3];
    for (int d = 0; d < o.length; d++) {
      o[d] = in[d];
    }
    if (in[dim] == null || step != 1) {
      o[dim] = null;
      return;
    }
    List<Origin> shifted = new ArrayList<>();
    for (Origin src : in[dim]) {
      TreeSet<Long> c =
          cuts.computeIfAbsent(src.source(), k -> new HashMap<>())
              .computeIfAbsent(src.dim(), k -> new TreeSet<>());
      c.add(src.offset() + start * src.scale());
      c.add(src.offset() + end * src.scale());
      shifted.add(src.shifted(start));
    }
    o[dim] = List.copyOf(shifted);
  }

  /**
   * Dims a reshape keeps whole keep their origin; a dim split into several keeps it on the leading
   * part, with the trailing parts' product as scale.
   */
  private static void reshape(List<Origin>[] o, long[] shape, List<Origin>[] in, TypeInfo type) {
    if (in == null || type == null || type.shape() == null) {
      return;
    }
    long[] s = type.shape();
    int i = 0;
    int j = 0;
    while (i < s.length && j < shape.length) {
      if (s[i] == shape[j]) {
        o[j] = in[i];
        i++;
        j++;
        continue;
      }
      if (s[i] == 1) {
        i++;
        continue;
      }
      if (shape[j] == 1) {
        j++;
        continue;
      }
      if (s[i] > shape[j] && s[i] % shape[j] == 0) {
        long rest = s[i] / shape[j];
        int first = j;
        long p = shape[j];
        int k = j + 1;
        while (k < shape.length && p < s[i]) {
          p *= shape[k];
          k++;
        }
        if (p == s[i] && in[i] != null) {
          List<Origin> lead = new ArrayList<>();
          for (Origin x : in[i]) {
            if (x.scale() == 1) {
              lead.add(new Origin(x.source(), x.dim(), x.offset(), rest));
            }
          }
          o[first] = lead.isEmpty() ? null : List.copyOf(lead);
        }
        i++;
        j = k;
        continue;
      }
      return;
    }
  }

  private static void reduce(List<Origin>[] o, long[] attrs, List<Origin>[] in) {
    if (in == null || attrs.length < 1) {
      return;
    }
    boolean keep = attrs[0] != 0;
    Set<Long> dims = new HashSet<>();
    for (int k = 1; k < attrs.length; k++) {
      dims.add(attrs[k]);
    }
    int j = 0;
    for (int d = 0; d < in.length && j < o.length; d++) {
      if (dims.contains((long) d)) {
        if (keep) {
          j++;
        }
        continue;
      }
      o[j++] = in[d];
    }
  }

  /** a[..., m, k] @ b[..., k, n]: m from a, n from b, batch dims from either. */
  private static void matmul(List<Origin>[] o, List<Origin>[][] in, TypeInfo[] types) {
    int n = o.length;
    if (n < 2) {
      return;
    }
    if (in[0] != null && types[0].rank() >= 2) {
      o[n - 2] = in[0][types[0].rank() - 2];
    }
    if (in[1] != null && types[1].rank() >= 2) {
      o[n - 1] = in[1][types[1].rank() - 1];
    }
  }
}
