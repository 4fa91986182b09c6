package dev.entangle.numbers;

import dev.entangle.core.numeric.Tensor;
import dev.entangle.core.semantics.Layout;
import dev.entangle.relation.Expr;
import dev.entangle.relation.RelationEntry;
import dev.entangle.relation.RelationFile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The layouts the input relation states, as candidates for other values: an input related to the
 * ranks' copies of one G_d tensor through slices (each rank holding two chunks of a sequence, a
 * load-balanced or striped context-parallel layout) tells how the ranks lay out every value along
 * that sequence, so an output is tried in the same layout over another tensor the ranks hold.
 * {@link CleanSearch} tries whole tensors, concatenated or reduced across ranks, never slices of
 * them; without these a correct program in such a layout would have no candidate on numbers.
 */
public final class RelationLayouts {
  /** One stated layout: its expression over the ranks' copies of {@code name}. */
  public record Stated(Expr expr, String name, Set<Integer> ranks) {
    /** The same layout over the ranks' copies of {@code other}. */
    Expr over(String other) {
      return renamed(expr, other);
    }

    /**
     * The layout's value over the given copies, one per rank.
     *
     * @throws IllegalArgumentException when the copies do not fit the layout's slices and concats
     */
    Tensor value(Map<Integer, Tensor> copies) {
      return evaluate(expr, copies);
    }
  }

  private RelationLayouts() {}

  /**
   * The distinct layouts of the relation's input entries that slice the ranks' copies of one
   * tensor.
   */
  public static List<Stated> of(RelationFile relation) {
    Map<Expr, Stated> out = new LinkedHashMap<>();
    for (RelationEntry e : relation.relations()) {
      Set<String> names = new TreeSet<>();
      Set<Integer> ranks = new TreeSet<>();
      if (leaves(e.gd(), names, ranks) && names.size() == 1 && ranks.size() > 1 && slices(e.gd())) {
        String name = names.iterator().next();
        Expr key = renamed(e.gd(), "");
        out.putIfAbsent(key, new Stated(e.gd(), name, ranks));
      }
    }
    return new ArrayList<>(out.values());
  }

  /** Collects the tensors' names and ranks; false when one names no rank. */
  private static boolean leaves(Expr e, Set<String> names, Set<Integer> ranks) {
    if (e instanceof Expr.Tensor t) {
      names.add(t.name());
      ranks.add(t.rank());
      return t.rank() != null;
    }
    if (e instanceof Expr.Concat c) {
      return c.parts().stream().allMatch(p -> leaves(p, names, ranks));
    }
    return e instanceof Expr.Slice s && leaves(s.input(), names, ranks);
  }

  private static boolean slices(Expr e) {
    return e instanceof Expr.Slice
        || e instanceof Expr.Concat c && c.parts().stream().anyMatch(RelationLayouts::slices);
  }

  private static Tensor evaluate(Expr e, Map<Integer, Tensor> copies) {
    if (e instanceof Expr.Tensor t) {
      return copies.get(t.rank());
    }
    if (e instanceof Expr.Slice s) {
      Tensor x = evaluate(s.input(), copies);
      long[] shape = x.shape();
      if (s.dim() < 0
          || s.dim() >= shape.length
          || s.start() < 0
          || s.end() > shape[s.dim()]
          || s.start() >= s.end()
          || s.step() != 1) {
        throw new IllegalArgumentException("a slice outside the tensor");
      }
      shape[s.dim()] = s.end() - s.start();
      double[] data = Layout.slice(x, new long[] {s.dim(), s.start(), s.end(), 1});
      return new Tensor(shape, x.dtype(), data);
    }
    Expr.Concat c = (Expr.Concat) e;
    Tensor[] parts = c.parts().stream().map(p -> evaluate(p, copies)).toArray(Tensor[]::new);
    long[] shape = parts[0].shape();
    long size = 0;
    for (Tensor p : parts) {
      long[] ps = p.shape();
      if (ps.length != shape.length || c.dim() >= shape.length) {
        throw new IllegalArgumentException("parts of different ranks");
      }
      for (int d = 0; d < shape.length; d++) {
        if (d != c.dim() && ps[d] != shape[d]) {
          throw new IllegalArgumentException("parts of different sizes");
        }
      }
      size += ps[c.dim()];
    }
    shape[c.dim()] = size;
    return new Tensor(shape, parts[0].dtype(), Layout.concat(parts, c.dim(), shape));
  }

  private static Expr renamed(Expr e, String name) {
    if (e instanceof Expr.Tensor t) {
      return new Expr.Tensor(t.rank(), name);
    }
    if (e instanceof Expr.Concat c) {
      return new Expr.Concat(c.parts().stream().map(p -> renamed(p, name)).toList(), c.dim());
    }
    if (e instanceof Expr.Slice s) {
      return new Expr.Slice(renamed(s.input(), name), s.dim(), s.start(), s.end(), s.step());
    }
    throw new IllegalArgumentException("not a layout of slices and concats: " + e);
  }
}
