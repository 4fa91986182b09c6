package dev.entangle.graph;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Encodes graphs into the contract format and lays the JSON out with one node per line, so that
 * written files read well and diff well.
 */
final class GraphEncoder {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private GraphEncoder() {}

  static ObjectNode graph(Graph g, boolean withFormat) {
    ObjectNode out = JSON.objectNode();
    if (withFormat) {
      out.put("format", GraphDecoder.FORMAT);
    }
    if (g.name() != null) {
      out.put("name", g.name());
    }
    ArrayNode nodes = out.putArray("nodes");
    for (Node n : g.nodes()) {
      nodes.add(node(n));
    }
    return out;
  }

  static ObjectNode distributed(DistributedGraph d) {
    ObjectNode out = JSON.objectNode();
    out.put("format", GraphDecoder.FORMAT);
    out.put("world_size", d.worldSize());
    if (!d.processGroups().isEmpty()) {
      ObjectNode groups = out.putObject("process_groups");
      for (Map.Entry<String, List<Integer>> e : new TreeMap<>(d.processGroups()).entrySet()) {
        ArrayNode members = groups.putArray(e.getKey());
        e.getValue().forEach(members::add);
      }
    }
    ArrayNode ranks = out.putArray("ranks");
    for (Graph g : d.ranks()) {
      ranks.add(graph(g, false));
    }
    return out;
  }

  private static ObjectNode node(Node n) {
    ObjectNode out = JSON.objectNode();
    out.put("name", n.name());
    out.put("op", n.op().jsonName());
    out.put("target", n.target());
    boolean input = n.op() == NodeOp.PLACEHOLDER || n.op() == NodeOp.GET_ATTR;
    if (!input || !n.args().isEmpty() || !n.kwargs().isEmpty()) {
      ArrayNode args = out.putArray("args");
      n.args().forEach(a -> args.add(ArgCodec.encode(a)));
      if (n.op() != NodeOp.OUTPUT || !n.kwargs().isEmpty()) {
        ObjectNode kwargs = out.putObject("kwargs");
        n.kwargs().forEach((k, v) -> kwargs.set(k, ArgCodec.encode(v)));
      }
    }
    ObjectNode meta = MetaCodec.encode(n.meta());
    if (meta != null) {
      out.set("meta", meta);
    }
    return out;
  }

  /**
   * The text of a graph or G_d object: the top-level fields one per line, each node (and each
   * rank's opening) on its own line, everything else compact.
   */
  static String layout(ObjectNode root) {
    StringBuilder out = new StringBuilder();
    layoutObject(root, "", out);
    return out.append('\n').toString();
  }

  private static void layoutObject(ObjectNode obj, String indent, StringBuilder out) {
    out.append("{\n");
    String inner = indent + "  ";
    var fields = obj.fields();
    while (fields.hasNext()) {
      var e = fields.next();
      out.append(inner).append(compact(JSON.textNode(e.getKey()))).append(": ");
      JsonNode value = e.getValue();
      if (value.isArray() && (e.getKey().equals("nodes") || e.getKey().equals("ranks"))) {
        layoutList((ArrayNode) value, inner, out);
      } else {
        out.append(compact(value));
      }
      out.append(fields.hasNext() ? ",\n" : "\n");
    }
    out.append(indent).append('}');
  }

  private static void layoutList(ArrayNode list, String indent, StringBuilder out) {
    if (list.isEmpty()) {
      out.append("[]");
      return;
    }
    out.append("[\n");
    String inner = indent + "  ";
    for (int i = 0; i < list.size(); i++) {
      JsonNode item = list.get(i);
      out.append(inner);
      if (item.isObject() && item.has("nodes")) {
        layoutObject((ObjectNode) item, inner, out);
      } else {
        out.append(compact(item));
      }
      out.append(i + 1 < list.size() ? ",\n" : "\n");
    }
    out.append(indent).append(']');
  }

  private static String compact(JsonNode n) {
    return JsonTree.compact(n);
  }
}
