package dev.entangle.lower.aten;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.Dtype;
import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.eval.Evaluation;
import dev.entangle.eval.LoweredEvaluator;
import dev.entangle.eval.WorkBudget;
import dev.entangle.graph.FxJson;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import dev.entangle.lower.Lowering;
import dev.entangle.lower.ProgramDump;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scaled dot-product attention as torch's CPU kernel computes it ({@link AttentionLowering}): the
 * lowered forward and backward give torch's numbers (computed with torch 2 in float64 on these
 * inputs, with and without the causal mask; the backward reads the forward's saved output and
 * logsumexp), and dropout stays opaque.
 */
class AttentionLoweringTest {
  @TempDir Path dir;

  private static final long[] SHAPE = {1, 2, 3, 2};
  private static final double[] Q = {
    1.5, -0.25, -2.25, 0.5, -1, -1.5, 0.5, 0.75, -0.75, -0.5, -0.5, 0.25
  };
  private static final double[] K = {-0.75, 1, -1, 0, -0.5, 0.25, -1, -1.5, 0.25, 1.5, 1, 0.75};
  private static final double[] V = {
    0.25, 1.25, -1.25, -0.75, 0, -0.75, 0.5, -1.25, 0.25, 0.5, -2.25, 0.25
  };
  private static final double[] DO = {-1, -0.5, 0.25, -1, 0, 0.25, 0, -1, -1, -0.25, 0.25, -0.25};

  /** A graph of q, k, v, dO, the forward (out, lse) and the backward (dq, dk, dv). */
  private Graph graph(boolean causal, double dropout) throws IOException {
    String shape = "[1, 2, 3, 2]";
    String rows = "[1, 2, 3]";
    String f64 = "float64";
    String saved = FxJson.ref("out") + ", " + FxJson.ref("lse") + ", ";
    String qkv = FxJson.ref("q") + ", " + FxJson.ref("k") + ", " + FxJson.ref("v");
    List<String> nodes =
        List.of(
            FxJson.input("q", shape, f64),
            FxJson.input("k", shape, f64),
            FxJson.input("v", shape, f64),
            FxJson.input("dout", shape, f64),
            FxJson.tuple(
                "fwd",
                "aten._scaled_dot_product_flash_attention_for_cpu.default",
                "[" + qkv + ", " + dropout + ", " + causal + "]",
                "{}",
                List.of(FxJson.meta(shape, f64), FxJson.meta(rows, f64))),
            FxJson.item("out", "fwd", 0, shape, f64),
            FxJson.item("lse", "fwd", 1, rows, f64),
            FxJson.tuple(
                "bwd",
                "aten._scaled_dot_product_flash_attention_for_cpu_backward.default",
                "["
                    + FxJson.ref("dout")
                    + ", "
                    + qkv
                    + ", "
                    + saved
                    + dropout
                    + ", "
                    + causal
                    + "]",
                "{}",
                shape,
                f64,
                3),
            FxJson.item("dq", "bwd", 0, shape, f64),
            FxJson.item("dk", "bwd", 1, shape, f64),
            FxJson.item("dv", "bwd", 2, shape, f64));
    String text = FxJson.graph(nodes, "out", "lse", "dq", "dk", "dv");
    return GraphJson.readGraph(Files.writeString(dir.resolve("g.json"), text));
  }

  private Evaluation evaluate(boolean causal) throws IOException {
    int f64 = Dtype.FLOAT64.code();
    return new LoweredEvaluator(new OpTable(), WorkBudget.defaults())
        .evaluate(
            graph(causal, 0.0),
            Map.of(
                "q", Tensor.of(f64, SHAPE, Q),
                "k", Tensor.of(f64, SHAPE, K),
                "v", Tensor.of(f64, SHAPE, V),
                "dout", Tensor.of(f64, SHAPE, DO)));
  }

  private static void agrees(Evaluation e, String name, double... torch) {
    double[] got = e.tensor(-1, name).orElseThrow().values();
    assertArrayEquals(torch, got, 1e-6, name);
  }

  @Test
  void theForwardAndBackwardGiveTorchsNumbers() throws IOException {
    Evaluation e = evaluate(false);
    agrees(
        e,
        "out",
        -0.262717350,
        -0.162434108,
        -0.412602153,
        0.031087246,
        -0.643861146,
        -0.432706631,
        -0.824775061,
        0.276696220,
        0.144597467,
        -0.840427296,
        -0.310724712,
        -0.184095526);
    agrees(e, "lse", 0.252642239, 2.487011689, 1.310745574, 1.580415754, 1.349366586, 1.127367172);
    agrees(
        e,
        "dq",
        -0.058501243,
        -0.250815017,
        -0.009795367,
        -0.259404320,
        0.003537646,
        0.043061446,
        -0.081876507,
        -0.217512114,
        0.299312751,
        0.270361923,
        -0.228430641,
        -0.270418969);
    agrees(
        e,
        "dk",
        0.227429389,
        -0.152915604,
        0.024785175,
        0.067615484,
        -0.252214564,
        0.085300120,
        0.077064826,
        0.149197931,
        -0.003896208,
        -0.040299260,
        -0.073168618,
        -0.108898670);
    agrees(
        e,
        "dv",
        -0.196147040,
        -0.497773425,
        -0.166882858,
        -0.405951119,
        -0.386970102,
        -0.346275456,
        -0.660778185,
        -0.341016224,
        -0.037055454,
        -0.628359404,
        -0.052166361,
        -0.530624371);
  }

  @Test
  void theCausalForwardAndBackwardGiveTorchsNumbers() throws IOException {
    Evaluation e = evaluate(true);
    agrees(
        e,
        "out",
        0.25,
        1.25,
        -0.516570118,
        0.227906509,
        -0.643861146,
        -0.432706631,
        0.5,
        -1.25,
        0.462147115,
        -0.985029806,
        -0.310724712,
        -0.184095526);
    agrees(
        e, "lse", -0.972271824, 2.262284472, 1.310745574, -1.149048519, 1.224841116, 1.127367172);
    agrees(
        e,
        "dq",
        0,
        0,
        -0.071780478,
        -0.287121911,
        0.003537646,
        0.043061446,
        0,
        0,
        -0.021293761,
        -0.051105027,
        -0.228430641,
        -0.270418969);
    agrees(
        e,
        "dk",
        0.598832730,
        -0.214348309,
        -0.615353223,
        0.189567569,
        0.016520493,
        0.024780740,
        -0.071464446,
        0.020826590,
        0.016991001,
        0.006410132,
        0.054473445,
        -0.027236722);
    agrees(
        e,
        "dv",
        -0.877761686,
        -0.949291583,
        0.127761686,
        -0.374342182,
        0,
        0.073633766,
        -0.760134509,
        -1.300601067,
        -0.054783357,
        -0.134481067,
        0.064917866,
        -0.064917866);
  }

  @Test
  void dropoutStaysOpaque() throws IOException {
    StringWriter w = new StringWriter();
    ProgramDump.print(
        Lowering.sequential(graph(false, 0.1), new OpTable()), "G_s", new PrintWriter(w));
    assertTrue(
        w.toString().contains("aten._scaled_dot_product_flash_attention_for_cpu_backward"),
        w.toString());
  }
}
