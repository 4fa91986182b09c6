package dev.entangle.refine;

import dev.entangle.collectives.Collective;
import dev.entangle.collectives.CollectiveGroups;
import dev.entangle.collectives.CollectiveLowering;
import dev.entangle.graph.Arg;
import dev.entangle.graph.Node;
import dev.entangle.ops.AtenNormalizer;
import java.util.HashMap;
import java.util.Map;

/**
 * Adds G_d facts to one e-graph: each value is a leaf {@code tensor[id]}, and a value's definition
 * is the term its node computes over its dependencies' leaves. Values computed from constants
 * alone are inlined as their full term, so a constant in G_d meets the same constant in G_s.
 */
final class GdTerms {
  private final GdModel m;
  private final AtenNormalizer normalizer;
  private final EGraphBuilder b;
  private final Map<Integer, Integer> inlined = new HashMap<>();

  GdTerms(GdModel m, AtenNormalizer normalizer, EGraphBuilder b) {
    this.m = m;
    this.normalizer = normalizer;
    this.b = b;
  }

  /** The class of a value as an operand: its constant term, or its leaf. */
  int operand(int id) {
    return m.constant[id] ? constantTerm(id) : b.leaf(id);
  }

  private int constantTerm(int id) {
    Integer h = inlined.get(id);
    if (h == null) {
      h = definition(id);
      inlined.put(id, h);
    }
    return h;
  }

  /** The term that computes value {@code id} from its dependencies. */
  int definition(int id) {
    GdModel.Value v = m.value(id);
    Node n = v.node();
    int rank = v.rank();
    if (n.op() != dev.entangle.graph.NodeOp.CALL_FUNCTION) {
      return AtenNormalizer.constant(n, b); // a get_attr constant
    }
    if (Collective.isWait(n)) {
      return operandByName(rank, ((Arg.NodeRef) n.arg(0)).name());
    }
    CollectiveGroups.Instance inst = m.collectives.of(rank, n.name());
    if (inst != null) {
      int def = CollectiveLowering.lower(inst, rank, this::operandByName, b);
      if (inst.on(rank).kind() == Collective.Kind.REDUCE_SCATTER && inst.members().size() > 1) {
        reassemble(inst);
      }
      return def;
    }
    if (n.target().equals("getitem")) {
      Node tuple = m.graph(rank).node(((Arg.NodeRef) n.arg(0)).name());
      int i = (int) ((Arg.IntArg) n.arg(1)).value();
      return lower(rank, tuple)[i];
    }
    return lower(rank, n)[0];
  }

  /**
   * Each member of a reduce-scatter holds its own slice of one sum, so the sum is the concat of
   * all members' results: a fact about the whole group, added with any member.
   */
  private void reassemble(CollectiveGroups.Instance inst) {
    int[] parts = new int[inst.members().size()];
    for (int i = 0; i < parts.length; i++) {
      Collective c = inst.members().get(i);
      int leaf = b.leaf(m.id(c.rank(), c.node().name()));
      b.g.union(leaf, CollectiveLowering.lower(inst, c.rank(), this::operandByName, b));
      parts[i] = leaf;
    }
    int sum = CollectiveLowering.reduction(inst, this::operandByName, b);
    b.g.union(sum, b.add(dev.entangle.ops.Op.CONCAT, new long[] {0}, parts));
  }

  private int operandByName(int rank, String name) {
    int id = m.id(rank, name);
    if (id < 0) {
      throw new IllegalStateException("r" + rank + "." + name + " is not a tensor value");
    }
    return operand(id);
  }

  private int[] lower(int rank, Node n) {
    return normalizer.lower(n, new AtenNormalizer.Inputs() {
      @Override
      public int[] of(String name) {
        int id = m.id(rank, name);
        if (id >= 0) {
          return new int[] {operand(id)};
        }
        return lower(rank, m.graph(rank).node(name));
      }

      @Override
      public int graphId() {
        return rank;
      }
    }, b);
  }
}
