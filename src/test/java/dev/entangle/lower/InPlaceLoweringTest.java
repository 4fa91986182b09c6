package dev.entangle.lower;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.CoreProgram;
import dev.entangle.core.OpTable;
import dev.entangle.graph.GraphJson;
import dev.entangle.util.InputException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An in-place element-wise call ({@code aten.add_.Scalar}, as {@code F.rms_norm} adds its epsilon)
 * lowers as its functional form when nothing reads the updated tensor afterwards, and is an error
 * naming the later reader otherwise (the core language has no mutation).
 */
class InPlaceLoweringTest {
  @TempDir Path dir;

  /** G_s: mean = x.mean(-1, keepdim); r = mean.add_(eps).rsqrt(); then {@code tail} nodes. */
  private Path graph(String tail, String output) throws IOException {
    String json =
        "{\"format\": \"entangle-fx/1\", \"name\": \"g\", \"nodes\": ["
            + "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\","
            + " \"meta\": {\"shape\": [4, 8], \"dtype\": \"float32\"}},"
            + "{\"name\": \"mean\", \"op\": \"call_function\", \"target\": \"aten.mean.dim\","
            + " \"args\": [{\"node\": \"x\"}, [-1], true], \"kwargs\": {},"
            + " \"meta\": {\"shape\": [4, 1], \"dtype\": \"float32\"}},"
            + "{\"name\": \"add_\", \"op\": \"call_function\", \"target\": \"aten.add_.Scalar\","
            + " \"args\": [{\"node\": \"mean\"}, 1e-06], \"kwargs\": {},"
            + " \"meta\": {\"shape\": [4, 1], \"dtype\": \"float32\"}},"
            + "{\"name\": \"rsqrt\", \"op\": \"call_function\", \"target\": \"aten.rsqrt.default\","
            + " \"args\": [{\"node\": \"add_\"}], \"kwargs\": {},"
            + " \"meta\": {\"shape\": [4, 1], \"dtype\": \"float32\"}}"
            + tail
            + ",{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\","
            + " \"args\": [[{\"node\": \""
            + output
            + "\"}]]}]}";
    return Files.writeString(dir.resolve("g.json"), json);
  }

  private static String dump(CoreProgram p) {
    StringWriter w = new StringWriter();
    ProgramDump.print(p, "G_s", new PrintWriter(w));
    return w.toString();
  }

  @Test
  void anInPlaceAddNothingReadsAfterIsTheAdd() throws IOException {
    CoreProgram p = Lowering.sequential(GraphJson.readGraph(graph("", "rsqrt")), new OpTable());
    String text = dump(p);
    assertTrue(text.contains("add_ : float32[4, 1] = add(mean, expand[4, 1]("), text);
    assertTrue(text.contains("# aten.add_.Scalar"), "keeps its target in the report\n" + text);
  }

  @Test
  void anInPlaceAddWhoseTensorIsReadAfterIsAnError() throws IOException {
    String tail =
        ",{\"name\": \"both\", \"op\": \"call_function\", \"target\": \"aten.mul.Tensor\","
            + " \"args\": [{\"node\": \"mean\"}, {\"node\": \"rsqrt\"}], \"kwargs\": {},"
            + " \"meta\": {\"shape\": [4, 1], \"dtype\": \"float32\"}}";
    Path g = graph(tail, "both");
    InputException e =
        assertThrows(
            InputException.class, () -> Lowering.sequential(GraphJson.readGraph(g), new OpTable()));
    assertTrue(e.getMessage().contains("node 'add_' (aten.add_.Scalar)"), e.getMessage());
    assertTrue(
        e.getMessage().contains("updates 'mean', which 'both' reads afterwards"), e.getMessage());
    assertTrue(e.getMessage().contains("functionalized"), e.getMessage());
  }
}
