package dev.entangle.relation;

import static dev.entangle.relation.ExprParserTest.gd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
  void malformedJson() throws IOException {
    assertContains(
        error("{\"format\": \"entangle-relation/1\",\n \"relations\": [}"),
        "line 2, column",
        "malformed JSON");
  }

  @Test
  void wrongOrMissingFormat() throws IOException {
    assertContains(
        error(json("{'format': 'entangle-fx/1', 'relations': []}")),
        "unknown format \"entangle-fx/1\"",
        "entangle-relation/1");
    assertContains(error(json("{'relations': []}")), "missing \"format\"");
    assertContains(error("[]"), "a relation file is a JSON object");
  }

  @Test
  void entryWithNeitherGdNorShardNorReplicate() throws IOException {
    assertContains(
        error(relations("{'gs': 'x', 'gd': 'r0.x'}, {'gs': 'w'}")),
        "relations[1] (gs \"w\"): the entry has neither \"gd\", \"shard\" and \"replicate\"",
        "give exactly one");
    assertContains(
        error(relations("{'gs': 'w', 'gd': 'r0.w', 'shard': 0}")),
        "relations[0] (gs \"w\"): the entry has more than one of");
  }

  @Test
  void expressionThatDoesNotParse() throws IOException {
    String m =
        error(
            relations(
                "{'gs': 'x', 'gd': 'r0.x'},"
                    + "{'gs': 'w_out', 'gd': 'concat(r0.w_out r1.w_out, dim=1)'}"));
    assertContains(
        m,
        "relations[1] (gs \"w_out\"): cannot parse the gd expression at column 17:",
        "expected ',' or ')' after an argument of concat, found 'r'",
        "the syntax is in the README");
    String[] lines = m.split("\n");
    assertEquals(3, lines.length, m);
    assertEquals("    concat(r0.w_out r1.w_out, dim=1)", lines[1]);
    assertEquals("    " + " ".repeat(16) + "^", lines[2]);
  }

  @Test
  void unknownFunctionInAnEquality() throws IOException {
    String m =
        error(
            json(
                "{'format': 'entangle-relation/1',"
                    + " 'equalities': [['r0.kv', 'gather(r1.kv)']]}"));
    assertContains(
        m,
        "equalities[0][1]: cannot parse the expression at column 1:",
        "unknown function 'gather'",
        "\n    gather(r1.kv)\n    ^");
  }

  @Test
  void badEntries() throws IOException {
    assertContains(error(relations("{'gd': 'r0.x'}")), "relations[0]", "has no \"gs\"");
    assertContains(error(relations("'x'")), "relations[0]", "an entry is an object");
    assertContains(error(relations("{'gs': 'x', 'gd': 3}")), "\"gd\" must be an expression");
    assertContains(
        error(relations("{'gs': 'x', 'shard': 'rows'}")),
        "relations[0] (gs \"x\")",
        "\"shard\" must be the integer dim");
    assertContains(
        error(relations("{'gs': 'x', 'replicate': false}")), "\"replicate\" must be true");
    assertContains(
        error(relations("{'gs': 'x', 'gd': 'r0.y', 'as': 'y'}")),
        "\"as\" applies to \"shard\" and \"replicate\" only");
    assertContains(
        error(relations("{'gs': 'x', 'shard': 0, 'as': ''}")),
        "\"as\" must be the G_d tensors' name");
    assertContains(
        error(relations("{'gs': 'x', 'gd': 'r0.x', 'dim': 0}")),
        "relations[0]: unknown key \"dim\"",
        "as, gd, gs, replicate, shard");
  }

  @Test
  void badTopLevelParts() throws IOException {
    assertContains(
        error(json("{'format': 'entangle-relation/1', 'relation': []}")),
        "unknown key \"relation\"");
    assertContains(
        error(json("{'format': 'entangle-relation/1', 'relations': {}}")),
        "\"relations\" must be a list");
    assertContains(
        error(json("{'format': 'entangle-relation/1', 'equalities': [['r0.x']]}")),
        "equalities[0]: an equality is a list of at least two");
    assertContains(
        error(json("{'format': 'entangle-relation/1', 'equalities': [['r0.x', 1]]}")),
        "equalities[0][1]: an equality member is an expression string");
    assertContains(
        error(json("{'format': 'entangle-relation/1', 'outputs': ['y', 3]}")),
        "outputs[1]: an output is the name of a G_s tensor");
    assertContains(
        error(json("{'format': 'entangle-relation/1', 'expect': [{'gs': 'y'}]}")),
        "expect[0] (gs \"y\"): the entry has neither");
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
