package dev.entangle.eval;

import static dev.entangle.eval.Graphs.ref;
import static dev.entangle.eval.Graphs.type;
import static dev.entangle.eval.Tensors.F32;
import static dev.entangle.eval.Tensors.assertTensor;
import static dev.entangle.eval.Tensors.f32;
import static dev.entangle.eval.Tensors.shape;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.graph.Arg;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Evaluating G_s and G_d: collectives, undefined and unavailable values, given values, the budget.
 */
class GraphEvaluatorTest {
  private static final String C10D = "_c10d_functional.";
  private static final String WAIT = C10D + "wait_tensor.default";

  private static LoweredEvaluator evaluator() {
    return new LoweredEvaluator(new OpTable(), WorkBudget.defaults());
  }

  /** One rank's graph: every functional collective of x [2, 2], each followed by its wait. */
  private static Graph collectives() {
    return new Graphs()
        .input("x", "float32", 2, 2)
        .call("ar", C10D + "all_reduce.default", type("float32", 2, 2), ref("x"), "sum", "tp")
        .call("sum", WAIT, type("float32", 2, 2), ref("ar"))
        .call("av", C10D + "all_reduce.default", type("float32", 2, 2), ref("x"), "avg", "tp")
        .call("avg", WAIT, type("float32", 2, 2), ref("av"))
        .call("mx", C10D + "all_reduce.default", type("float32", 2, 2), ref("x"), "max", "tp")
        .call("max", WAIT, type("float32", 2, 2), ref("mx"))
        .call(
            "ag", C10D + "all_gather_into_tensor.default", type("float32", 4, 2), ref("x"), 2, "tp")
        .call("gather", WAIT, type("float32", 4, 2), ref("ag"))
        .call(
            "rs",
            C10D + "reduce_scatter_tensor.default",
            type("float32", 1, 2),
            ref("x"),
            "sum",
            2,
            "tp")
        .call("scatter", WAIT, type("float32", 1, 2), ref("rs"))
        .call(
            "aa",
            C10D + "all_to_all_single.default",
            type("float32", 2, 2),
            ref("x"),
            List.of(1, 1),
            List.of(1, 1),
            "tp")
        .call("all_to_all", WAIT, type("float32", 2, 2), ref("aa"))
        .call("bc", C10D + "broadcast.default", type("float32", 2, 2), ref("x"), 1, "tp")
        .call("broadcast", WAIT, type("float32", 2, 2), ref("bc"))
        .call("vllm", "vllm.all_reduce.default", type("float32", 2, 2), ref("x"), "tp")
        .build("sum", "avg", "max", "gather", "scatter", "all_to_all", "broadcast", "vllm");
  }

  @Test
  void collectivesComputeWhatEveryMemberSent() {
    DistributedGraph gd = Graphs.distributed(collectives(), collectives());
    Evaluation e =
        evaluator()
            .evaluate(
                gd,
                List.of(
                    Map.of("x", f32(shape(2, 2), 1, 2, 3, 4)),
                    Map.of("x", f32(shape(2, 2), 10, 20, 30, 40))));
    for (int r = 0; r < 2; r++) {
      assertTensor(e.tensor(r, "sum").orElseThrow(), F32, shape(2, 2), 11, 22, 33, 44);
      assertTensor(e.tensor(r, "avg").orElseThrow(), F32, shape(2, 2), 5.5, 11, 16.5, 22);
      assertTensor(e.tensor(r, "max").orElseThrow(), F32, shape(2, 2), 10, 20, 30, 40);
      assertTensor(
          e.tensor(r, "gather").orElseThrow(), F32, shape(4, 2), 1, 2, 3, 4, 10, 20, 30, 40);
      assertTensor(e.tensor(r, "broadcast").orElseThrow(), F32, shape(2, 2), 10, 20, 30, 40);
      assertTensor(e.tensor(r, "vllm").orElseThrow(), F32, shape(2, 2), 11, 22, 33, 44);
    }
    assertTensor(e.tensor(0, "scatter").orElseThrow(), F32, shape(1, 2), 11, 22);
    assertTensor(e.tensor(1, "scatter").orElseThrow(), F32, shape(1, 2), 33, 44);
    assertTensor(e.tensor(0, "all_to_all").orElseThrow(), F32, shape(2, 2), 1, 2, 10, 20);
    assertTensor(e.tensor(1, "all_to_all").orElseThrow(), F32, shape(2, 2), 3, 4, 30, 40);
  }

  @Test
  void aRankWaitsAtACollectiveForWhatALaterRankComputes() {
    Graph first =
        new Graphs()
            .input("x", "float32", 2)
            .call("ar", C10D + "all_reduce.default", type("float32", 2), ref("x"), "sum", "tp")
            .call("y", WAIT, type("float32", 2), ref("ar"))
            .build("y");
    Graph second =
        new Graphs()
            .input("x", "float32", 2)
            .call("double", "aten.add.Tensor", type("float32", 2), ref("x"), ref("x"))
            .call("ar", C10D + "all_reduce.default", type("float32", 2), ref("double"), "sum", "tp")
            .call("y", WAIT, type("float32", 2), ref("ar"))
            .build("y");
    Evaluation e =
        evaluator()
            .evaluate(
                Graphs.distributed(first, second),
                List.of(Map.of("x", f32(shape(2), 1, 2)), Map.of("x", f32(shape(2), 10, 20))));
    assertTensor(e.tensor(0, "y").orElseThrow(), F32, shape(2), 21, 42);
  }

  /**
   * Rank 0 reduces x in group a, then its negation in b; rank 1 the other way round: each waits for
   * the other.
   */
  @Test
  void collectivesThatWaitForEachOtherAreReported() {
    Graph ab =
        new Graphs()
            .input("x", "float32", 2)
            .call("a", C10D + "all_reduce.default", type("float32", 2), ref("x"), "sum", "a")
            .call("n", "aten.neg.default", type("float32", 2), ref("a"))
            .call("b", C10D + "all_reduce.default", type("float32", 2), ref("n"), "sum", "b")
            .build("b");
    Graph ba =
        new Graphs()
            .input("x", "float32", 2)
            .call("b", C10D + "all_reduce.default", type("float32", 2), ref("x"), "sum", "b")
            .call("n", "aten.neg.default", type("float32", 2), ref("b"))
            .call("a", C10D + "all_reduce.default", type("float32", 2), ref("n"), "sum", "a")
            .build("a");
    DistributedGraph gd =
        new DistributedGraph(
            2, Map.of("a", List.of(0, 1), "b", List.of(0, 1)), List.of(ab, ba), "t");
    Evaluation e =
        evaluator()
            .evaluate(
                gd, List.of(Map.of("x", f32(shape(2), 1, 2)), Map.of("x", f32(shape(2), 3, 4))));
    Value.Unavailable a = assertInstanceOf(Value.Unavailable.class, e.value(0, "a"));
    assertEquals(
        "r0.a (_c10d_functional.all_reduce.default): it waits for a value that is never computed (do the"
            + " ranks issue their collectives in different orders?)",
        a.reason());
    Value.Unavailable n = assertInstanceOf(Value.Unavailable.class, e.value(1, "n"));
    assertEquals(
        "r1.n (aten.neg.default): it waits for a value that is never computed (do the ranks issue their"
            + " collectives in different orders?)",
        n.reason());
  }

  @Test
  void collectivesOfTheSequentialGraphAreIdentities() {
    Graph gs =
        new Graphs()
            .input("x", "float32", 2)
            .call("ar", C10D + "all_reduce.default", type("float32", 2), ref("x"), "sum", "tp")
            .call("y", WAIT, type("float32", 2), ref("ar"))
            .build("y");
    assertTensor(
        evaluator().evaluate(gs, Map.of("x", f32(shape(2), 1, 2))).tensor(-1, "y").orElseThrow(),
        F32,
        shape(2),
        1,
        2);
  }

  @Test
  void valuesFromUninitializedMemoryAreUndefinedUntilOverwritten() {
    Graph gs =
        new Graphs()
            .input("x", "float32", 2)
            .kwargs("dtype", new Arg.DtypeArg("float32"))
            .call("e", "aten.empty.memory_format", type("float32", 2), List.of(2))
            .call("y", "aten.add.Tensor", type("float32", 2), ref("e"), ref("x"))
            .call("z", "aten.copy.default", type("float32", 2), ref("e"), ref("x"))
            .build("y", "z");
    Evaluation e = evaluator().evaluate(gs, Map.of("x", f32(shape(2), 1, 2)));
    Value.Undefined y = assertInstanceOf(Value.Undefined.class, e.value(-1, "y"));
    assertEquals("e (aten.empty.memory_format)", y.origin());
    assertTensor(e.tensor(-1, "z").orElseThrow(), F32, shape(2), 1, 2);
  }

  @Test
  void aValueThatCannotBeComputedSaysWhyAndSoDoWhatUsesIt() {
    Graph gs =
        new Graphs()
            .input("x", "float32", 2)
            .call("u", "aten.foo.default", type("float32", 2), ref("x"))
            .call("v", "aten.neg.default", type("float32", 2), ref("u"))
            .build("v");
    Evaluation e = evaluator().evaluate(gs, Map.of("x", f32(shape(2), 1, 2)));
    Value.Unavailable v = assertInstanceOf(Value.Unavailable.class, e.value(-1, "v"));
    assertEquals(
        "u (aten.foo.default): the operator aten.foo.default has no numeric semantics in the evaluator"
            + " (aten.foo.default($0))",
        v.reason());
    assertFalse(e.stopped().isPresent());
  }

  @Test
  void anInputWithoutAValueIsReported() {
    Graph gs =
        new Graphs()
            .input("x", "float32", 2)
            .call("y", "aten.neg.default", type("float32", 2), ref("x"))
            .build("y");
    Value.Unavailable y =
        assertInstanceOf(
            Value.Unavailable.class, evaluator().evaluate(gs, Map.of()).value(-1, "y"));
    assertEquals("no value was given for the input x", y.reason());
  }

  @Test
  void aValueGivenForAComputedNodeReplacesIt() {
    Graph gs =
        new Graphs()
            .input("x", "float32", 1)
            .call("y", "aten.neg.default", type("float32", 1), ref("x"))
            .call("z", "aten.neg.default", type("float32", 1), ref("y"))
            .build("z");
    Evaluation e = evaluator().evaluate(gs, Map.of("x", f32(shape(1), 1), "y", f32(shape(1), 5)));
    assertTensor(e.tensor(-1, "z").orElseThrow(), F32, shape(1), -5);
  }

  @Test
  void evaluationStopsWhereTheBudgetRunsOutAndSaysSo() {
    Graph gs =
        new Graphs()
            .input("x", "float32", 4, 4)
            .call("a", "aten.neg.default", type("float32", 4, 4), ref("x"))
            .call("b", "aten.neg.default", type("float32", 4, 4), ref("a"))
            .call("c", "aten.neg.default", type("float32", 4, 4), ref("b"))
            .build("c");
    Evaluation e =
        new LoweredEvaluator(new OpTable(), new WorkBudget(50, Long.MAX_VALUE))
            .evaluate(gs, Map.of("x", f32(shape(4, 4), new double[16])));
    assertInstanceOf(Value.Known.class, e.value(-1, "a"));
    Evaluation.Stop stop = e.stopped().orElseThrow();
    assertEquals("b", stop.at());
    assertEquals(
        "neg of [4, 4] needs 32 units of work, but only 18 of the budget of 50 remain",
        stop.reason());
    assertEquals(2, stop.skipped());
    Value.Unavailable c = assertInstanceOf(Value.Unavailable.class, e.value(-1, "c"));
    assertTrue(c.reason().contains("budget"), c.reason());
  }

  @Test
  void evaluationIsDeterministic() {
    DistributedGraph gd = Graphs.distributed(collectives(), collectives());
    List<Map<String, Tensor>> in =
        List.of(
            Map.of("x", f32(shape(2, 2), 0.1, 0.2, 0.3, 0.4)),
            Map.of("x", f32(shape(2, 2), 1.1, 1.2, 1.3, 1.4)));
    List<Evaluation.Entry> a = evaluator().evaluate(gd, in).entries();
    List<Evaluation.Entry> b = evaluator().evaluate(gd, in).entries();
    assertEquals(a.size(), b.size());
    for (int i = 0; i < a.size(); i++) {
      assertEquals(a.get(i).label(), b.get(i).label());
      assertTrue(
          a.get(i).value().tensorOrNull().sameAs(b.get(i).value().tensorOrNull()),
          a.get(i).label());
    }
  }
}
