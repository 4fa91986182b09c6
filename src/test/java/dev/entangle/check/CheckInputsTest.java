package dev.entangle.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.util.InputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A large G_d is read while G_s is read on another thread, with the same result and errors. */
class CheckInputsTest {
  private static final Path CASE = Path.of("examples/fig1-matmul");

  @TempDir Path tmp;

  /** The case's G_d with trailing blanks, past the size read on two threads. */
  private Path largeGd() throws IOException {
    Path gd = tmp.resolve("gd.json");
    Files.writeString(
        gd,
        Files.readString(CASE.resolve("gd.json")) + " ".repeat((int) CheckInputs.PARALLEL_BYTES));
    return gd;
  }

  @Test
  void aLargeGdReadsAsASmallOne() throws IOException {
    CheckInputs small =
        CheckInputs.read(CASE.resolve("gs.json"), CASE.resolve("gd.json"), CASE.resolve("ri.json"));
    CheckInputs large =
        CheckInputs.read(CASE.resolve("gs.json"), largeGd(), CASE.resolve("ri.json"));
    assertEquals(small.gs().nodes(), large.gs().nodes());
    assertEquals(small.gd().worldSize(), large.gd().worldSize());
    for (int k = 0; k < small.gd().worldSize(); k++) {
      assertEquals(small.gd().rank(k).nodes(), large.gd().rank(k).nodes());
    }
  }

  @Test
  void aBadGsIsReportedBeforeABadLargeGd() throws IOException {
    Path gs = tmp.resolve("gs.json");
    Files.writeString(gs, "{\"nodes\": [");
    Path gd = largeGd();
    Files.writeString(gd, "{", java.nio.file.StandardOpenOption.APPEND);
    String message =
        assertThrows(InputException.class, () -> CheckInputs.read(gs, gd, CASE.resolve("ri.json")))
            .getMessage();
    assertTrue(message.startsWith(gs.toString()), message);
    String gdOnly =
        assertThrows(
                InputException.class,
                () -> CheckInputs.read(CASE.resolve("gs.json"), gd, CASE.resolve("ri.json")))
            .getMessage();
    assertTrue(gdOnly.startsWith(gd.toString()), gdOnly);
  }
}
