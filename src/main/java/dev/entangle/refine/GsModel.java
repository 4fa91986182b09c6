package dev.entangle.refine;

import dev.entangle.graph.Arg;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * G_s as the checker walks it: the operators that the required outputs depend on (stopping at
 * tensors the relation gives, the cut points), in topological order, each with its output values
 * (the node itself, or the {@code getitem}s of a tuple result), and which values are computed from
 * constants alone.
 */
final class GsModel {
  final Graph gs;
  final List<Node> operators = new ArrayList<>();
  final Map<String, List<Node>> outputsOf = new HashMap<>();
  final Set<String> constant = new HashSet<>();
  /** Values with no defined contents: uninitialized buffers, dropout masks, and views of them. */
  final Set<String> undefined = new HashSet<>();

  GsModel(Graph gs, Set<String> related, List<String> required) {
    this.gs = gs;
    for (Node n : gs.nodes()) {
      if (n.op() == NodeOp.CALL_FUNCTION && n.target().equals("getitem")) {
        String t = ((Arg.NodeRef) n.arg(0)).name();
        outputsOf.computeIfAbsent(t, k -> new ArrayList<>()).add(n);
      }
      if (isConstant(n)) {
        constant.add(n.name());
      } else if (isUndefined(n)) {
        undefined.add(n.name());
      }
    }
    Set<String> needed = new HashSet<>();
    Deque<String> work = new ArrayDeque<>(required);
    while (!work.isEmpty()) {
      String name = work.pop();
      Node n = gs.node(name);
      if (n == null || !needed.add(name) || related.contains(name) || inlined(name)) {
        continue;
      }
      if (n.op() == NodeOp.CALL_FUNCTION) {
        if (n.target().equals("getitem")) {
          work.push(((Arg.NodeRef) n.arg(0)).name());
        } else {
          NodeRefs.forEach(n, work::push);
        }
      }
    }
    for (Node n : gs.nodes()) {
      if (n.op() == NodeOp.CALL_FUNCTION && !n.target().equals("getitem") && needed.contains(n.name())
          && !related.contains(n.name()) && !inlined(n.name())) {
        operators.add(n);
      }
    }
  }

  /** The values an operator produces: itself, or its getitem users. */
  List<Node> outputs(Node op) {
    if (op.meta().tuple()) {
      return outputsOf.getOrDefault(op.name(), List.of());
    }
    return List.of(op);
  }

  /** Whether a value is carried as its term rather than related: a constant or an undefined value. */
  boolean inlined(String name) {
    return constant.contains(name) || undefined.contains(name);
  }

  private boolean isUndefined(Node n) {
    if (n.op() != NodeOp.CALL_FUNCTION) {
      return false;
    }
    if (dev.entangle.ops.AtenNormalizer.isUndefinedSource(n, gs::node)) {
      return true;
    }
    List<String> inputs = new ArrayList<>();
    NodeRefs.forEach(n, inputs::add);
    return NodeRefs.undefinedFrom(inputs, undefined::contains, constant::contains);
  }

  private boolean isConstant(Node n) {
    if (n.op() == NodeOp.GET_ATTR) {
      return n.meta().value() != null;
    }
    if (n.op() != NodeOp.CALL_FUNCTION) {
      return false;
    }
    boolean[] all = {true};
    NodeRefs.forEachValue(n, r -> all[0] &= constant.contains(r));
    return all[0];
  }
}
