package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.graph.Arg;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.lower.aten.AtenNormalizer;
import dev.entangle.relation.Expr;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reading {@code --json} reports, and facts about graphs and expressions the tests compare with.
 */
public final class Reports {
  private Reports() {}

  /** The JSON file a run wrote. */
  public static JsonNode read(Path file) {
    assertTrue(Files.isRegularFile(file), "no report at " + file);
    try {
      return ExampleCase.JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The names of the nodes a graph outputs, in order. */
  public static List<String> outputNames(Graph g) {
    List<String> names = new ArrayList<>();
    nodeRefs(g.outputs(), names);
    return names;
  }

  /** The distinct nodes an operator reads, through its positional and keyword arguments. */
  public static Set<String> inputsOf(Node n) {
    List<String> names = new ArrayList<>();
    nodeRefs(n.args(), names);
    nodeRefs(n.kwargs().values(), names);
    return new LinkedHashSet<>(names);
  }

  private static void nodeRefs(Collection<Arg> args, List<String> out) {
    for (Arg a : args) {
      if (a instanceof Arg.NodeRef r) {
        out.add(r.name());
      } else if (a instanceof Arg.ListArg l) {
        nodeRefs(l.items(), out);
      }
    }
  }

  /**
   * The operators a complete check must process: call_function nodes (no {@code getitem}) that the
   * graph's outputs depend on and that read some placeholder (the rest are constants).
   */
  public static long neededOperators(Graph g) {
    Set<String> needed = new HashSet<>();
    List<String> work = new ArrayList<>();
    nodeRefs(g.outputs(), work);
    while (!work.isEmpty()) {
      String name = work.remove(work.size() - 1);
      Node n = g.node(name);
      if (n != null
          && needed.add(name)
          && !(n.op() == NodeOp.CALL_FUNCTION && AtenNormalizer.readsShapesOnly(n.target()))) {
        work.addAll(inputsOf(n)); // a call that reads its inputs' shapes alone needs no operator
      }
    }
    Set<String> variable = new HashSet<>();
    long count = 0;
    for (Node n : g.nodes()) {
      boolean reads =
          n.op() == NodeOp.PLACEHOLDER
              || !AtenNormalizer.readsShapesOnly(n.target())
                  && inputsOf(n).stream().anyMatch(variable::contains);
      if (reads) {
        variable.add(n.name());
      }
      if (reads
          && needed.contains(n.name())
          && n.op() == NodeOp.CALL_FUNCTION
          && !n.target().equals("getitem")) {
        count++;
      }
    }
    return count;
  }

  /** Graph operators: call_function nodes, with or without the {@code getitem}s of tuples. */
  public static long operators(Graph g, boolean withGetitem) {
    return g.nodes().stream()
        .filter(n -> n.op() == NodeOp.CALL_FUNCTION)
        .filter(n -> withGetitem || !n.target().equals("getitem"))
        .count();
  }

  /** Every tensor an expression refers to. */
  public static List<Expr.Tensor> tensors(Expr e) {
    List<Expr.Tensor> out = new ArrayList<>();
    collect(e, out);
    return out;
  }

  private static void collect(Expr e, List<Expr.Tensor> out) {
    if (e instanceof Expr.Tensor t) {
      out.add(t);
    } else if (e instanceof Expr.Concat c) {
      c.parts().forEach(p -> collect(p, out));
    } else if (e instanceof Expr.Reduce r) {
      r.operands().forEach(p -> collect(p, out));
    } else if (e instanceof Expr.Slice s) {
      collect(s.input(), out);
    } else if (e instanceof Expr.Transpose t) {
      collect(t.input(), out);
    } else if (e instanceof Expr.Permute p) {
      collect(p.input(), out);
    } else if (e instanceof Expr.Reshape r) {
      collect(r.input(), out);
    } else if (e instanceof Expr.Squeeze s) {
      collect(s.input(), out);
    } else if (e instanceof Expr.Unsqueeze u) {
      collect(u.input(), out);
    } else {
      throw new AssertionError("unknown expression kind " + e);
    }
  }
}
