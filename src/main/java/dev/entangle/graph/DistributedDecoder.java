package dev.entangle.graph;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a G_d file (docs/formats.md, Distributed graph files) into a {@link DistributedGraph}; a
 * plain graph file becomes a one-rank G_d.
 */
final class DistributedDecoder {
  private static final String RANKS_LIST =
      "\"ranks\" must be a non-empty list of graph objects, one per rank.";

  private DistributedDecoder() {}

  static DistributedGraph decode(JsonNode root, String file) {
    Where where = new Where(file);
    if (!root.isObject()) {
      throw where.error(
          "a G_d file is a JSON object with \"ranks\" (or a graph file with"
              + " \"nodes\"), not "
              + GraphDecoder.kind(root)
              + ".");
    }
    GraphDecoder.checkFormat(root, where, true);
    if (!root.has("ranks")) {
      if (!root.has("nodes")) {
        throw where.error(
            "missing \"ranks\": a G_d file lists one graph per rank in \"ranks\""
                + " (a plain graph file with \"nodes\" is also accepted as one rank).");
      }
      Graph only = GraphDecoder.decode(root, file, true);
      return new DistributedGraph(1, Map.of(), List.of(only), file);
    }
    JsonNode ranksJson = root.get("ranks");
    if (!ranksJson.isArray() || ranksJson.isEmpty()) {
      throw where.error(RANKS_LIST);
    }
    int worldSize = worldSize(root.get("world_size"), ranksJson.size(), where);
    Map<String, List<Integer>> groups = processGroups(root.get("process_groups"), worldSize, where);
    List<Graph> ranks = new ArrayList<>(worldSize);
    for (int k = 0; k < worldSize; k++) {
      ranks.add(GraphDecoder.decode(ranksJson.get(k), rankSource(file, k), false));
    }
    return new DistributedGraph(worldSize, groups, ranks, file);
  }

  /**
   * Decodes the G_d object whose {@code START_OBJECT} the parser has just read, one node at a time
   * ({@link GraphDecoder#decodeStreaming}); the first problem is an {@link
   * dev.entangle.util.InputException}, not necessarily the one {@link #decode} reports first.
   */
  static DistributedGraph decodeStreaming(JsonParser p, String file) throws IOException {
    Where where = new Where(file);
    Map<String, String> pool = new HashMap<>(); // names and stack traces the ranks repeat
    ObjectNode fields = JsonNodeFactory.instance.objectNode();
    List<Graph> ranks = null;
    List<Node> nodes = null;
    for (String key = p.nextFieldName(); key != null; key = p.nextFieldName()) {
      JsonToken t = p.nextToken();
      if (key.equals("ranks") && t == JsonToken.START_ARRAY) {
        ranks = new ArrayList<>();
        for (JsonToken r = p.nextToken(); r != JsonToken.END_ARRAY; r = p.nextToken()) {
          if (r != JsonToken.START_OBJECT) {
            throw where.error(RANKS_LIST);
          }
          ranks.add(GraphDecoder.decodeStreaming(p, rankSource(file, ranks.size()), false, pool));
        }
      } else if (key.equals("nodes") && t == JsonToken.START_ARRAY) {
        nodes = GraphDecoder.streamNodes(p, file, pool);
      } else {
        fields.set(key, JsonTree.value(p, t, pool));
      }
    }
    if (fields.has("ranks") || fields.has("nodes")) {
      throw where.error("\"ranks\" and \"nodes\" must be lists.");
    }
    if (ranks == null) {
      Graph only = GraphDecoder.assemble(fields, nodes, file, true);
      return new DistributedGraph(1, Map.of(), List.of(only), file);
    }
    GraphDecoder.checkFormat(fields, where, true);
    if (ranks.isEmpty()) {
      throw where.error(RANKS_LIST);
    }
    int worldSize = worldSize(fields.get("world_size"), ranks.size(), where);
    Map<String, List<Integer>> groups =
        processGroups(fields.get("process_groups"), worldSize, where);
    return new DistributedGraph(worldSize, groups, ranks, file);
  }

  /** How rank {@code k}'s graph is named in messages. */
  static String rankSource(String file, int k) {
    return file + " rank " + k;
  }

  private static int worldSize(JsonNode json, int ranks, Where where) {
    if (json == null || json.isNull()) {
      throw where.error(
          "missing \"world_size\"; give the number of ranks ("
              + ranks
              + " graphs"
              + " are listed in \"ranks\").");
    }
    if (!json.isIntegralNumber() || !json.canConvertToInt() || json.intValue() < 1) {
      throw where.error("\"world_size\" must be a positive integer, not " + json + ".");
    }
    if (json.intValue() != ranks) {
      throw where.error(
          "\"world_size\" is "
              + json.intValue()
              + " but \"ranks\" lists "
              + ranks
              + " graph"
              + (ranks == 1 ? "" : "s")
              + "; give one graph per rank.");
    }
    return json.intValue();
  }

  private static Map<String, List<Integer>> processGroups(
      JsonNode json, int worldSize, Where where) {
    if (json == null || json.isNull()) {
      return Map.of();
    }
    if (!json.isObject()) {
      throw where.error(
          "\"process_groups\" must be an object from group name to a list of"
              + " ranks, not "
              + GraphDecoder.kind(json)
              + ".");
    }
    Map<String, List<Integer>> groups = new LinkedHashMap<>();
    var fields = json.fields();
    while (fields.hasNext()) {
      var e = fields.next();
      Where at = where.in("process group \"" + e.getKey() + "\"");
      JsonNode members = e.getValue();
      if (!members.isArray() || members.isEmpty()) {
        throw at.error("a process group is a non-empty list of ranks, e.g. [0, 1].");
      }
      Set<Integer> seen = new LinkedHashSet<>();
      for (JsonNode m : members) {
        if (!m.isIntegralNumber() || !m.canConvertToInt()) {
          throw at.error("a member must be a rank number, not " + m + ".");
        }
        int r = m.intValue();
        if (r < 0 || r >= worldSize) {
          throw at.error(
              "rank "
                  + r
                  + " is out of range; the ranks are 0 to "
                  + (worldSize - 1)
                  + " (world_size "
                  + worldSize
                  + ").");
        }
        if (!seen.add(r)) {
          throw at.error("rank " + r + " is listed twice; list each member once.");
        }
      }
      groups.put(e.getKey(), List.copyOf(seen));
    }
    return groups;
  }
}
