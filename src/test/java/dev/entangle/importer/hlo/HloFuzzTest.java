package dev.entangle.importer.hlo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.util.InputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded programs of {@link HloFuzzPrinter}: XLA's decorated printing (layouts, comments, metadata,
 * shardings, long tuples, iota replica groups; every other seed with CRLF line breaks) imports to
 * the same four rank graphs as the plain printing; and damaged texts (cut, characters dropped or
 * inserted, lines doubled or swapped, numbers too large, brackets nested deep) import or fail with
 * a one-paragraph error naming the file and line, never with another exception.
 */
class HloFuzzTest {
  private static final int RANKS = 4;
  private static final Pattern LOCATED = Pattern.compile("^\\S+\\.hlo(:\\d+(:\\d+)?)?: [^\\n]+$");

  @TempDir Path dir;

  @TestFactory
  Stream<DynamicTest> decoratedPrintingImportsToTheSameGraphs() {
    return LongStream.rangeClosed(1, 60)
        .mapToObj(
            seed ->
                DynamicTest.dynamicTest(
                    "seed " + seed,
                    () -> {
                      HloFuzzPrinter.Printed p = HloFuzzPrinter.program(seed);
                      DistributedGraph plain = importText("plain" + seed, p.plain());
                      String decorated =
                          seed % 2 == 0 ? p.decorated().replace("\n", "\r\n") : p.decorated();
                      DistributedGraph deco = importText("deco" + seed, decorated);
                      for (int r = 0; r < RANKS; r++) {
                        assertEquals(
                            describe(plain.rank(r)),
                            describe(deco.rank(r)),
                            "rank " + r + " of seed " + seed + ":\n" + p.decorated());
                      }
                    }));
  }

  @TestFactory
  Stream<DynamicTest> damagedTextIsALocatedErrorNeverAnotherException() {
    return LongStream.rangeClosed(1, 25)
        .mapToObj(
            seed ->
                DynamicTest.dynamicTest(
                    "seed " + seed,
                    () -> {
                      String text = HloFuzzPrinter.program(seed).decorated();
                      Random random = new Random(seed * 7919);
                      for (int k = 0; k < 40; k++) {
                        String damaged = damage(text, random);
                        Path f =
                            Files.writeString(dir.resolve("d" + seed + "-" + k + ".hlo"), damaged);
                        try {
                          HloImporter.importRanks(List.of(f), RANKS);
                        } catch (InputException e) {
                          assertTrue(
                              LOCATED.matcher(e.getMessage()).matches(),
                              "not a one-paragraph located error: " + e.getMessage());
                        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
                          fail("seed " + seed + " damage " + k + ": " + e + "\n" + damaged, e);
                        }
                      }
                    }));
  }

  /** One random damage of a text. */
  static String damage(String text, Random random) {
    int at = random.nextInt(text.length());
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    int line = random.nextInt(lines.size());
    return switch (random.nextInt(9)) {
      case 0 -> text.substring(0, at);
      case 1 -> text.substring(0, at) + text.substring(at + 1);
      case 2 -> {
        String chars = "{}[]()%,=:\"/*\n<> x0-";
        yield text.substring(0, at)
            + chars.charAt(random.nextInt(chars.length()))
            + text.substring(at);
      }
      case 3 -> {
        lines.add(line, lines.get(line));
        yield String.join("\n", lines);
      }
      case 4 -> {
        int other = random.nextInt(lines.size());
        String a = lines.get(line);
        lines.set(line, lines.get(other));
        lines.set(other, a);
        yield String.join("\n", lines);
      }
      case 5 ->
          text.replaceFirst(
              "\\b(\\d+)\\b(?=[^\\n]{" + random.nextInt(40) + "})", "99999999999999999999");
      case 6 -> text.substring(0, at) + "(".repeat(5000) + text.substring(at);
      case 7 -> {
        // a number changed to another small one: ranks, sizes, indices, parameter numbers
        java.util.regex.Matcher m = Pattern.compile("\\d+").matcher(text);
        List<int[]> spans = new ArrayList<>();
        while (m.find()) {
          spans.add(new int[] {m.start(), m.end()});
        }
        int[] s = spans.get(random.nextInt(spans.size()));
        yield text.substring(0, s[0]) + random.nextInt(9) + text.substring(s[1]);
      }
      default -> {
        lines.remove(line);
        yield String.join("\n", lines);
      }
    };
  }

  private DistributedGraph importText(String name, String text) throws IOException {
    return HloImporter.importRanks(
        List.of(Files.writeString(dir.resolve(name + ".hlo"), text)), RANKS);
  }

  /** Each node's name, kind, target, arguments and types (source locations aside). */
  private static List<String> describe(Graph g) {
    List<String> out = new ArrayList<>();
    for (Node n : g.nodes()) {
      out.add(
          n.name()
              + " "
              + n.op()
              + " "
              + n.target()
              + " "
              + n.args()
              + " "
              + n.kwargs()
              + " "
              + n.meta().types());
    }
    return out;
  }
}
