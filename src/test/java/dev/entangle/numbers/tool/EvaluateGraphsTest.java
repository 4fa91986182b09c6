package dev.entangle.numbers.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The developer's entry point: its output file, its inputs file, and its messages. */
class EvaluateGraphsTest {
  private static final String CASE = "examples/mlp-tp2/";

  @TempDir Path tmp;

  private record Result(int code, String out, String err) {}

  private static Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        EvaluateGraphs.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void writesTheInputsAndEveryValue() throws Exception {
    Path out = tmp.resolve("values.json");
    Result r =
        run(
            CASE + "gs.json",
            CASE + "gd.json",
            "--rel",
            CASE + "ri.json",
            "--seed",
            "5",
            "-o",
            out.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals("wrote " + out + System.lineSeparator(), r.out());
    JsonNode root = new ObjectMapper().readTree(out.toFile());
    assertEquals(5, root.get("seed").asLong());
    assertEquals(64, root.get("inputs").get("gs").get("x").get("data").size());
    assertEquals("[4,16]", root.get("values").get("gs").get("addmm_1").get("shape").toString());
    assertEquals(2, root.get("values").get("gd").size());
    assertTrue(root.get("values").get("gd").get(1).get("add").has("data"));
  }

  @Test
  void evaluatesGivenInputsToTheSameValues() throws Exception {
    Path first = tmp.resolve("first.json");
    run(CASE + "gs.json", CASE + "gd.json", "--rel", CASE + "ri.json", "-o", first.toString());
    JsonNode drawn = new ObjectMapper().readTree(first.toFile());
    Path inputs = Files.writeString(tmp.resolve("inputs.json"), drawn.get("inputs").toString());
    Path second = tmp.resolve("second.json");
    Result r =
        run(
            CASE + "gs.json",
            CASE + "gd.json",
            "--inputs",
            inputs.toString(),
            "-o",
            second.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals(drawn.get("values"), new ObjectMapper().readTree(second.toFile()).get("values"));
  }

  @Test
  void manyRunsInOneProcessWriteWhatEachWouldAndReportTheWorstExit() throws Exception {
    Path single = tmp.resolve("single.json");
    run(CASE + "gs.json", CASE + "gd.json", "--rel", CASE + "ri.json", "-o", single.toString());
    Path a = tmp.resolve("a.json");
    Path b = tmp.resolve("b.json");
    ObjectMapper json = new ObjectMapper();
    Path runs =
        Files.writeString(
            tmp.resolve("runs.json"),
            json.writeValueAsString(
                List.of(
                    List.of(
                        CASE + "gs.json",
                        CASE + "gd.json",
                        "--rel",
                        CASE + "ri.json",
                        "-o",
                        "" + a),
                    List.of(CASE + "gs.json", "-o", "" + b))));
    Result r = run("--many", runs.toString());
    assertEquals(2, r.code(), r.err());
    assertEquals(json.readTree(single.toFile()), json.readTree(a.toFile()));
    assertTrue(r.err().contains("usage: EvaluateGraphs"), r.err());
    assertTrue(r.err().contains("failed: " + CASE + "gs.json -o " + b), r.err());
    Result missing = run("--many", runs + ".missing");
    assertEquals(2, missing.code());
    assertTrue(missing.err().contains("runs.json.missing"), missing.err());
  }

  @Test
  void badArgumentsExitWithTwoAndSayHow() {
    Result r = run(CASE + "gs.json", "-o", "x.json");
    assertEquals(2, r.code());
    assertEquals(
        "usage: EvaluateGraphs GS GD (--rel RI [--seed N] | --inputs FILE) -o OUT"
            + System.lineSeparator(),
        r.err());
    Result missing =
        run("nowhere/gs.json", CASE + "gd.json", "--rel", CASE + "ri.json", "-o", "x.json");
    assertEquals(2, missing.code());
    assertTrue(missing.err().startsWith("nowhere/gs.json"), missing.err());
  }
}
