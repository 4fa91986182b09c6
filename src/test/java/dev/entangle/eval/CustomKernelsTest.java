package dev.entangle.eval;

import static dev.entangle.eval.Graphs.ref;
import static dev.entangle.eval.Graphs.type;
import static dev.entangle.eval.Tensors.F32;
import static dev.entangle.eval.Tensors.assertTensor;
import static dev.entangle.eval.Tensors.f32;
import static dev.entangle.eval.Tensors.i64;
import static dev.entangle.eval.Tensors.shape;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.core.semantics.Elementwise;
import dev.entangle.graph.Graph;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * vLLM's kernels as graphs call them ({@code auto_functionalized}), evaluated through their
 * lowering.
 */
class CustomKernelsTest {
  private static final String AF = "higher_order.auto_functionalized";
  private static final Tensor X = f32(shape(2, 4), 1, -2, 3, 0.5, -1, 2, 0.25, 4);

  private static Evaluation evaluate(Graph g, Map<String, Tensor> in) {
    return new LoweredEvaluator(new OpTable(), WorkBudget.defaults()).evaluate(g, in);
  }

  @Test
  void rmsNormAndSiluAndMul() {
    Graph g =
        new Graphs()
            .input("x", "float32", 2, 4)
            .input("w", "float32", 4)
            .call("e", "aten.empty_like.default", type("float32", 2, 4), ref("x"))
            .kwargs(
                "result",
                ref("e"),
                "input",
                ref("x"),
                "weight",
                ref("w"),
                "epsilon",
                1e-6,
                "_mutated",
                List.of("result"))
            .tuple("rms", AF, Arrays.asList(null, type("float32", 2, 4)), "_C.rms_norm.default")
            .item("normed", "rms", 1, type("float32", 2, 4))
            .call("o", "aten.empty_like.default", type("float32", 2, 2), ref("e"))
            .kwargs("out", ref("o"), "input", ref("x"), "_mutated", List.of("out"))
            .tuple("sm", AF, Arrays.asList(null, type("float32", 2, 2)), "_C.silu_and_mul.default")
            .item("gated", "sm", 1, type("float32", 2, 2))
            .build("normed", "gated");
    Tensor w = f32(shape(4), 1, 2, 3, 4);
    Evaluation e = evaluate(g, Map.of("x", X, "w", w));
    double[] want = new double[8];
    for (int r = 0; r < 2; r++) {
      double sq = 0;
      for (int j = 0; j < 4; j++) {
        sq += X.at(r * 4 + j) * X.at(r * 4 + j);
      }
      for (int j = 0; j < 4; j++) {
        want[r * 4 + j] = X.at(r * 4 + j) / Math.sqrt(sq / 4 + 1e-6) * w.at(j);
      }
    }
    assertArrayEquals(want, e.tensor(-1, "normed").orElseThrow().values(), 1e-12);
    double s1 = Elementwise.sigmoid(1);
    double s2 = Elementwise.sigmoid(-2);
    double s3 = Elementwise.sigmoid(-1);
    double s4 = Elementwise.sigmoid(2);
    assertTensor(
        e.tensor(-1, "gated").orElseThrow(),
        F32,
        shape(2, 2),
        1 * s1 * 3,
        -2 * s2 * 0.5,
        -1 * s3 * 0.25,
        2 * s4 * 4);
  }

  @Test
  void rotaryEmbeddingTurnsQueryAndKey() {
    Graph g =
        new Graphs()
            .input("q", "float32", 2, 4)
            .input("k", "float32", 2, 4)
            .input("pos", "int64", 2)
            .input("cache", "float32", 2, 4)
            .kwargs(
                "positions",
                ref("pos"),
                "query",
                ref("q"),
                "key",
                ref("k"),
                "head_size",
                4,
                "cos_sin_cache",
                ref("cache"),
                "is_neox",
                true,
                "_mutated",
                List.of("query", "key"))
            .tuple(
                "rope",
                AF,
                Arrays.asList(null, type("float32", 2, 4), type("float32", 2, 4)),
                "_C.rotary_embedding.default")
            .item("q2", "rope", 1, type("float32", 2, 4))
            .item("k2", "rope", 2, type("float32", 2, 4))
            .build("q2", "k2");
    Tensor cache = f32(shape(2, 4), 1, 1, 0, 0, 0, 1, 1, 0);
    Tensor k = f32(shape(2, 4), 1, 2, 3, 4, 1, 2, 3, 4);
    Evaluation e = evaluate(g, Map.of("q", X, "k", k, "pos", i64(shape(2), 0, 1), "cache", cache));
    assertTensor(
        e.tensor(-1, "q2").orElseThrow(), F32, shape(2, 4), 1, -2, 3, 0.5, -0.25, 2, -1, 4);
    assertTensor(e.tensor(-1, "k2").orElseThrow(), F32, shape(2, 4), 1, 2, 3, 4, -3, 2, 1, 4);
  }

  @Test
  void unifiedAttentionWritesItsOutput() {
    Graph g =
        new Graphs()
            .input("q", "float32", 2, 2, 2)
            .input("k", "float32", 2, 1, 2)
            .input("v", "float32", 2, 1, 2)
            .call("out", "aten.empty_like.default", type("float32", 2, 2, 2), ref("q"))
            .kwargs(
                "query",
                ref("q"),
                "key",
                ref("k"),
                "value",
                ref("v"),
                "output",
                ref("out"),
                "layer_name",
                "l0",
                "_mutated",
                List.of("output"))
            .tuple(
                "att",
                AF,
                Arrays.asList(null, type("float32", 2, 2, 2)),
                "vllm.unified_attention_with_output.default")
            .item("y", "att", 1, type("float32", 2, 2, 2))
            .build("y");
    Tensor q = f32(shape(2, 2, 2), 1, 0, 0, 1, 2, 1, -1, 0.5);
    Tensor k = f32(shape(2, 1, 2), 0.5, -1, 1, 2);
    Tensor v = f32(shape(2, 1, 2), 3, 4, -5, 6);
    Evaluation e = evaluate(g, Map.of("q", q, "k", k, "v", v));
    Tensor want = Tensors.apply(Op.ATTENTION, new long[0], q, k, v);
    assertArrayEquals(want.values(), e.tensor(-1, "y").orElseThrow().values(), 0.0);
    // token 1, head 0: scores (q . k) / sqrt 2 over keys 0 and 1
    double a = (2 * 0.5 + 1 * -1) / Math.sqrt(2);
    double b = (2 * 1 + 1 * 2) / Math.sqrt(2);
    double p = Math.exp(a) / (Math.exp(a) + Math.exp(b));
    assertArrayEquals(
        new double[] {p * 3 + (1 - p) * -5, p * 4 + (1 - p) * 6},
        Arrays.copyOfRange(want.values(), 4, 6),
        1e-12);
  }
}
