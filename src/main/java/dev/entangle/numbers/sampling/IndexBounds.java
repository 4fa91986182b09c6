package dev.entangle.numbers.sampling;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreValue;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.Shapes;
import dev.entangle.core.TermBuilder;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.ValueKind;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Rounding;
import dev.entangle.eval.ProgramWalker;
import dev.entangle.lower.LoweringException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How far each integer input of a graph may range so that every lookup it reaches stays inside what
 * it indexes: an input whose values reach, unchanged, the ids of an {@code embedding}, the indices
 * of {@code index2} or {@code pick}, or the positions of {@code rope}, must stay below the size it
 * indexes. Values stay unchanged through views, slices, concats, casts, element-wise max and min,
 * and the branches of {@code where}; any other operator ends the trail, so an input that reaches an
 * index only through arithmetic gets no bound here.
 */
public final class IndexBounds {
  private IndexBounds() {}

  /**
   * The exclusive upper bound of each bounded input of each graph of a program, by node name;
   * {@code result.get(k)} is graph k's (G_s is graph 0).
   */
  static List<Map<String, Long>> of(CoreProgram p) {
    Tracker t = new Tracker(p.table(), p.worldSize());
    ProgramWalker.walk(p, t, t);
    return t.bounds;
  }

  /** A value's type and the inputs (rank/name) whose elements it carries unchanged. */
  private record Info(TypeInfo type, Set<RelationInverter.Leaf> origins) {}

  /** A builder that tracks origins, and the walk's handler that seeds them at the inputs. */
  private static final class Tracker implements TermBuilder, ProgramWalker.Handler {
    private final Shapes shapes;
    private final List<Info> infos = new ArrayList<>();
    final List<Map<String, Long>> bounds = new ArrayList<>();

    Tracker(OpTable table, int ranks) {
      this.shapes =
          new Shapes(
              table,
              id -> {
                throw new EvalException("tensor[" + id + "] has no type here");
              });
      for (int r = 0; r < ranks; r++) {
        bounds.add(new HashMap<>());
      }
    }

    private int add(Info info) {
      infos.add(info);
      return infos.size() - 1;
    }

    @Override
    public TypeInfo type(int handle) {
      TypeInfo t = infos.get(handle).type();
      if (t == null) {
        throw new LoweringException("the type of an operand is unknown");
      }
      return t;
    }

    @Override
    public int add(int opId, long[] attrs, int... children) {
      TypeInfo[] types = new TypeInfo[children.length];
      for (int i = 0; i < children.length; i++) {
        types[i] = type(children[i]);
      }
      TypeInfo type = shapes.infer(opId, attrs, types);
      Op op = Op.of(opId);
      if (op == null) {
        return add(new Info(type, Set.of()));
      }
      switch (op) {
        case EMBEDDING -> bound(children[1], types[0].size(0));
        case INDEX2 -> {
          bound(children[1], types[0].size(0));
          bound(children[2], types[0].size(1));
        }
        case PICK -> bound(children[1], types[0].size(types[0].rank() - 1));
        case ROPE -> bound(children[1], types[2].size(0));
        default -> {}
      }
      Set<RelationInverter.Leaf> origins = new HashSet<>();
      switch (op) {
        case EXPAND, RESHAPE, PERMUTE, SLICE, CONCAT, MAXN, MINN, MAXIMUM, MINIMUM -> {
          for (int c : children) {
            origins.addAll(infos.get(c).origins());
          }
        }
        case CAST -> {
          if (Rounding.isIntegral((int) attrs[0])) {
            origins.addAll(infos.get(children[0]).origins());
          }
        }
        case WHERE -> {
          origins.addAll(infos.get(children[1]).origins());
          origins.addAll(infos.get(children[2]).origins());
        }
        default -> {}
      }
      return add(new Info(type, origins));
    }

    private void bound(int handle, long size) {
      for (RelationInverter.Leaf in : infos.get(handle).origins()) {
        bounds.get(Math.max(in.rank(), 0)).merge(in.name(), size, Math::min);
      }
    }

    @Override
    public int given(CoreValue v) {
      if (v.kind() != ValueKind.INPUT) {
        return -1;
      }
      return add(new Info(v.type(), Set.of(new RelationInverter.Leaf(v.graph(), v.name()))));
    }

    @Override
    public int unavailable(CoreValue v, String reason) {
      return add(new Info(v.type(), Set.of()));
    }

    @Override
    public int[] failed(CoreOp op, String reason) {
      int[] items = new int[op.results().length];
      for (int i = 0; i < items.length; i++) {
        items[i] =
            op.results()[i] < 0 ? -1 : add(new Info(op.steps().type(op.results()[i]), Set.of()));
      }
      return items;
    }

    @Override
    public void before(CoreOp op) {}

    @Override
    public void after(CoreOp op, int[] handles) {}

    @Override
    public void done(CoreValue v, int handle) {}
  }
}
