package dev.entangle.graph;

import static dev.entangle.graph.GraphFiles.OUT_X;
import static dev.entangle.graph.GraphFiles.X;
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
    String m = GraphFiles.errorOf(dir, text, GraphJson::readDistributed);
    return m;
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
}
