package dev.entangle.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Edited copies of graph and relation files, made on the JSON tree so any file can be damaged
 * alike.
 */
public final class JsonEdits {
  private JsonEdits() {}

  public static ObjectNode read(Path file) {
    try {
      return (ObjectNode) ExampleCase.JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Path write(JsonNode root, Path file) {
    try {
      ExampleCase.JSON.writeValue(file.toFile(), root);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes to {@code to} a copy of {@code from} changed by {@code edit}. */
  public static Path copy(Path from, Path to, Consumer<ObjectNode> edit) {
    ObjectNode root = read(from);
    edit.accept(root);
    return write(root, to);
  }

  /** The rank graphs of a G_d file (a plain graph file is one rank). */
  public static List<ObjectNode> ranks(JsonNode gd) {
    List<ObjectNode> out = new ArrayList<>();
    if (gd.has("ranks")) {
      gd.get("ranks").forEach(r -> out.add((ObjectNode) r));
    } else {
      out.add((ObjectNode) gd);
    }
    return out;
  }

  /** A graph's node list. */
  public static ArrayNode nodes(JsonNode graph) {
    return (ArrayNode) graph.get("nodes");
  }

  /** The node of a graph with this name. */
  public static ObjectNode node(JsonNode graph, String name) {
    for (JsonNode n : nodes(graph)) {
      if (n.path("name").asText().equals(name)) {
        return (ObjectNode) n;
      }
    }
    throw new AssertionError("no node " + name);
  }

  /** The first node of a graph whose target is one of {@code targets}. */
  public static ObjectNode firstCall(JsonNode graph, String... targets) {
    for (JsonNode n : nodes(graph)) {
      for (String t : targets) {
        if (n.path("op").asText().equals("call_function") && n.path("target").asText().equals(t)) {
          return (ObjectNode) n;
        }
      }
    }
    throw new AssertionError("no call of " + String.join(" or ", targets));
  }
}
