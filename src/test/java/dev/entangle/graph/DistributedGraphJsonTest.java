package dev.entangle.graph;

import static dev.entangle.graph.GraphFiles.OUT_X;
import static dev.entangle.graph.GraphFiles.X;
import static dev.entangle.graph.GraphFiles.assertContains;
import static dev.entangle.graph.GraphFiles.json;
import static dev.entangle.graph.GraphFiles.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DistributedGraphJsonTest {
  @TempDir Path dir;

  private static final String RANK = "{'nodes': [" + X + "," + OUT_X + "]}";

  private static String gd(String head, String... ranks) {
    return json(
        "{'format': 'entangle-fx/1', " + head + " 'ranks': [" + String.join(",", ranks) + "]}");
  }

  private String error(String text) {
    return GraphFiles.errorOf(dir, text, GraphJson::readDistributed);
  }

  @Test
  void readsRanksAndProcessGroups() {
    Path file =
        write(
            dir,
            "gd.json",
            gd(
                "'world_size': 3, 'process_groups': {'tp': [0, 1], 'pp': [2]},",
                RANK,
                "{'format': 'entangle-fx/1', 'name': 'rank1', 'nodes': [" + X + "," + OUT_X + "]}",
                RANK));
    DistributedGraph d = GraphJson.readDistributed(file);
    assertEquals(3, d.worldSize());
    assertEquals(Map.of("tp", List.of(0, 1), "pp", List.of(2)), d.processGroups());
    assertEquals(List.of(0, 1), d.members("tp"));
    assertEquals(List.of(0, 1, 2), d.members("dp"));
    assertEquals(file.toString(), d.source());
    assertEquals(file + " rank 1", d.rank(1).source());
    assertEquals("rank1", d.rank(1).name());
    assertNull(d.rank(0).name());
    assertEquals(TensorType.of("float32", 8, 16), d.rank(2).node("x").type());
  }

  @Test
  void anErrorInARankNamesTheRank() {
    String m =
        error(
            gd(
                "'world_size': 2,",
                RANK,
                "{'nodes': ["
                    + X
                    + ", {'name': 'output', 'op': 'output', 'target': 'output',"
                    + " 'args': [[{'node': 'y'}]]}]}"));
    assertContains(m, "bad.json rank 1: node \"output\" (nodes[1])", "\"y\"", "does not exist");
  }

  @Test
  void rankWithAWrongFormat() {
    assertContains(
        error(gd("'world_size': 1,", "{'format': 'fx', 'nodes': []}")),
        "bad.json rank 0",
        "unknown format \"fx\"");
  }

  @Test
  void missingFormat() {
    assertContains(error(json("{'world_size': 1, 'ranks': [" + RANK + "]}")), "missing \"format\"");
  }

  @Test
  void worldSizeMissing() {
    assertContains(error(gd("", RANK, RANK)), "missing \"world_size\"", "2 graphs");
  }

  @Test
  void worldSizeNotMatchingTheRanks() {
    assertContains(
        error(gd("'world_size': 4,", RANK, RANK)),
        "\"world_size\" is 4 but \"ranks\" lists 2 graphs");
    assertContains(error(gd("'world_size': 0,", RANK)), "must be a positive integer");
    assertContains(error(gd("'world_size': '2',", RANK, RANK)), "must be a positive integer");
  }

  @Test
  void ranksNotAList() {
    assertContains(
        error(json("{'format': 'entangle-fx/1', 'world_size': 1, 'ranks': {}}")),
        "\"ranks\" must be a non-empty list");
    assertContains(
        error(json("{'format': 'entangle-fx/1', 'world_size': 0, 'ranks': []}")),
        "\"ranks\" must be a non-empty list");
  }

  @Test
  void neitherRanksNorNodes() {
    assertContains(
        error(json("{'format': 'entangle-fx/1', 'world_size': 2}")), "missing \"ranks\"");
  }

  @Test
  void processGroupWithARankOutOfRange() {
    assertContains(
        error(gd("'world_size': 2, 'process_groups': {'tp': [0, 2]},", RANK, RANK)),
        "process group \"tp\"",
        "rank 2 is out of range",
        "0 to 1");
    assertContains(
        error(gd("'world_size': 2, 'process_groups': {'tp': [-1]},", RANK, RANK)),
        "rank -1 is out of range");
  }

  @Test
  void processGroupWithADuplicate() {
    assertContains(
        error(gd("'world_size': 2, 'process_groups': {'tp': [1, 1]},", RANK, RANK)),
        "process group \"tp\"",
        "rank 1 is listed twice");
  }

  @Test
  void malformedProcessGroups() {
    assertContains(
        error(gd("'world_size': 2, 'process_groups': [0, 1],", RANK, RANK)),
        "\"process_groups\" must be an object");
    assertContains(
        error(gd("'world_size': 2, 'process_groups': {'tp': []},", RANK, RANK)),
        "process group \"tp\"",
        "non-empty list");
    assertContains(
        error(gd("'world_size': 2, 'process_groups': {'tp': ['a']},", RANK, RANK)),
        "a member must be a rank number");
  }

  @Test
  void aPlainGraphFileStillNeedsItsFormat() {
    assertContains(error(json("{'nodes': [" + X + "," + OUT_X + "]}")), "missing \"format\"");
  }
}
