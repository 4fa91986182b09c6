package dev.entangle.refine;

import static dev.entangle.refine.HandGraphs.call;
import static dev.entangle.refine.HandGraphs.input;
import static dev.entangle.refine.HandGraphs.ref;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.stream.IntStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A ring all-gather matmul (as asynchronous tensor parallelism overlaps its communication): each
 * rank multiplies the row chunk it holds by its column block of the weight, then passes the chunk
 * to the next rank with an all-to-all that sends to one peer only (the other splits zero), and
 * writes each product at the rows of the chunk's origin. The pieces of no rows are no part of what
 * a rank receives, at any number of ranks.
 */
class PointToPointRingTest {
  private static final int ROWS = 2;
  private static final int DIM = 4;
  private static final int COLS = 2;

  @TempDir java.nio.file.Path tmp;

  private static String gs(int n) {
    List<String> nodes = new ArrayList<>();
    nodes.add(input("x", "[" + ROWS * n + ", " + DIM + "]"));
    nodes.add(input("w", "[" + DIM + ", " + COLS * n + "]"));
    nodes.add(
        call(
            "y",
            "aten.mm.default",
            "[" + ref("x") + ", " + ref("w") + "]",
            "[" + ROWS * n + ", " + COLS * n + "]"));
    return HandGraphs.graph(nodes, "y");
  }

  /** Splits sending every row to {@code peer} alone. */
  private static String splits(int n, int peer) {
    StringJoiner j = new StringJoiner(", ", "[", "]");
    for (int i = 0; i < n; i++) {
      j.add(i == peer ? String.valueOf(ROWS) : "0");
    }
    return j.toString();
  }

  /** Rank r of the ring; {@code backwards} takes the held chunk's origin the wrong way round. */
  private static String rank(int n, int r, boolean backwards) {
    List<String> nodes = new ArrayList<>();
    nodes.add(input("x", "[" + ROWS + ", " + DIM + "]"));
    nodes.add(input("w", "[" + DIM + ", " + COLS + "]"));
    String[] products = new String[n];
    String chunk = "x";
    for (int step = 0; step < n; step++) {
      int origin = Math.floorMod(backwards ? r + step : r - step, n);
      products[origin] = "p" + step;
      nodes.add(
          call(
              "p" + step,
              "aten.mm.default",
              "[" + ref(chunk) + ", " + ref("w") + "]",
              "[" + ROWS + ", " + COLS + "]"));
      if (step < n - 1) {
        String sent = "send" + step;
        nodes.add(
            call(
                sent,
                "_c10d_functional.all_to_all_single.default",
                "["
                    + ref(chunk)
                    + ", "
                    + splits(n, Math.floorMod(r - 1, n))
                    + ", "
                    + splits(n, Math.floorMod(r + 1, n))
                    + ", \"tp\"]",
                "[" + ROWS + ", " + DIM + "]"));
        chunk = "recv" + step;
        nodes.add(
            call(
                chunk,
                "_c10d_functional.wait_tensor.default",
                "[" + ref(sent) + "]",
                "[" + ROWS + ", " + DIM + "]"));
      }
    }
    StringJoiner parts = new StringJoiner(", ", "[", "]");
    for (String p : products) {
      parts.add(ref(p));
    }
    nodes.add(
        call("y", "aten.cat.default", "[" + parts + ", 0]", "[" + ROWS * n + ", " + COLS + "]"));
    return HandGraphs.graph(nodes, "y");
  }

  private CliRun check(int n, boolean backwards) throws IOException {
    List<String> ranks = IntStream.range(0, n).mapToObj(r -> rank(n, r, backwards)).toList();
    StringJoiner xs = new StringJoiner(", ");
    StringJoiner ws = new StringJoiner(", ");
    for (int r = 0; r < n; r++) {
      xs.add("r" + r + ".x");
      ws.add("r" + r + ".w");
    }
    return HandGraphs.check(
        tmp,
        gs(n),
        ranks,
        "{\"gs\": \"x\", \"gd\": \"concat("
            + xs
            + ", dim=0)\"},"
            + " {\"gs\": \"w\", \"gd\": \"concat("
            + ws
            + ", dim=1)\"}");
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 8})
  void aRingOfSendsToOnePeerRefines(int n) throws IOException {
    CliRun run = check(n, false);
    assertEquals(0, run.exitCode(), run::transcript);
    StringJoiner ys = new StringJoiner(", ");
    for (int r = 0; r < n; r++) {
      ys.add("r" + r + ".y");
    }
    assertTrue(run.out().contains("y: concat(" + ys + ", dim=1)"), run::transcript);
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 4})
  void aRingTurnedTheWrongWayIsNotRefined(int n) throws IOException {
    CliRun run = check(n, true);
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().startsWith("not-refined"), run::transcript);
    assertTrue(run.out().contains("operator: y (aten.mm.default)"), run::transcript);
  }
}
