package dev.entangle.eval;

import dev.entangle.graph.Arg;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Meta;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Test fixture: graphs built node by node in Java, arguments written as plain Java values. */
public final class Graphs {
  private final List<Node> nodes = new ArrayList<>();
  private Map<String, Arg> pendingKwargs = new LinkedHashMap<>();

  /** A reference to another node's value. */
  public static Arg ref(String name) {
    return new Arg.NodeRef(name);
  }

  public static TensorType type(String dtype, long... shape) {
    return TensorType.of(dtype, shape);
  }

  /**
   * Converts a Java value: Arg as is, integers, doubles, strings, booleans, null, lists and long[].
   */
  public static Arg arg(Object v) {
    if (v instanceof Arg a) {
      return a;
    } else if (v == null) {
      return Arg.NONE;
    } else if (v instanceof Integer i) {
      return new Arg.IntArg(i);
    } else if (v instanceof Long l) {
      return new Arg.IntArg(l);
    } else if (v instanceof Double d) {
      return new Arg.FloatArg(d);
    } else if (v instanceof String s) {
      return new Arg.StrArg(s);
    } else if (v instanceof Boolean b) {
      return new Arg.BoolArg(b);
    } else if (v instanceof long[] ls) {
      List<Arg> items = new ArrayList<>();
      for (long x : ls) {
        items.add(new Arg.IntArg(x));
      }
      return new Arg.ListArg(items);
    } else if (v instanceof List<?> l) {
      return new Arg.ListArg(l.stream().map(Graphs::arg).toList());
    }
    throw new IllegalArgumentException("no argument for " + v);
  }

  public Graphs input(String name, String dtype, long... shape) {
    return add(name, NodeOp.PLACEHOLDER, name, List.of(), List.of(type(dtype, shape)), false);
  }

  /** Keyword arguments for the next call. */
  public Graphs kwargs(Object... keyValues) {
    for (int i = 0; i < keyValues.length; i += 2) {
      pendingKwargs.put((String) keyValues[i], arg(keyValues[i + 1]));
    }
    return this;
  }

  /** A call with one result of the given type. */
  public Graphs call(String name, String target, TensorType result, Object... args) {
    return add(name, NodeOp.CALL_FUNCTION, target, Arrays.asList(args), List.of(result), false);
  }

  /** A call whose result is a tuple of these item types (null for a non-tensor item). */
  public Graphs tuple(String name, String target, List<TensorType> items, Object... args) {
    return add(name, NodeOp.CALL_FUNCTION, target, Arrays.asList(args), items, true);
  }

  /** Item i of a tuple node. */
  public Graphs item(String name, String tuple, int i, TensorType type) {
    return call(name, "getitem", type, ref(tuple), i);
  }

  private Graphs add(
      String name,
      NodeOp op,
      String target,
      List<Object> args,
      List<TensorType> types,
      boolean tuple) {
    List<Arg> converted = new ArrayList<>();
    for (Object a : args) {
      converted.add(arg(a));
    }
    nodes.add(
        new Node(
            name,
            op,
            target,
            converted,
            pendingKwargs,
            new Meta(types, tuple, null, null, null),
            nodes.size()));
    pendingKwargs = new LinkedHashMap<>();
    return this;
  }

  /** The graph, returning the named nodes. */
  public Graph build(String... outputs) {
    List<Arg> outs = new ArrayList<>();
    for (String o : outputs) {
      outs.add(ref(o));
    }
    List<Node> all = new ArrayList<>(nodes);
    all.add(
        new Node(
            "output",
            NodeOp.OUTPUT,
            "output",
            List.of(new Arg.ListArg(outs)),
            Map.of(),
            Meta.empty(),
            all.size()));
    return new Graph("test", "test graph", all);
  }

  /** G_d of these ranks, all in group {@code tp}. */
  public static DistributedGraph distributed(Graph... ranks) {
    List<Integer> members = new ArrayList<>();
    for (int r = 0; r < ranks.length; r++) {
      members.add(r);
    }
    return new DistributedGraph(ranks.length, Map.of("tp", members), List.of(ranks), "test G_d");
  }
}
