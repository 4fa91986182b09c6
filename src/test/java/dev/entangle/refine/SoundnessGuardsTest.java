package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.cli.CliRun;
import dev.entangle.cli.ExampleCase;
import dev.entangle.cli.JsonEdits;
import dev.entangle.cli.Reports;
import dev.entangle.core.Dtype;
import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.eval.Evaluation;
import dev.entangle.eval.LoweredEvaluator;
import dev.entangle.eval.WorkBudget;
import dev.entangle.graph.Arg;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.GraphJson;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.lower.aten.AtenNormalizer;
import dev.entangle.relation.Expr;
import dev.entangle.relation.ExprParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Soundness guards: every refining example, with its G_d broken in a way that changes what G_d
 * computes, must not be reported as {@code refines}. The mutations are written over the JSON of any
 * G_d, each applied alike on every rank (so the ranks still agree on their collectives):
 *
 * <ul>
 *   <li>drop a collective: its {@code wait_tensor} reads the collective's input instead, and the
 *       collective is removed;
 *   <li>swap the operands of an {@code aten.sub} of two tensors;
 *   <li>change a scalar constant of {@code add}, {@code sub}, {@code mul}, {@code div}, {@code
 *       rsub} or {@code pow} (v becomes v + 1).
 * </ul>
 *
 * A mutation of keys that a sort orders, which leaves every output of G_d as it was on random
 * numbers, is no break (fixed positions shifted where their sort keeps the same order): its {@code
 * refines} stands. No other mutation is excused so.
 *
 * <p>A mutation is tried only where it reaches a G_d tensor that the unmutated run's output
 * relation uses; elsewhere it may change nothing that G_s needs (a dead node, or an output G_s does
 * not ask for). A collective whose result is itself a graph output is not dropped: the ranks'
 * partial results then are outputs, and their {@code sum(...)} is a clean expression, so that G_d
 * can still refine G_s.
 */
class SoundnessGuardsTest {
  private static final Set<String> COLLECTIVES =
      Set.of(
          "all_reduce",
          "all_gather_into_tensor",
          "reduce_scatter_tensor",
          "all_to_all_single",
          "broadcast");
  private static final Set<String> ARITHMETIC = Set.of("add", "sub", "mul", "div", "rsub", "pow");

  @TempDir Path tmp;

  /**
   * One way to break G_d: a description, and the edit of one rank graph (false when it does not
   * apply).
   */
  private record Mutation(
      String kind, String description, Function<ObjectNode, String> edit, boolean keepsShapes) {}

  @TestFactory
  List<DynamicNode> brokenImplementationsDoNotRefine() {
    List<DynamicNode> all = new ArrayList<>();
    Map<String, Integer> perKind = new LinkedHashMap<>();
    for (ExampleCase c : ExampleCase.refining()) {
      Map<Integer, Set<String>> used = outputRelationTensors(c);
      List<DynamicTest> tests = new ArrayList<>();
      for (Mutation m : mutations(JsonEdits.read(c.gd()))) {
        ObjectNode broken = JsonEdits.read(c.gd());
        List<ObjectNode> ranks = JsonEdits.ranks(broken);
        boolean reaches = false;
        boolean throughSort = false;
        for (int k = 0; k < ranks.size(); k++) {
          String changed = m.edit().apply(ranks.get(k));
          Set<String> after =
              changed == null ? Set.of() : dependents(ranks.get(k), changed, m.keepsShapes());
          if (!disjoint(after, used.getOrDefault(k, Set.of()))) {
            reaches = true;
          }
          throughSort |= sorts(ranks.get(k), after);
        }
        if (reaches) {
          perKind.merge(m.kind(), 1, Integer::sum);
          boolean sorted = throughSort;
          tests.add(
              DynamicTest.dynamicTest(
                  m.description(), () -> assertDoesNotRefine(c, broken, m, sorted)));
        }
      }
      all.add(DynamicContainer.dynamicContainer(c.name(), tests));
    }
    all.add(
        DynamicTest.dynamicTest(
            "every kind of mutation is tried",
            () -> {
              for (String kind : List.of("drop", "swap", "scalar")) {
                assertTrue(
                    perKind.getOrDefault(kind, 0) > 0,
                    "no " + kind + " mutation applies to any example: " + perKind);
              }
            }));
    return all;
  }

  private void assertDoesNotRefine(
      ExampleCase c, ObjectNode broken, Mutation m, boolean throughSort) throws Exception {
    Path dir = Files.createTempDirectory(tmp, c.name());
    Path gd = JsonEdits.write(broken, dir.resolve("gd.json"));
    Path report = dir.resolve("report.json");
    CliRun run = CliRun.check(c.gs(), gd, c.ri(), "--json", report);
    if (run.exitCode() == 0 && throughSort && sameOutputsOnNumbers(c.gd(), gd)) {
      return; // no break: fixed positions shifted where their sort keeps the same order
    }
    assertNotEquals(
        0, run.exitCode(), () -> c + " with " + m.description() + " refines\n" + run.transcript());
    assertNotEquals("refines", run.verdictLine(), run::transcript);
    if (m.keepsShapes()) {
      assertTrue(
          run.exitCode() == 1 || run.exitCode() == 3,
          () ->
              c
                  + " with "
                  + m.description()
                  + ": a well-formed G_d gets a verdict\n"
                  + run.transcript());
      assertNotEquals("refines", Reports.read(report).get("verdict").asText());
    }
  }

  /**
   * Whether the mutated G_d computes the very outputs of the unmutated one, on two draws of random
   * inputs (floats in [-1, 1), integers in [0, 4)): a mutation that changes nothing G_d computes is
   * not a break, and its {@code refines} is right.
   */
  private static boolean sameOutputsOnNumbers(Path original, Path mutated) {
    DistributedGraph a = GraphJson.readDistributed(original);
    DistributedGraph b = GraphJson.readDistributed(mutated);
    LoweredEvaluator eval = new LoweredEvaluator(new OpTable(), WorkBudget.defaults());
    for (long seed = 1; seed <= 2; seed++) {
      Random random = new Random(seed);
      List<Map<String, Tensor>> inputs = new ArrayList<>();
      for (int r = 0; r < a.worldSize(); r++) {
        Map<String, Tensor> in = new HashMap<>();
        for (Node n : a.rank(r).nodes()) {
          if (n.op() == NodeOp.PLACEHOLDER && n.type() != null) {
            int dt = Dtype.code(n.type().dtype());
            long[] shape = n.type().sizes();
            double[] v = new double[(int) Tensor.numel(shape)];
            for (int i = 0; i < v.length; i++) {
              v[i] = Dtype.isFloating(dt) ? random.nextDouble() * 2 - 1 : random.nextInt(4);
            }
            in.put(n.name(), Tensor.of(dt, shape, v));
          }
        }
        inputs.add(in);
      }
      Evaluation ea = eval.evaluate(a, inputs);
      Evaluation eb = eval.evaluate(b, inputs);
      for (int r = 0; r < a.worldSize(); r++) {
        for (Arg out : a.rank(r).outputs()) {
          if (out instanceof Arg.NodeRef ref) {
            Tensor x = ea.tensor(r, ref.name()).orElse(null);
            Tensor y = eb.tensor(r, ref.name()).orElse(null);
            if (x == null || y == null || !x.sameAs(y)) {
              return false;
            }
          }
        }
      }
    }
    return true;
  }

  /** Every mutation that applies to rank 0, each to be applied to every rank. */
  private static List<Mutation> mutations(ObjectNode gd) {
    ObjectNode rank0 = JsonEdits.ranks(gd).get(0);
    List<Mutation> out = new ArrayList<>();
    List<ObjectNode> drops = droppable(rank0);
    for (int i = 0; i < drops.size(); i++) {
      int index = i;
      ObjectNode collective = producer(rank0, drops.get(i));
      boolean keepsShapes = keepsShapes(gd, i);
      out.add(
          new Mutation(
              "drop",
              "drop "
                  + collective.get("name").asText()
                  + " ("
                  + drops.get(i).get("name").asText()
                  + " reads its input)",
              rank -> dropCollective(rank, index),
              keepsShapes));
    }
    List<ObjectNode> subs = subtractions(rank0);
    for (int i = 0; i < subs.size(); i++) {
      int index = i;
      out.add(
          new Mutation(
              "swap",
              "swap the operands of " + subs.get(i).get("name").asText(),
              rank -> {
                List<ObjectNode> here = subtractions(rank);
                if (index >= here.size()) {
                  return null;
                }
                ArrayNode args = (ArrayNode) here.get(index).get("args");
                JsonNode first = args.get(0);
                args.set(0, args.get(1));
                args.set(1, first);
                return here.get(index).get("name").asText();
              },
              true));
    }
    List<ScalarSite> scalars = scalars(rank0);
    for (int i = 0; i < scalars.size(); i++) {
      int index = i;
      ScalarSite s = scalars.get(i);
      String next =
          s.value().isIntegralNumber()
              ? String.valueOf(s.value().asLong() + 1)
              : String.valueOf(s.value().asDouble() + 1.0);
      out.add(
          new Mutation(
              "scalar",
              "change "
                  + s.node().get("name").asText()
                  + " "
                  + s.where()
                  + " from "
                  + s.value()
                  + " to "
                  + next,
              rank -> {
                List<ScalarSite> here = scalars(rank);
                if (index >= here.size()) {
                  return null;
                }
                here.get(index).increment();
                return here.get(index).node().get("name").asText();
              },
              true));
    }
    return out;
  }

  /** The waits of collectives whose result is used further (not itself a graph output). */
  private static List<ObjectNode> droppable(ObjectNode rank) {
    Set<String> outputs = outputs(rank);
    List<ObjectNode> waits = new ArrayList<>();
    for (JsonNode n : JsonEdits.nodes(rank)) {
      if (isCall(n) && opName(n).equals("wait_tensor") && n.path("args").path(0).has("node")) {
        ObjectNode from = producer(rank, (ObjectNode) n);
        if (isCall(from) && isCollective(from) && !outputs.contains(n.get("name").asText())) {
          waits.add((ObjectNode) n);
        }
      }
    }
    return waits;
  }

  private static String dropCollective(ObjectNode rank, int index) {
    List<ObjectNode> waits = droppable(rank);
    if (index >= waits.size()) {
      return null;
    }
    ObjectNode wait = waits.get(index);
    ObjectNode collective = producer(rank, wait);
    ((ArrayNode) wait.get("args")).set(0, collective.get("args").get(0));
    ArrayNode nodes = JsonEdits.nodes(rank);
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i) == collective) {
        nodes.remove(i);
        break;
      }
    }
    return wait.get("name").asText();
  }

  private static List<ObjectNode> subtractions(ObjectNode rank) {
    List<ObjectNode> out = new ArrayList<>();
    for (JsonNode n : JsonEdits.nodes(rank)) {
      if (isCall(n)
          && n.get("target").asText().startsWith("aten.sub.")
          && n.path("args").path(0).has("node")
          && n.path("args").path(1).has("node")) {
        out.add((ObjectNode) n);
      }
    }
    return out;
  }

  /**
   * A scalar operand of an arithmetic operator: {@code args[i]} or a keyword such as {@code alpha}.
   */
  private record ScalarSite(
      ObjectNode node, ObjectNode kwargs, ArrayNode args, String key, int index) {
    JsonNode value() {
      return args != null ? args.get(index) : kwargs.get(key);
    }

    String where() {
      return args != null ? "args[" + index + "]" : "kwargs." + key;
    }

    void increment() {
      JsonNode v = value();
      JsonNode next =
          v.isIntegralNumber()
              ? node.numberNode(v.asLong() + 1)
              : node.numberNode(v.asDouble() + 1.0);
      if (args != null) {
        args.set(index, next);
      } else {
        kwargs.set(key, next);
      }
    }
  }

  private static List<ScalarSite> scalars(ObjectNode rank) {
    List<ScalarSite> out = new ArrayList<>();
    for (JsonNode n : JsonEdits.nodes(rank)) {
      String[] target = n.path("target").asText().split("\\.");
      if (!isCall(n)
          || target.length != 3
          || !target[0].equals("aten")
          || !ARITHMETIC.contains(target[1])) {
        continue;
      }
      JsonNode args = n.path("args");
      for (int i = 1; i < args.size(); i++) {
        if (args.get(i).isNumber()) {
          out.add(new ScalarSite((ObjectNode) n, null, (ArrayNode) args, null, i));
        }
      }
      n.path("kwargs")
          .fieldNames()
          .forEachRemaining(
              k -> {
                if (n.get("kwargs").get(k).isNumber()) {
                  out.add(
                      new ScalarSite((ObjectNode) n, (ObjectNode) n.get("kwargs"), null, k, -1));
                }
              });
    }
    return out;
  }

  /** The G_d tensors (by rank, node name) that the unmutated run's output relation uses. */
  private Map<Integer, Set<String>> outputRelationTensors(ExampleCase c) {
    Path report = tmp.resolve(c.name() + "-original.json");
    CliRun run = c.check("--json", report);
    assertEquals(0, run.exitCode(), run::transcript);
    DistributedGraph gd = GraphJson.readDistributed(c.gd());
    Map<Integer, Set<String>> used = new LinkedHashMap<>();
    for (JsonNode e : Reports.read(report).get("output_relation")) {
      for (Expr.Tensor t : Reports.tensors(ExprParser.parse(e.get("gd").asText()))) {
        Node n = gd.rank(t.rank()).resolve(t.name());
        used.computeIfAbsent(t.rank(), k -> new HashSet<>()).add(n.name());
      }
    }
    assertTrue(!used.isEmpty(), c + ": empty output relation");
    return used;
  }

  /**
   * The node and every node that reads it, directly or not; when the change keeps shapes, not
   * through a call that reads its inputs' shapes alone (the {@code ones_like(loss)} seeding a
   * backward).
   */
  private static Set<String> dependents(ObjectNode rank, String start, boolean keepsShapes) {
    Set<String> reached = new HashSet<>(Set.of(start));
    for (JsonNode n : JsonEdits.nodes(rank)) {
      if (keepsShapes && AtenNormalizer.readsShapesOnly(n.path("target").asText())) {
        continue;
      }
      List<String> refs = new ArrayList<>();
      n.path("args").findValues("node").forEach(v -> refs.add(v.asText()));
      n.path("kwargs").findValues("node").forEach(v -> refs.add(v.asText()));
      if (refs.stream().anyMatch(reached::contains)) {
        reached.add(n.get("name").asText());
      }
    }
    return reached;
  }

  /** Whether one of the nodes is a sort of the rank (its order may hide a change of its keys). */
  private static boolean sorts(ObjectNode rank, Set<String> names) {
    for (JsonNode n : JsonEdits.nodes(rank)) {
      String target = n.path("target").asText();
      if (names.contains(n.path("name").asText())
          && (target.startsWith("aten.sort.") || target.startsWith("aten.argsort."))) {
        return true;
      }
    }
    return false;
  }

  private static boolean disjoint(Set<String> a, Set<String> b) {
    return a.stream().noneMatch(b::contains);
  }

  private static Set<String> outputs(ObjectNode rank) {
    Set<String> out = new HashSet<>();
    for (JsonNode n : JsonEdits.nodes(rank)) {
      if (n.path("op").asText().equals("output")) {
        n.path("args").findValues("node").forEach(v -> out.add(v.asText()));
      }
    }
    return out;
  }

  private static ObjectNode producer(ObjectNode rank, ObjectNode user) {
    return JsonEdits.node(rank, user.get("args").get(0).get("node").asText());
  }

  private static boolean isCall(JsonNode n) {
    return n.path("op").asText().equals("call_function");
  }

  private static String opName(JsonNode n) {
    String[] t = n.path("target").asText().split("\\.");
    return t.length == 3 ? t[1] : "";
  }

  private static boolean isCollective(JsonNode n) {
    String t = n.path("target").asText();
    return (t.startsWith("_c10d_functional.") || t.startsWith("c10d_functional."))
        && COLLECTIVES.contains(opName(n));
  }

  /**
   * Whether dropping the {@code index}-th droppable collective keeps every rank's shapes (an
   * all-to-all with uneven splits keeps some ranks' and changes others').
   */
  private static boolean keepsShapes(ObjectNode gd, int index) {
    for (ObjectNode rank : JsonEdits.ranks(gd)) {
      List<ObjectNode> drops = droppable(rank);
      if (index >= drops.size()) {
        return false;
      }
      ObjectNode collective = producer(rank, drops.get(index));
      if (!shape(producer(rank, collective)).equals(shape(drops.get(index)))) {
        return false;
      }
    }
    return true;
  }

  private static JsonNode shape(ObjectNode n) {
    return n.path("meta").path("shape");
  }
}
