package dev.entangle.draft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import dev.entangle.relation.RelationFile;
import dev.entangle.relation.RelationReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The drafter's decisions on small graphs written by hand, the undecided ones included. */
class DrafterTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  /** x[2, 4] @ w^T, the product sliced along its columns at the given bounds. */
  private static List<String> fused(long rows, long... bounds) {
    List<String> nodes = new ArrayList<>();
    nodes.add(input("x", "[2, 4]"));
    nodes.add(input("w", "[" + rows + ", 4]"));
    nodes.add(call("t", "aten.t.default", "[" + ref("w") + "]", "[4, " + rows + "]"));
    nodes.add(
        call("mm", "aten.mm.default", "[" + ref("x") + ", " + ref("t") + "]", "[2, " + rows + "]"));
    for (int i = 0; i + 1 < bounds.length; i++) {
      nodes.add(
          call(
              "s" + i,
              "aten.slice.Tensor",
              "[" + ref("mm") + ", 1, " + bounds[i] + ", " + bounds[i + 1] + "]",
              "[2, " + (bounds[i + 1] - bounds[i]) + "]"));
    }
    return nodes;
  }

  private Draft draft(List<String> gs, List<List<String>> ranks) throws IOException {
    Path g = tmp.resolve("gs.json");
    Files.writeString(g, graph(gs));
    List<String> rs = new ArrayList<>();
    for (List<String> r : ranks) {
      rs.add(graph(r));
    }
    Path d = tmp.resolve("gd.json");
    Files.writeString(
        d,
        "{\"format\": \"entangle-fx/1\", \"world_size\": "
            + ranks.size()
            + ", \"ranks\": ["
            + String.join(", ", rs)
            + "]}");
    Graph gsGraph = GraphJson.readGraph(g);
    DistributedGraph gdGraph = GraphJson.readDistributed(d);
    return Drafter.draft(gsGraph, gdGraph);
  }

  private static Proposal proposal(Draft d, String gs) {
    return d.proposals().stream()
        .filter(p -> p.gs().equals(gs))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no proposal for " + gs + ": " + d));
  }

  private static Undecided undecided(Draft d, String gs) {
    return d.undecided().stream()
        .filter(u -> u.gs().equals(gs))
        .findFirst()
        .orElseThrow(() -> new AssertionError(gs + " is not undecided: " + d));
  }

  @Test
  void aFusedProjectionWhoseBlocksAreShardedIsDrawnAsBlocks() throws IOException {
    Draft d = draft(fused(12, 0, 8, 10, 12), List.of(fused(6, 0, 4, 5, 6), fused(6, 0, 4, 5, 6)));
    assertEquals(new Layout.Replicate("x"), proposal(d, "x").layout());
    Proposal w = proposal(d, "w");
    assertEquals(Confidence.HIGH, w.confidence());
    assertEquals(
        "concat(concat(slice(r0.w, dim=0, start=0, end=4), slice(r1.w, dim=0, start=0, end=4),"
            + " dim=0), concat(slice(r0.w, dim=0, start=4, end=5), slice(r1.w, dim=0, start=4,"
            + " end=5), dim=0), concat(slice(r0.w, dim=0, start=5, end=6), slice(r1.w, dim=0,"
            + " start=5, end=6), dim=0), dim=0)",
        ((Layout.Blocks) w.layout()).expression());
    assertTrue(d.undecided().isEmpty());
  }

  @Test
  void aProjectionNobodySlicesIsAPlainShard() throws IOException {
    Draft d = draft(fused(12), List.of(fused(6), fused(6)));
    assertEquals(new Layout.Shard("w", 0), proposal(d, "w").layout());
  }

  @Test
  void blocksTheRanksDoNotSliceAlikeAreLeftToTheUser() throws IOException {
    Draft d = draft(fused(12, 0, 8, 10, 12), List.of(fused(6, 0, 3, 6), fused(6, 0, 3, 6)));
    Undecided u = undecided(d, "w");
    assertTrue(u.why().contains("a plain shard, or each block sharded?"), u.why());
    assertEquals(2, u.candidates().size());
    assertEquals("{\"gs\": \"w\", \"shard\": 0}", u.candidates().get(0));
  }

  @Test
  void shapesThatDoNotAddUpAreLeftToTheUser() throws IOException {
    List<String> gs = List.of(input("y", "[5, 3]"));
    List<String> rank = List.of(input("y", "[2, 3]"));
    Undecided u = undecided(draft(gs, List.of(rank, rank)), "y");
    assertTrue(u.why().contains("neither every rank's"), u.why());
  }

  @Test
  void anInputOnSomeRanksOnlyIsLeftToTheUser() throws IOException {
    List<String> gs = List.of(input("y", "[4]"));
    Undecided u =
        undecided(draft(gs, List.of(List.of(input("y", "[4]")), List.of(input("z", "[4]")))), "y");
    assertEquals("G_d has an input of its name on rank(s) [0] only.", u.why());
    assertEquals(List.of("r0.y float32[4]", "r1.z float32[4]"), u.candidates());
  }

  @Test
  void generatedNamesMatchWithMediumConfidence() throws IOException {
    List<String> gs = List.of(input("primals_1", "[4]"));
    Draft d =
        draft(gs, List.of(List.of(input("primals_1", "[2]")), List.of(input("primals_1", "[2]"))));
    Proposal p = proposal(d, "primals_1");
    assertEquals(new Layout.Shard("primals_1", 0), p.layout());
    assertEquals(Confidence.MEDIUM, p.confidence());
  }

  @Test
  void theDraftFileIsARelationFileWithItsNotes() throws IOException {
    Draft d = draft(fused(12, 0, 8, 10, 12), List.of(fused(6, 0, 3, 6), fused(6, 0, 3, 6)));
    ObjectNode json = DraftWriter.toJson(d, "gs.json", "gd.json");
    Path f = tmp.resolve("ri.json");
    JSON.writeValue(f.toFile(), json);
    RelationFile rel = RelationReader.read(f, 2);
    assertEquals(2, rel.relations().size(), "x replicated on two ranks; w undecided");
    assertEquals("w", json.at("/_undecided/0/gs").asText());
    assertEquals("high", json.at("/relations/0/_confidence").asText());
  }

  private static String input(String name, String shape) {
    return "{\"name\": \""
        + name
        + "\", \"op\": \"placeholder\", \"target\": \""
        + name
        + "\", \"meta\": {\"shape\": "
        + shape
        + ", \"dtype\": \"float32\"}}";
  }

  private static String call(String name, String target, String args, String shape) {
    return "{\"name\": \""
        + name
        + "\", \"op\": \"call_function\", \"target\": \""
        + target
        + "\", \"args\": "
        + args
        + ", \"meta\": {\"shape\": "
        + shape
        + ", \"dtype\": \"float32\"}}";
  }

  private static String ref(String name) {
    return "{\"node\": \"" + name + "\"}";
  }

  /** A graph returning its last node. */
  private static String graph(List<String> nodes) {
    String last = nodes.get(nodes.size() - 1).replaceFirst("^\\{\"name\": \"([^\"]+)\".*$", "$1");
    return "{\"format\": \"entangle-fx/1\", \"nodes\": ["
        + String.join(", ", nodes)
        + ", {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [["
        + ref(last)
        + "]]}]}";
  }
}
