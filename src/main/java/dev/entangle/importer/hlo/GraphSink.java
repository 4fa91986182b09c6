package dev.entangle.importer.hlo;

import dev.entangle.graph.Arg;
import dev.entangle.graph.Dim;
import dev.entangle.graph.Meta;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import dev.entangle.importer.SourceFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The nodes of one graph as they are built, in order, with unique names and their types. */
final class GraphSink {
  private final SourceFile src;
  private final List<Node> nodes = new ArrayList<>();
  private final Map<String, Node> byName = new HashMap<>();

  GraphSink(SourceFile src) {
    this.src = src;
  }

  List<Node> nodes() {
    return nodes;
  }

  Node node(String name) {
    return byName.get(name);
  }

  /** A name not used yet: {@code base}, else {@code base.1}, {@code base.2}, ... */
  String fresh(String base) {
    if (!byName.containsKey(base)) {
      return base;
    }
    for (int i = 1; ; i++) {
      if (!byName.containsKey(base + "." + i)) {
        return base + "." + i;
      }
    }
  }

  /** Adds a node; returns its name. */
  String add(
      String name, NodeOp op, String target, List<Arg> args, Map<String, Arg> kwargs, Meta meta) {
    Node n = new Node(name, op, target, args, kwargs, meta, nodes.size());
    nodes.add(n);
    byName.put(name, n);
    return name;
  }

  /** A call_function node. */
  String call(String name, String target, List<Arg> args, Map<String, Arg> kwargs, Meta meta) {
    return add(name, NodeOp.CALL_FUNCTION, target, args, kwargs, meta);
  }

  /** The meta of a value of an HLO type; element types the graph format lacks are errors. */
  Meta meta(HloType type, String trace, HloInstruction at) {
    if (type instanceof HloType.Array a) {
      return new Meta(List.of(tensorType(a, at)), false, trace, null, null);
    }
    List<TensorType> items = new ArrayList<>();
    for (HloType t : ((HloType.Tuple) type).items()) {
      items.add(
          t instanceof HloType.Array a && HloType.dtype(a.elementType()) != null
              ? tensorType(a, at)
              : null);
    }
    return new Meta(items, true, trace, null, null);
  }

  TensorType tensorType(HloType.Array a, HloInstruction at) {
    String dtype = HloType.dtype(a.elementType());
    if (dtype == null) {
      throw src.error(
          at.line(),
          "the element type `" + a.elementType() + "` of `" + at.name() + "` is not supported",
          "The checker reads arrays of pred, integers and floats.");
    }
    List<Dim> dims = new ArrayList<>();
    for (long d : a.dims()) {
      dims.add(Dim.of(d));
    }
    return new TensorType(dims, dtype);
  }
}
