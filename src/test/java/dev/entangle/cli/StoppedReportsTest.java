package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/**
 * A check that {@code --timeout} stops before it can report still writes every report file asked
 * for, saying {@code inconclusive} and naming the phase.
 */
class StoppedReportsTest {
  @TempDir Path tmp;

  @Test
  void aCheckStoppedWhileReadingWritesEveryReportAskedFor() throws IOException {
    Path g = ChainGraph.write(tmp, 200_000);
    Path json = tmp.resolve("out/r.json");
    Path junit = tmp.resolve("out/r.xml");
    Path sarif = tmp.resolve("out/r.sarif");
    Path html = tmp.resolve("out/r.html");
    Files.createDirectories(json.getParent());
    CliRun run =
        CliRun.check(
            g,
            g,
            tmp.resolve("ri.json"),
            "--timeout",
            "0.01",
            "--name",
            "chain",
            "--json",
            json,
            "--junit",
            junit,
            "--sarif",
            sarif,
            "--html",
            html);
    assertEquals(3, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("ran out of time (--timeout 0.01 s) while "), run.out());
    JsonNode r = ExampleCase.JSON.readTree(json.toFile());
    assertEquals("inconclusive", r.get("verdict").asText());
    String phase = r.get("stopped_in").asText();
    assertTrue(phase.startsWith("reading") || phase.startsWith("lowering"), phase);
    assertTrue(r.get("reason").asText().contains("while " + phase), r.toString());
    assertFalse(r.get("stats").has("gs_operators"), "no count that was never made");
    Element error =
        JunitXml.child(
            JunitXml.read(junit).testCase("check (stopped while " + phase + ")"), "error");
    assertEquals("inconclusive", error.getAttribute("type"));
    JsonNode log = ExampleCase.JSON.readTree(sarif.toFile());
    String note =
        log.at("/runs/0/invocations/0/toolExecutionNotifications/0/message/text").asText();
    assertTrue(note.contains("inconclusive") && note.contains(phase), note);
    String page = Files.readString(html);
    assertTrue(page.contains("<title>entangle: chain inconclusive</title>"), page);
    assertTrue(page.contains("<h2>Stopped while " + phase + "</h2>"), page);
    try (var files = Files.list(json.getParent())) {
      assertEquals(4, files.count(), "the four reports and no temporary file left");
    }
  }
}
