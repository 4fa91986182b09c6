package dev.entangle.importer.hlo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.cli.CliRun;
import dev.entangle.cli.Reports;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks of HLO programs through the command line: both imported, then checked, the JSON report
 * returned.
 */
final class HloChecks {
  private HloChecks() {}

  /**
   * Writes G_s and the SPMD G_d program into {@code dir}, imports them ({@code --ranks ranks}) and
   * checks them with the relation file's text.
   */
  static JsonNode check(Path dir, String gs, String gd, int ranks, String relation)
      throws IOException {
    Files.createDirectories(dir);
    Path gsHlo = Files.writeString(dir.resolve("gs.hlo"), gs);
    Path gdHlo = Files.writeString(dir.resolve("gd.hlo"), gd);
    Path ri = Files.writeString(dir.resolve("ri.json"), relation);
    Path gsJson = dir.resolve("gs.json");
    Path gdJson = dir.resolve("gd.json");
    CliRun a = CliRun.run("import", gsHlo, "-o", gsJson);
    assertEquals(0, a.exitCode(), a::transcript);
    CliRun b = CliRun.run("import", gdHlo, "--ranks", ranks, "-o", gdJson);
    assertEquals(0, b.exitCode(), b::transcript);
    Path report = dir.resolve("report.json");
    CliRun run = CliRun.check(gsJson, gdJson, ri, "--json", report);
    assertTrue(Files.exists(report), run::transcript);
    return Reports.read(report);
  }

  /** A relation file of these entries. */
  static String relation(String... entries) {
    return "{\"format\": \"entangle-relation/1\", \"relations\": ["
        + String.join(", ", entries)
        + "]}";
  }
}
