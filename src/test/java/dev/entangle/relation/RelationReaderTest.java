package dev.entangle.relation;

import static dev.entangle.relation.ExprParserTest.gd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.IdRange;
import dev.entangle.util.InputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RelationReaderTest {
  @TempDir Path dir;

  static String json(String singleQuoted) {
    return singleQuoted.replace('\'', '"');
  }

  private Path write(String text) throws IOException {
    Path file = dir.resolve("ri.json");
    Files.writeString(file, text);
    return file;
  }

  private static String relations(String entries) {
    return json("{'format': 'entangle-relation/1', 'relations': [" + entries + "]}");
  }

  private String error(String text, int worldSize) throws IOException {
    Path file = write(text);
    InputException e =
        assertThrows(InputException.class, () -> RelationReader.read(file, worldSize));
    assertTrue(e.getMessage().startsWith(file + ": "), e.getMessage());
    assertFalse(e.getMessage().contains("\n\n"), e.getMessage());
    assertFalse(e.getMessage().contains("Exception"), e.getMessage());
    return e.getMessage();
  }

  private String error(String text) throws IOException {
    return error(text, 2);
  }

  private static void assertContains(String message, String... parts) {
    for (String p : parts) {
      assertTrue(message.contains(p), () -> "expected <" + p + "> in: " + message);
    }
  }

  @Test
  void readsTheContractExample() throws IOException {
    Path file =
        write(
            json(
                """
        {
          'format': 'entangle-relation/1',
          'relations': [
            {'gs': 'w_qkv', 'gd': 'concat(r0.w_qkv, r1.w_qkv, dim=0)'},
            {'gs': 'x', 'gd': 'r0.x'},
            {'gs': 'x', 'gd': 'r1.x'},
            {'gs': 'w_out', 'shard': 1},
            {'gs': 'ln_weight', 'replicate': true}
          ],
          'equalities': [['slice(r0.kv, dim=0, start=0, end=128)',
                          'slice(r1.kv, dim=0, start=0, end=128)']],
          'outputs': ['loss'],
          'expect': [{'gs': 'loss', 'gd': 'r0.loss'}]
        }
        """));
    RelationFile rel = RelationReader.read(file, 2);
    assertEquals(file.toString(), rel.source());
    assertEquals(
        List.of(
            new RelationEntry(
                "w_qkv",
                new Expr.Concat(List.of(gd(0, "w_qkv"), gd(1, "w_qkv")), 0),
                "relations[0]"),
            new RelationEntry("x", gd(0, "x"), "relations[1]"),
            new RelationEntry("x", gd(1, "x"), "relations[2]"),
            new RelationEntry(
                "w_out",
                new Expr.Concat(List.of(gd(0, "w_out"), gd(1, "w_out")), 1),
                "relations[3]"),
            new RelationEntry("ln_weight", gd(0, "ln_weight"), "relations[4]"),
            new RelationEntry("ln_weight", gd(1, "ln_weight"), "relations[4]")),
        rel.relations());
    assertEquals(
        List.of(
            List.of(
                new Expr.Slice(gd(0, "kv"), 0, 0, 128, 1),
                new Expr.Slice(gd(1, "kv"), 0, 0, 128, 1))),
        rel.equalities());
    assertEquals(List.of("loss"), rel.outputs());
    assertEquals(List.of(new RelationEntry("loss", gd(0, "loss"), "expect[0]")), rel.expect());
  }

  @Test
  void sugarUsesTheWorldSizeAndAs() throws IOException {
    Path file =
        write(
            relations(
                "{'gs': 'w', 'shard': -1, 'as': 'w_local'},"
                    + "{'gs': 'b', 'replicate': true, 'as': 'bias'}"));
    RelationFile rel = RelationReader.read(file, 4);
    assertEquals(
        new Expr.Concat(
            List.of(gd(0, "w_local"), gd(1, "w_local"), gd(2, "w_local"), gd(3, "w_local")), -1),
        rel.relations().get(0).gd());
    assertEquals("w", rel.relations().get(0).gs());
    assertEquals(
        List.of(gd(0, "bias"), gd(1, "bias"), gd(2, "bias"), gd(3, "bias")),
        rel.relations().subList(1, 5).stream().map(RelationEntry::gd).toList());
    RelationFile one = RelationReader.read(file, 1);
    assertEquals(new Expr.Concat(List.of(gd(0, "w_local")), -1), one.relations().get(0).gd());
    assertEquals(2, one.relations().size());
  }

  @Test
  void optionalPartsDefault() throws IOException {
    RelationFile rel =
        RelationReader.read(
            write(json("{'format': 'entangle-relation/1', 'comment': 'for people', '_x': 1}")), 2);
    assertTrue(rel.relations().isEmpty());
    assertTrue(rel.equalities().isEmpty());
    assertNull(rel.outputs());
    assertTrue(rel.expect().isEmpty());
  }

  @Test
  void aRangeGoesWithEveryEntryItsSugarMakes() throws IOException {
    RelationFile rel =
        RelationReader.read(
            write(
                relations(
                    "{'gs': 'ids', 'replicate': true, 'in_range': [0, 32000]},"
                        + " {'gs': 'pos', 'shard': 0, 'in_range': [-4, 4]},"
                        + " {'gs': 'x', 'gd': 'r0.x'}")),
            2);
    List<RelationEntry> e = rel.relations();
    assertEquals(4, e.size());
    assertEquals(new IdRange(0, 32000), e.get(0).range());
    assertEquals(new IdRange(0, 32000), e.get(1).range());
    assertEquals(new IdRange(-4, 4), e.get(2).range());
    assertNull(e.get(3).range());
  }

  @Test
  void aRangeIsTwoIntegersLoBelowHi() throws IOException {
    for (String bad : List.of("[4, 4]", "[0]", "[0.5, 2]", "'0..8'", "[8, 0]")) {
      assertContains(
          error(relations("{'gs': 'ids', 'replicate': true, 'in_range': " + bad + "}")),
          "relations[0] (gs \"ids\"): \"in_range\" must be two integers [lo, hi] with lo < hi");
    }
  }

  @Test
  void aRangeIsStatedInRelationsOnly() throws IOException {
    assertContains(
        error(
            json(
                "{'format': 'entangle-relation/1', 'expect': [{'gs': 'ids', 'gd': 'r0.ids',"
                    + " 'in_range': [0, 8]}]}")),
        "expect[0] (gs \"ids\"): \"in_range\" states a fact about an input and goes in"
            + " \"relations\" entries only");
  }

  @Test
  void readsEveryRealWorldRelationFile() throws IOException {
    Path realworld = Path.of("../shared/realworld");
    Assumptions.assumeTrue(
        Files.isDirectory(realworld),
        "../shared/realworld is absent; the real-world relation files are not checked");
    List<Path> cases;
    try (Stream<Path> dirs = Files.list(realworld)) {
      cases = dirs.filter(d -> Files.exists(d.resolve("ri.json"))).sorted().toList();
    }
    assertFalse(cases.isEmpty(), "no case folder with ri.json in " + realworld);
    for (Path c : cases) {
      int ranks;
      try (Stream<Path> files = Files.list(c)) {
        ranks =
            (int) files.filter(f -> f.getFileName().toString().matches("gd\\.r\\d+\\.py")).count();
      }
      RelationFile rel = RelationReader.read(c.resolve("ri.json"), Math.max(ranks, 1));
      assertFalse(rel.relations().isEmpty(), c.toString());
      for (RelationEntry e : rel.relations()) {
        assertEquals(e.gd(), ExprParser.parse(ExprPrinter.print(e.gd())), c + " " + e.where());
      }
    }
  }
}
