package dev.entangle.relation;

import dev.entangle.core.Dtype;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import dev.entangle.util.DidYouMean;
import dev.entangle.util.InputException;
import java.util.List;
import java.util.function.Function;

/**
 * Checks a relation file against the graphs: every name resolves (a node name first, then a {@code
 * meta.tag}), every rank exists, every entry's expression has the shape and dtype of its G_s
 * tensor, the members of an equality have one type, and no relation names an output node. Reports
 * the first problem as an {@link InputException} naming the relation file and the entry.
 */
public final class RelationValidator {
  private final Graph gs;
  private final DistributedGraph gd;
  private final String file;

  private RelationValidator(Graph gs, DistributedGraph gd, String file) {
    this.gs = gs;
    this.gd = gd;
    this.file = file;
  }

  /**
   * Checks {@code relations} (as {@link RelationReader} read it) against G_s and G_d.
   *
   * @throws InputException for the first problem, naming the relation file and the entry
   */
  public static void validate(Graph gs, DistributedGraph gd, RelationFile relations) {
    new RelationValidator(gs, gd, relations.source()).check(relations);
  }

  private void check(RelationFile rel) {
    for (RelationEntry e : rel.relations()) {
      checkEntry(e, false);
    }
    for (int i = 0; i < rel.equalities().size(); i++) {
      checkEquality(rel.equalities().get(i), file + ": equalities[" + i + "]");
    }
    if (rel.outputs() != null) {
      for (int i = 0; i < rel.outputs().size(); i++) {
        gsType(rel.outputs().get(i), file + ": outputs[" + i + "]");
      }
    }
    for (RelationEntry e : rel.expect()) {
      checkEntry(e, true);
    }
  }

  /**
   * Checks one entry: its expression is well formed over G_d's tensors and, for a relation (not an
   * {@code expect}), has the G_s tensor's shape and dtype. An expected G_d result of another shape
   * or dtype is the model's violation of the expectation, which the check reports.
   */
  private void checkEntry(RelationEntry e, boolean expected) {
    String where = file + ": " + e.where() + " (gs \"" + e.gs() + "\")";
    TensorType want = gsType(e.gs(), where);
    TensorType got = ExprShapes.shape(e.gd(), leafType(where), where);
    String expr = ExprPrinter.print(e.gd());
    if (expected) {
      return;
    }
    if (!got.shape().equals(want.shape())) {
      throw new InputException(
          where
              + ": "
              + expr
              + " has shape "
              + got.shape()
              + " but "
              + e.gs()
              + " has shape "
              + want.shape()
              + "; check the shard dim, the slice bounds and"
              + " the G_d tensors the entry names.");
    }
    if (!got.dtype().equals(want.dtype())) {
      throw new InputException(
          where
              + ": "
              + expr
              + " has dtype "
              + got.dtype()
              + " but "
              + e.gs()
              + " has dtype "
              + want.dtype()
              + "; relate tensors of one dtype.");
    }
    Dtype dt = Dtype.byName(want.dtype());
    if (e.range() != null && (dt == null || !dt.isIntegral() || dt == Dtype.BOOL)) {
      throw new InputException(
          where
              + ": \"in_range\" states a range of integers, but "
              + e.gs()
              + " has dtype "
              + want.dtype()
              + "; state it on integer tensors (ids, positions) only.");
    }
  }

  private void checkEquality(List<Expr> members, String where) {
    TensorType first = null;
    for (int j = 0; j < members.size(); j++) {
      String at = where + "[" + j + "]";
      TensorType t = ExprShapes.shape(members.get(j), leafType(at), at);
      if (first == null) {
        first = t;
      } else if (!t.shape().equals(first.shape()) || !t.dtype().equals(first.dtype())) {
        throw new InputException(
            where
                + ": "
                + ExprPrinter.print(members.get(j))
                + " is "
                + t
                + " but "
                + ExprPrinter.print(members.get(0))
                + " is "
                + first
                + "; the members of an"
                + " equality have one shape and dtype.");
      }
    }
  }

  /** The type of the G_s tensor {@code name}. */
  private TensorType gsType(String name, String where) {
    Node n = gs.resolve(name);
    if (n == null) {
      throw new InputException(
          where
              + ": \""
              + name
              + "\" is neither a node name nor a meta.tag"
              + " in G_s ("
              + gs.source()
              + "); check the name"
              + DidYouMean.hint(name, RelationNames.of(gs))
              + ".");
    }
    return typeOf(n, "\"" + name + "\"", where);
  }

  private Function<Expr.Tensor, TensorType> leafType(String where) {
    return t -> {
      String ref = ExprPrinter.print(t);
      if (t.rank() == null) {
        throw new InputException(
            where
                + ": "
                + ref
                + " has no rank; name G_d tensors as"
                + " rK.NAME, e.g. r0."
                + ref
                + ".");
      }
      int k = t.rank();
      if (k >= gd.worldSize()) {
        throw new InputException(
            where
                + ": "
                + ref
                + " names rank "
                + k
                + " but G_d ("
                + gd.source()
                + ") has "
                + gd.worldSize()
                + " rank"
                + (gd.worldSize() == 1 ? "" : "s")
                + " (r0 to r"
                + (gd.worldSize() - 1)
                + "); check the rank.");
      }
      Node n = gd.rank(k).resolve(t.name());
      if (n == null) {
        throw new InputException(
            where
                + ": "
                + ref
                + ": rank "
                + k
                + " of G_d ("
                + gd.rank(k).source()
                + ") has no node or meta.tag \""
                + t.name()
                + "\"; check the"
                + " name"
                + DidYouMean.hint(t.name(), RelationNames.of(gd.rank(k)))
                + ".");
      }
      return typeOf(n, ref, where);
    };
  }

  private static TensorType typeOf(Node n, String ref, String where) {
    if (n.op() == NodeOp.OUTPUT) {
      throw new InputException(
          where + ": " + ref + " is the output node; relate the tensors it" + " returns instead.");
    }
    if (n.type() == null) {
      throw new InputException(
          where
              + ": "
              + ref
              + " (node \""
              + n.name()
              + "\") "
              + (n.meta().tuple()
                  ? "returns a tuple; relate its getitem nodes instead."
                  : "has no shape; the graph file must give its meta.shape and meta.dtype."));
    }
    return n.type();
  }
}
