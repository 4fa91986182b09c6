package dev.entangle.lower.xla;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.Dtype;
import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.eval.LoweredEvaluator;
import dev.entangle.eval.WorkBudget;
import dev.entangle.graph.Graph;
import dev.entangle.importer.hlo.HloImporter;
import dev.entangle.lower.DumpedLines;
import dev.entangle.lower.LoweredTerms;
import dev.entangle.lower.Lowering;
import dev.entangle.lower.LoweringException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each HLO opcode's lowering into the core language, as terms, with shapes checked against the
 * types.
 */
class XlaLoweringTest {
  @TempDir Path dir;

  /** Lowers an ENTRY computation of these instruction lines (the last is the ROOT). */
  private Map<String, String> lower(String... lines) throws IOException {
    String text =
        "HloModule m\n\n"
            + "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
            + "  ROOT %s = f32[] add(%a, %b)\n}\n\n"
            + "%max (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
            + "  ROOT %s = f32[] maximum(%b, %a)\n}\n\n"
            + "%min (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
            + "  ROOT %s = f32[] minimum(%a, %b)\n}\n\n"
            + "%mul (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
            + "  ROOT %s = f32[] multiply(%a, %b)\n}\n\n"
            + "ENTRY %main () -> f32[] {\n  "
            + String.join("\n  ", lines)
            + "\n}\n";
    Path f = Files.writeString(dir.resolve("m.hlo"), text);
    return LoweredTerms.of(HloImporter.importGraph(f));
  }

  @Test
  void convolutionIsConvInTheLayoutItsDimLabelsName() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f32[2,5,5,3]{3,2,1,0} parameter(0)",
            "%w = f32[3,3,3,4]{3,2,1,0} parameter(1)",
            "%g = f32[2,5,5,4]{3,2,1,0} parameter(2)",
            "%y = f32[2,5,5,4]{3,2,1,0} convolution(%x, %w), window={size=3x3 pad=1_1x1_1},"
                + " dim_labels=b01f_01io->b01f",
            // JAX's filter gradient: the batch contracted as the feature dim
            "%dw = f32[3,3,3,4]{3,2,1,0} convolution(%x, %g), window={size=5x5 pad=1_1x1_1},"
                + " dim_labels=f01b_i01o->01bf");
    assertEquals(
        "(permute[0 2 3 1] (conv[1 2 1 1 1 1 1 1] (permute[0 3 1 2] x) (permute[3 2 0 1] w)))",
        t.get("y"));
    assertEquals(
        "(permute[2 3 0 1] (conv[1 2 1 1 1 1 1 1] (permute[3 0 1 2] x) (permute[3 0 1 2] g)))",
        t.get("dw"));
  }

  @Test
  void convolutionPaddedUnequallyGetsItsZerosFirst() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f32[1,2,4]{2,1,0} parameter(0)",
            "%w = f32[3,2,2]{2,1,0} parameter(1)",
            "%y = f32[1,3,4]{2,1,0} convolution(%x, %w), window={size=2 pad=0_1}, dim_labels=bf0_oi0->bf0",
            "%t = f32[1,3,7]{2,1,0} convolution(%x, %w), window={size=2 lhs_dilate=2},"
                + " dim_labels=bf0_oi0->bf0");
    assertEquals(
        "(conv[1 1 1 0 1] (concat[2] x (expand[1 2 1] (scalar[0.0 float32]))) w)", t.get("y"));
    assertTrue(t.get("t").startsWith("(xla.convolution"), "a dilated input stays opaque");
  }

  @Test
  void dotMovesContractingDimsInnerAndBatchDimsFirst() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f16[8,6]{1,0} parameter(0)",
            "%w = f16[8,4]{1,0} parameter(1)",
            "%d = f16[6,4]{1,0} dot(%x, %w), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
            "%e = f16[8,8]{1,0} dot(%x, %x), lhs_contracting_dims={1}, rhs_contracting_dims={1}");
    assertEquals("(matmul (permute[1 0] x) w)", t.get("d"));
    assertEquals("(matmul x (permute[1 0] x))", t.get("e"));
    Map<String, String> b =
        lower(
            "%q = f16[5,2,3,4]{3,2,1,0} parameter(0)",
            "%k = f16[7,2,3,4]{3,2,1,0} parameter(1)",
            "%s = f16[2,3,5,7]{3,2,1,0} dot(%q, %k), lhs_batch_dims={1,2}, lhs_contracting_dims={3}, rhs_batch_dims={1,2},"
                + " rhs_contracting_dims={3}");
    assertEquals("(matmul (permute[1 2 0 3] q) (permute[1 2 3 0] k))", b.get("s"));
  }

  @Test
  void dotFlattensSeveralFreeAndContractingDimsAndConvertsToTheResultType() throws IOException {
    Map<String, String> t =
        lower(
            "%x = bf16[2,3,4]{2,1,0} parameter(0)",
            "%w = bf16[3,4,5]{2,1,0} parameter(1)",
            "%d = f32[2,5]{1,0} dot(%x, %w), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}");
    assertEquals("(matmul (cast[0] (reshape[2 12] x)) (cast[0] (reshape[12 5] w)))", t.get("d"));
    Map<String, String> v =
        lower(
            "%x = f32[3]{0} parameter(0)",
            "%w = f32[3,5]{1,0} parameter(1)",
            "%d = f32[5]{0} dot(%x, %w), lhs_contracting_dims={0}, rhs_contracting_dims={0}");
    assertEquals("(reshape[5] (matmul (reshape[1 3] x) w))", v.get("d"));
  }

  @Test
  void broadcastPlacesTheOperandDimsAndRepeatsTheOthers() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f16[6,4]{1,0} parameter(0)",
            "%b = f16[6,2,3,4]{3,2,1,0} broadcast(%x), dimensions={0,3}",
            "%c = f16[4,6]{1,0} broadcast(%x), dimensions={1,0}",
            "%s = f16[] parameter(1)",
            "%f = f16[2,2]{1,0} broadcast(%s), dimensions={}");
    assertEquals("(expand[6 2 3 4] (reshape[6 1 1 4] x))", t.get("b"));
    assertEquals("(permute[1 0] x)", t.get("c"));
    assertEquals("(expand[2 2] s)", t.get("f"));
  }

  @Test
  void layoutOperations() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f32[4,6]{1,0} parameter(0)",
            "%y = f32[4,6]{1,0} parameter(1)",
            "%r = f32[2,12]{1,0} reshape(%x)",
            "%t = f32[6,4]{1,0} transpose(%x), dimensions={1,0}",
            "%s = f32[2,3]{1,0} slice(%x), slice={[1:3], [0:6:2]}",
            "%whole = f32[4,6]{1,0} slice(%x), slice={[0:4], [0:6]}",
            "%c = f32[4,12]{1,0} concatenate(%x, %y), dimensions={1}",
            "%k = f32[4,6]{1,0} copy(%x)",
            "%v = f16[4,6]{1,0} convert(%x)");
    assertEquals("(reshape[2 12] x)", t.get("r"));
    assertEquals("(permute[1 0] x)", t.get("t"));
    assertEquals("(slice[1 0 6 2] (slice[0 1 3 1] x))", t.get("s"));
    assertEquals("x", t.get("whole"));
    assertEquals("(concat[1] x y)", t.get("c"));
    assertEquals("x", t.get("k"));
    assertEquals("(cast[1] x)", t.get("v"));
  }

  @Test
  void elementwiseArithmeticAndEveryComparison() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f32[3]{0} parameter(0)",
            "%y = f32[3]{0} parameter(1)",
            "%i = s32[3]{0} parameter(2)",
            "%j = s32[3]{0} parameter(3)",
            "%p = pred[3]{0} parameter(4)",
            "%add = f32[3]{0} add(%x, %y)",
            "%sub = f32[3]{0} subtract(%x, %y)",
            "%mul = f32[3]{0} multiply(%x, %y)",
            "%div = f32[3]{0} divide(%x, %y)",
            "%idiv = s32[3]{0} divide(%i, %j)",
            "%max = f32[3]{0} maximum(%x, %y)",
            "%min = f32[3]{0} minimum(%x, %y)",
            "%and = pred[3]{0} and(%p, %p)",
            "%or = pred[3]{0} or(%p, %p)",
            "%eq = pred[3]{0} compare(%x, %y), direction=EQ",
            "%ne = pred[3]{0} compare(%x, %y), direction=NE",
            "%lt = pred[3]{0} compare(%x, %y), direction=LT",
            "%le = pred[3]{0} compare(%x, %y), direction=LE",
            "%gt = pred[3]{0} compare(%x, %y), direction=GT",
            "%ge = pred[3]{0} compare(%x, %y), direction=GE",
            "%total = pred[3]{0} compare(%x, %y), direction=LT, type=TOTALORDER",
            "%sel = f32[3]{0} select(%p, %x, %y)");
    assertEquals("(add x y)", t.get("add"));
    assertEquals("(sub x y)", t.get("sub"));
    assertEquals("(mul x y)", t.get("mul"));
    assertEquals("(div x y)", t.get("div"));
    assertEquals(
        "(ew2[xla.divide] i j)", t.get("idiv"), "integer division truncates: not the core div");
    assertEquals("(maximum x y)", t.get("max"));
    assertEquals("(minimum x y)", t.get("min"));
    assertEquals("(and p p)", t.get("and"));
    assertEquals("(or p p)", t.get("or"));
    for (String d : new String[] {"eq", "ne", "lt", "le", "gt", "ge"}) {
      assertEquals("(" + d + " x y)", t.get(d));
    }
    assertEquals(
        "(ew2[xla.compare] x y)", t.get("total"), "a total order is not the core comparison");
    assertEquals("(where p x y)", t.get("sel"));
  }

  @Test
  void unaryFunctionsAndClamp() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f32[3]{0} parameter(0)",
            "%lo = f32[] parameter(1)",
            "%hi = f32[] parameter(2)",
            "%exp = f32[3]{0} exponential(%x)",
            "%log = f32[3]{0} log(%x)",
            "%sig = f32[3]{0} logistic(%x)",
            "%sin = f32[3]{0} sine(%x)",
            "%cos = f32[3]{0} cosine(%x)",
            "%sqrt = f32[3]{0} sqrt(%x)",
            "%rsqrt = f32[3]{0} rsqrt(%x)",
            "%tanh = f32[3]{0} tanh(%x)",
            "%neg = f32[3]{0} negate(%x)",
            "%clamp = f32[3]{0} clamp(%lo, %x, %hi)");
    assertEquals("(exp x)", t.get("exp"));
    assertEquals("(log x)", t.get("log"));
    assertEquals("(sigmoid x)", t.get("sig"));
    assertEquals("(ew1[xla.sine] x)", t.get("sin"));
    assertEquals("(ew1[xla.cosine] x)", t.get("cos"));
    assertEquals("(sqrt x)", t.get("sqrt"));
    assertEquals("(rsqrt x)", t.get("rsqrt"));
    assertEquals("(tanh x)", t.get("tanh"));
    assertEquals("(neg x)", t.get("neg"));
    assertEquals("(minimum (maximum x (expand[3] lo)) (expand[3] hi))", t.get("clamp"));
  }

  @Test
  void iotaAndLiterals() throws IOException {
    Map<String, String> t =
        lower(
            "%i = s32[2,3]{1,0} iota(), iota_dimension=1",
            "%one = f32[] constant(1e-05)",
            "%inf = f16[] constant(-inf)",
            "%t = pred[] constant(true)",
            "%list = s32[3]{0} constant({4, 6, 5})",
            "%steps = s32[3]{0} constant({4, 5, 6})",
            "%rows = s32[2,3]{1,0} constant({ {0, 2, 4}, {0, 2, 4} })",
            "%same = f32[2,2]{1,0} constant({ {2, 2}, {2, 2} })",
            "%elided = f32[32]{0} constant({...})");
    assertEquals("(expand[2 3] (reshape[1 3] (arange[0 3 1 5])))", t.get("i"));
    assertEquals("(scalar[1.0E-5 float32])", t.get("one"));
    assertEquals("(scalar[-Infinity float16])", t.get("inf"));
    assertEquals("(scalar[1.0 bool])", t.get("t"));
    assertEquals(
        "(concat[0] (expand[1] (scalar[4.0 int32])) (expand[1] (scalar[6.0 int32])) (expand[1] (scalar[5.0"
            + " int32])))",
        t.get("list"));
    // integers in arithmetic progression, repeated along the leading dims: a shard's positions
    assertEquals("(arange[4 7 1 5])", t.get("steps"));
    assertEquals("(expand[2 3] (reshape[1 3] (arange[0 6 2 5])))", t.get("rows"));
    assertEquals("(expand[2 2] (scalar[2.0 float32]))", t.get("same"));
    assertEquals("(xla.constant)", t.get("elided"), "an elided literal is a value of its own");
  }

  /** JAX's reducer of (value, index) pairs for argmax (DIR GT) or argmin (DIR LT). */
  private static String pairReducer(String name, String dir) {
    return "%"
        + name
        + " (v0: f32[], i0: s32[], v1: f32[], i1: s32[]) -> (f32[], s32[]) {\n"
        + "  %v0 = f32[] parameter(0)\n  %v1 = f32[] parameter(2)\n"
        + "  %gt = pred[] compare(%v0, %v1), direction="
        + dir
        + "\n  %ne = pred[] compare(%v0, %v0), direction=NE\n"
        + "  %keep = pred[] or(%gt, %ne)\n  %v = f32[] select(%keep, %v0, %v1)\n"
        + "  %eq = pred[] compare(%v0, %v1), direction=EQ\n"
        + "  %i0 = s32[] parameter(1)\n  %i1 = s32[] parameter(3)\n"
        + "  %lt = pred[] compare(%i0, %i1), direction=LT\n  %tie = pred[] and(%eq, %lt)\n"
        + "  %first = pred[] or(%keep, %tie)\n  %i = s32[] select(%first, %i0, %i1)\n"
        + "  ROOT %t = (f32[], s32[]) tuple(%v, %i)\n}\n\n";
  }

  @Test
  void argmaxAndArgminReducersArePairedWithTheirPositions() throws IOException {
    String text =
        "HloModule m\n\n"
            + pairReducer("amax", "GT")
            + pairReducer("amin", "LT")
            + "ENTRY %main (x: f32[3,4]) -> s32[3] {\n"
            + "  %x = f32[3,4]{1,0} parameter(0)\n"
            + "  %pos = s32[4]{0} iota(), iota_dimension=0\n"
            + "  %at = s32[3,4]{1,0} broadcast(%pos), dimensions={1}\n"
            + "  %ninf = f32[] constant(-inf)\n  %inf = f32[] constant(inf)\n"
            + "  %zero = s32[] constant(0)\n"
            + "  %r = (f32[3]{0}, s32[3]{0}) reduce(%x, %at, %ninf, %zero), dimensions={1},"
            + " to_apply=%amax\n"
            + "  %m = f32[3]{0} get-tuple-element(%r), index=0\n"
            + "  %a = s32[3]{0} get-tuple-element(%r), index=1\n"
            + "  %q = (f32[3]{0}, s32[3]{0}) reduce(%x, %at, %inf, %zero), dimensions={1},"
            + " to_apply=%amin\n"
            + "  ROOT %b = s32[3]{0} get-tuple-element(%q), index=1\n}\n";
    Path f = Files.writeString(dir.resolve("arg.hlo"), text);
    Map<String, String> t =
        DumpedLines.of(Lowering.sequential(HloImporter.importGraph(f), new OpTable()));
    assertEquals("float32[3] = ramax[0, 1](x)   # xla.reduce", t.get("m"));
    assertEquals("int32[3] = cast[int32](argmax[0, 1](x))   # xla.reduce", t.get("a"));
    assertEquals("int32[3] = cast[int32](argmax[0, 1](neg(x)))   # xla.reduce", t.get("b"));
    // a reducer that keeps the first value on a tie but the smaller index: not jnp.argmax's, so
    // the reduce stays opaque
    Path ge =
        Files.writeString(dir.resolve("ge.hlo"), text.replace("direction=GT", "direction=GE"));
    Map<String, String> u =
        DumpedLines.of(Lowering.sequential(HloImporter.importGraph(ge), new OpTable()));
    assertTrue(u.get("a").contains("xla.reduce") && !u.get("a").contains("argmax"), u.get("a"));
  }

  @Test
  void foldedMasksAreTheirComparisonAndBlocksRepeatedAlongLeadingDimsAreBroadcast()
      throws IOException {
    Map<String, String> t =
        lower(
            "%lower = pred[3,3]{1,0} constant({ {1, 0, 0}, {1, 1, 0}, {1, 1, 1} })",
            "%upper = pred[2,3]{1,0} constant({ {0, 1, 1}, {0, 0, 1} })",
            "%heads = pred[2,2,2]{2,1,0} constant({ { {1, 0}, {1, 1} }, { {1, 0}, {1, 1} } })",
            "%other = pred[2,2]{1,0} constant({ {0, 1}, {1, 0} })");
    // j - i <= 0 (a causal mask): i >= j
    assertEquals(
        "(ge (expand[3 3] (reshape[3 1] (arange[0 3 1 5]))) (expand[3 3] (reshape[1 3] (arange[0 3"
            + " 1 5]))))",
        t.get("lower"));
    // j - i >= 1: j >= i + 1
    assertEquals(
        "(ge (expand[2 3] (reshape[1 3] (arange[0 3 1 5]))) (expand[2 3] (reshape[2 1] (arange[1 3"
            + " 1 5]))))",
        t.get("upper"));
    // one mask for every head
    assertEquals(
        "(expand[2 2 2] (ge (expand[2 2] (reshape[2 1] (arange[0 2 1 5]))) (expand[2 2] (reshape[1"
            + " 2] (arange[0 2 1 5])))))",
        t.get("heads"));
    assertTrue(t.get("other").startsWith("(reshape[2 2] (concat[0]"), t.get("other"));
  }

  @Test
  void reducesFromTheirIdentityAreTheCoreReductions() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f32[2,3]{1,0} parameter(0)",
            "%zero = f32[] constant(0)",
            "%ninf = f32[] constant(-inf)",
            "%pinf = f32[] constant(inf)",
            "%one = f32[] constant(1)",
            "%sum = f32[2]{0} reduce(%x, %zero), dimensions={1}, to_apply=%add",
            "%max = f32[3]{0} reduce(%x, %ninf), dimensions={0}, to_apply=%max",
            "%min = f32[] reduce(%x, %pinf), dimensions={0,1}, to_apply=%min",
            "%plus1 = f32[2]{0} reduce(%x, %one), dimensions={1}, to_apply=%add",
            "%prod = f32[2]{0} reduce(%x, %one), dimensions={1}, to_apply=%mul");
    assertEquals("(rsum[0 1] x)", t.get("sum"));
    assertEquals("(ramax[0 0] x)", t.get("max"));
    assertEquals("(ramin[0 0 1] x)", t.get("min"));
    assertEquals(
        "(xla.reduce x (scalar[1.0 float32]))",
        t.get("plus1"),
        "XLA may apply a non-identity initial value any number of times: opaque");
    assertEquals("(xla.reduce x (scalar[1.0 float32]))", t.get("prod"));
  }

  @Test
  void aGatherOfWholeRowsIsAnEmbeddingLookup() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f16[6,4,2]{2,1,0} parameter(0)",
            "%i = s32[1]{0} parameter(1)",
            "%g = f16[1,4,2]{2,1,0} gather(%x, %i), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0},"
                + " index_vector_dim=1, slice_sizes={1,4,2}",
            "%h = f16[1,2,2]{2,1,0} gather(%x, %i), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0},"
                + " index_vector_dim=1, slice_sizes={1,2,2}");
    // at the index clamped to the rows, as XLA clamps it
    assertEquals(
        "(reshape[1 4 2] (embedding (reshape[6 8] x) (minimum (maximum i (expand[1] (scalar[0.0"
            + " int32]))) (expand[1] (scalar[5.0 int32])))))",
        t.get("g"));
    assertEquals("(xla.gather x i)", t.get("h"), "a gather of part of a row stays opaque");
  }

  @Test
  void aGatherAlongOneAxisWithBatchingDimsIsAPick() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f32[8,32]{1,0} parameter(0)",
            "%i = s32[8,1,1]{2,1,0} parameter(1)",
            "%g = f32[8,1]{1,0} gather(%x, %i), offset_dims={}, collapsed_slice_dims={1},"
                + " start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0},"
                + " index_vector_dim=2, slice_sizes={1,1}",
            "%y = f32[5,4]{1,0} parameter(2)",
            "%j = s32[3,4,1]{2,1,0} parameter(3)",
            "%h = f32[3,4]{1,0} gather(%y, %j), offset_dims={}, collapsed_slice_dims={0},"
                + " start_index_map={0}, operand_batching_dims={1}, start_indices_batching_dims={1},"
                + " index_vector_dim=2, slice_sizes={1,1}");
    // JAX's take_along_axis along the last dim, one index per row: each row picks at its clamped
    // index, viewed as the output
    assertEquals(
        "(reshape[8 1] (pick x (minimum (maximum (reshape[8] i) (expand[8] (scalar[0.0 int32])))"
            + " (expand[8] (scalar[31.0 int32])))))",
        t.get("g"));
    // along dim 0: the operand transposed so that the axis is last, spread over the index's rows
    assertEquals(
        "(pick (expand[3 4 5] (reshape[1 4 5] (permute[1 0] y))) (minimum (maximum (reshape[3 4] j)"
            + " (expand[3 4] (scalar[0.0 int32]))) (expand[3 4] (scalar[4.0 int32]))))",
        t.get("h"));
  }

  @Test
  void aScatterAddAlongOneAxisWithBatchingDimsIsTorchsScatterAdd() throws IOException {
    String[] lines = {
      "%x = f32[2,4]{1,0} parameter(0)",
      "%i = s32[2,1,1]{2,1,0} parameter(1)",
      "%u = f32[2,1]{1,0} parameter(2)",
      // take_along_axis's backward: each row adds its update at its index (to_apply adds)
      "%s = f32[2,4]{1,0} scatter(%x, %i, %u), update_window_dims={}, inserted_window_dims={1},"
          + " scatter_dims_to_operand_dims={1}, input_batching_dims={0},"
          + " scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=%add",
      // the same with a max: not a sum, left opaque
      "%m = f32[2,4]{1,0} scatter(%x, %i, %u), update_window_dims={}, inserted_window_dims={1},"
          + " scatter_dims_to_operand_dims={1}, input_batching_dims={0},"
          + " scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=%max"
    };
    Map<String, String> t = lower(lines);
    assertTrue(t.get("s").contains("(matmul ") && !t.get("s").contains("xla.scatter"), t.get("s"));
    assertTrue(t.get("m").startsWith("(xla.scatter"), t.get("m"));
    Graph g = HloImporter.importGraph(dir.resolve("m.hlo"));
    Tensor x = Tensor.of(Dtype.FLOAT32.code(), new long[] {2, 4}, 1, 1, 1, 1, 2, 2, 2, 2);
    Tensor u = Tensor.of(Dtype.FLOAT32.code(), new long[] {2, 1}, 5, 7);
    LoweredEvaluator ev = new LoweredEvaluator(new OpTable(), WorkBudget.defaults());
    Tensor in = Tensor.of(Dtype.INT32.code(), new long[] {2, 1, 1}, 3, 0);
    assertArrayEquals(
        new double[] {1, 1, 1, 6, 9, 2, 2, 2},
        ev.evaluate(g, Map.of("x", x, "i", in, "u", u)).tensor(-1, "s").orElseThrow().raw());
    // an index outside the operand adds nothing, as XLA drops the update
    Tensor out = Tensor.of(Dtype.INT32.code(), new long[] {2, 1, 1}, 4, -1);
    assertArrayEquals(
        new double[] {1, 1, 1, 1, 2, 2, 2, 2},
        ev.evaluate(g, Map.of("x", x, "i", out, "u", u)).tensor(-1, "s").orElseThrow().raw());
  }

  @Test
  void aReduceWindowThatSumsEachPrefixIsARunningSum() throws IOException {
    String[] lines = {
      "%x = f32[2,3]{1,0} parameter(0)",
      "%zero = f32[] constant(0)",
      // jnp.cumsum(x, axis=1)
      "%c = f32[2,3]{1,0} reduce-window(%x, %zero), window={size=1x3 pad=0_0x2_0}, to_apply=%add",
      // a window of two (a moving sum), a running max, and the sums of the suffixes: opaque
      "%w = f32[2,3]{1,0} reduce-window(%x, %zero), window={size=1x2 pad=0_0x1_0}, to_apply=%add",
      "%m = f32[2,3]{1,0} reduce-window(%x, %zero), window={size=1x3 pad=0_0x2_0}, to_apply=%max",
      "%s = f32[2,3]{1,0} reduce-window(%x, %zero), window={size=1x3 pad=0_0x0_2}, to_apply=%add",
      // from one, strided, dilated: opaque
      "%one = f32[] constant(1)",
      "%i = f32[2,3]{1,0} reduce-window(%x, %one), window={size=1x3 pad=0_0x2_0}, to_apply=%add",
      "%t = f32[2,2]{1,0} reduce-window(%x, %zero), window={size=1x3 stride=1x2 pad=0_0x2_0},"
          + " to_apply=%add",
      "%d = f32[2,3]{1,0} reduce-window(%x, %zero), window={size=1x3 pad=0_0x2_0 rhs_dilate=1x2},"
          + " to_apply=%add"
    };
    Map<String, String> t = lower(lines);
    assertTrue(t.get("c").contains("(matmul ") && !t.get("c").contains("xla."), t.get("c"));
    for (String opaque : List.of("w", "m", "s", "i", "t", "d")) {
      assertTrue(t.get(opaque).startsWith("(xla.reduce_window"), t.get(opaque));
    }
    Graph g = HloImporter.importGraph(dir.resolve("m.hlo"));
    Tensor x = Tensor.of(Dtype.FLOAT32.code(), new long[] {2, 3}, 1, 2, 3, 4, 5, 6);
    LoweredEvaluator ev = new LoweredEvaluator(new OpTable(), WorkBudget.defaults());
    assertArrayEquals(
        new double[] {1, 3, 6, 4, 9, 15},
        ev.evaluate(g, Map.of("x", x)).tensor(-1, "c").orElseThrow().raw());
  }

  @Test
  void padsAndUpdatesAtKnownOffsetsAreConcats() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f32[2,3]{1,0} parameter(0)",
            "%u = f32[1,3]{1,0} parameter(1)",
            "%z = f32[] constant(0)",
            "%p = f32[3,5]{1,0} pad(%x, %z), padding=1_0x0_2",
            "%n = f32[2,2]{1,0} pad(%x, %z), padding=0_0x-1_0",
            "%one = s32[] constant(1)",
            "%zero = s32[] constant(0)",
            "%ds = f32[1,3]{1,0} dynamic-slice(%x, %one, %zero), dynamic_slice_sizes={1,3}",
            "%dus = f32[2,3]{1,0} dynamic-update-slice(%x, %u, %one, %zero)",
            "%i = s32[] parameter(2)",
            "%dyn = f32[1,3]{1,0} dynamic-slice(%x, %i, %zero), dynamic_slice_sizes={1,3}");
    assertEquals(
        "(concat[1] (concat[0] (expand[1 3] (scalar[0.0 float32])) x) (expand[3 2] (scalar[0.0 float32])))",
        t.get("p"));
    assertEquals("(slice[1 1 3 1] x)", t.get("n"));
    assertEquals("(slice[0 1 2 1] x)", t.get("ds"));
    assertEquals("(concat[0] (slice[0 0 1 1] x) u)", t.get("dus"));
    assertEquals(
        "(xla.dynamic_slice x i (scalar[0.0 int32]))",
        t.get("dyn"),
        "an offset known only at run time");
  }

  @Test
  void theNeuronCustomCalls() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f32[4,3,2]{2,1,0} parameter(0)",
            "%w = f32[4]{0} parameter(1)",
            "%eps = f32[] constant(1e-05)",
            "%n = f16[4,3,2]{2,1,0} custom-call(%x, %w, %eps), custom_call_target=\"AwsNeuronRmsNorm\","
                + " api_version=API_VERSION_UNSPECIFIED, backend_config=\"0\"",
            "%c = f32[4]{0} custom-call(%w), custom_call_target=\"AwsNeuronTransferWithStaticRing\"",
            "%s = f32[4,3,2]{2,1,0} custom-call(%x), custom_call_target=\"AwsNeuronSoftmax\", backend_config=\"1\"",
            "%g = f32[4,3,2]{2,1,0} custom-call(%x), custom_call_target=\"AwsNeuronGelu\"",
            "%o = f32[4,3,2]{2,1,0} custom-call(%x), custom_call_target=\"SomethingElse\"");
    long eps = Double.doubleToLongBits(1e-05);
    assertEquals(
        "(cast[1] (mul (permute[2 0 1] (rms_normalize[1 "
            + eps
            + "] (permute[1 2 0] x))) (expand[4 3 2]"
            + " (reshape[4 1 1] w))))",
        t.get("n"));
    assertEquals("w", t.get("c"));
    assertEquals("(softmax[1] x)", t.get("s"));
    assertEquals("(gelu[1] x)", t.get("g"));
    assertEquals("(xla.custom_call x)", t.get("o"), "an unknown custom call stays opaque");
  }

  @Test
  void anRmsNormWhoseEpsilonIsComputedIsItsFormula() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f32[2,4]{1,0} parameter(0)",
            "%w = f32[4]{0} parameter(1)",
            "%e = f32[] parameter(2)",
            "%n = f32[2,4]{1,0} custom-call(%x, %w, %e), custom_call_target=\"AwsNeuronRmsNorm\", backend_config=\"1\"");
    assertEquals(
        "(mul (mul x (expand[2 4] (rsqrt (add (rmean[1 1] (mul x x)) (expand[2 1] e))))) (expand[2 4] w))",
        t.get("n"));
  }

  @Test
  void tuplesAndTheirElements() throws IOException {
    Map<String, String> t =
        lower(
            "%x = f32[2]{0} parameter(0)",
            "%y = f32[3]{0} parameter(1)",
            "%t = (f32[2]{0}, f32[3]{0}) tuple(%x, %y)",
            "%b = f32[3]{0} get-tuple-element(%t), index=1",
            "ROOT %r = (f32[3]{0}) tuple(%b)");
    assertEquals("x | y", t.get("t"));
    assertEquals("y", t.get("b"));
  }

  @Test
  void aBroadcastThatDoesNotFitItsTypeIsAnError() {
    LoweringException e =
        assertThrows(
            LoweringException.class,
            () ->
                lower(
                    "%x = f32[3]{0} parameter(0)",
                    "%b = f32[2,3]{1,0} broadcast(%x), dimensions={0,1}"));
    assertTrue(e.getMessage().contains("broadcast"), e.getMessage());
  }

  @Test
  void aBitcastConvertThatChangesTheElementWidthIsRefused() throws IOException {
    LoweringException e =
        assertThrows(
            LoweringException.class,
            () -> lower("%x = f32[3]{0} parameter(0)", "%b = bf16[3,2]{1,0} bitcast-convert(%x)"));
    assertTrue(e.getMessage().contains("changes the element width"), e.getMessage());
    Map<String, String> t =
        lower("%x = f32[3]{0} parameter(0)", "%b = s32[3]{0} bitcast-convert(%x)");
    assertTrue(t.get("b").startsWith("(ew1[xla.bitcast_convert]"), t.get("b"));
  }
}
