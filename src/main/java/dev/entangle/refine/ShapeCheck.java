package dev.entangle.refine;

import dev.entangle.collectives.Collective;
import dev.entangle.collectives.CollectiveLowering;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import dev.entangle.ops.AtenNormalizer;
import dev.entangle.ops.LoweringException;
import dev.entangle.ops.ShapeException;
import dev.entangle.ops.TypeInfo;
import dev.entangle.ops.TypeTable;
import dev.entangle.ops.Shapes;
import dev.entangle.util.InputException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Lowers every node of a graph once, before checking, and compares the inferred shapes with the
 * shapes the file records: a node whose arguments cannot be read, or whose recorded shape
 * disagrees with what its operator computes, is an input error that names it.
 */
final class ShapeCheck {
  private ShapeCheck() {}

  /**
   * @param rank the G_d rank, or -1 for G_s
   */
  static void check(Graph graph, String file, int rank, AtenNormalizer normalizer, Shapes shapes) {
    TypeTable table = new TypeTable(shapes);
    Map<String, int[]> handles = new HashMap<>();
    String where = rank < 0 ? file : file + " (rank " + rank + ")";
    for (Node n : graph.nodes()) {
      if (n.op() == NodeOp.OUTPUT) {
        continue;
      }
      try {
        if (n.op() != NodeOp.CALL_FUNCTION) {
          if (n.op() != NodeOp.PLACEHOLDER && n.op() != NodeOp.GET_ATTR) {
            throw new LoweringException("node kind '" + n.op().jsonName() + "' is not supported; export the graph "
                + "with call_module/call_method nodes traced down to ATen operators");
          }
          if (n.type() == null) {
            throw new LoweringException("it has no tensor type");
          }
          handles.put(n.name(), new int[] {table.input(AtenNormalizer.typeOf(n.type(), n))});
          continue;
        }
        if (rank >= 0 && Collective.isWait(n)) {
          int[] in = handles.get(((dev.entangle.graph.Arg.NodeRef) n.arg(0)).name());
          compare(n, in, table);
          handles.put(n.name(), in);
          continue;
        }
        if (rank >= 0 && Collective.isCollectiveTarget(n.target())) {
          Collective c;
          try {
            c = Collective.read(n, rank);
          } catch (IllegalArgumentException e) {
            throw new LoweringException(e.getMessage());
          }
          TypeInfo declared = AtenNormalizer.declaredType(n);
          int[] in = handles.get(c.input());
          long[] want = in == null ? null : c.resultShape(table.type(in[0]).shape());
          if (want != null && !java.util.Arrays.equals(want, declared.shape())) {
            throw new ShapeException("has shape " + java.util.Arrays.toString(want) + " by its arguments, but the "
                + "graph records " + java.util.Arrays.toString(declared.shape()));
          }
          handles.put(n.name(), new int[] {table.input(declared)});
          continue;
        }
        String same = rank < 0 ? CollectiveLowering.singleRankInput(n) : null;
        if (same != null) {
          int[] in = handles.get(same);
          compare(n, in, table);
          handles.put(n.name(), in);
          continue;
        }
        int[] out = normalizer.lower(n, name -> handles.get(name), table);
        compare(n, out, table);
        handles.put(n.name(), out);
      } catch (LoweringException | ShapeException e) {
        throw new InputException(where + ": node '" + n.name() + "' (" + n.target() + "): " + e.getMessage()
            + ". Check the node in the graph file; if the operator is legitimate, this is a limitation of the checker.");
      }
    }
  }

  private static void compare(Node n, int[] out, TypeTable table) {
    if (n.meta().tuple()) {
      var items = n.meta().types();
      if (items.size() > out.length) {
        throw new ShapeException("it returns " + out.length + " values but the graph records " + items.size());
      }
      for (int i = 0; i < items.size(); i++) {
        if (items.get(i) != null && out[i] >= 0) {
          same(n, items.get(i), table.type(out[i]), "item " + i + " ");
        }
      }
      return;
    }
    if (out.length != 1) {
      throw new ShapeException("it returns " + out.length + " values but the graph records one tensor");
    }
    TensorType t = n.type();
    if (t == null) {
      throw new ShapeException("the graph records no shape for it");
    }
    same(n, t, table.type(out[0]), "");
  }

  private static void same(Node n, TensorType declared, TypeInfo inferred, String what) {
    TypeInfo d = AtenNormalizer.typeOf(declared, n);
    if (!Arrays.equals(d.shape(), inferred.shape())) {
      throw new ShapeException(what + "has shape " + Arrays.toString(inferred.shape()) + " by its operator's "
          + "semantics, but the graph records " + Arrays.toString(d.shape()));
    }
  }
}
