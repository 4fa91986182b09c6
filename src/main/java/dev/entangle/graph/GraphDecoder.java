package dev.entangle.graph;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.util.Interruption;
import dev.entangle.util.WrongSlot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns the JSON object of one graph (docs/formats.md, Graph files) into a {@link Graph}, checking
 * every rule of the format: known ops, unique names, references to earlier nodes only, result types
 * present, well-formed {@code getitem} and {@code output} nodes.
 */
final class GraphDecoder {
  static final String FORMAT = "entangle-fx/1";
  private static final String GETITEM = "getitem";
  private static final String NO_NODES =
      "missing \"nodes\"; a graph lists its nodes in \"nodes\": [...].";

  private final Where graphWhere;
  private final String source;

  private GraphDecoder(String source) {
    this.source = source;
    this.graphWhere = new Where(source);
  }

  /**
   * Decodes a graph.
   *
   * @param source the graph's description for messages: the file, plus the rank for a G_d rank
   * @param formatRequired whether the object must carry {@code "format"} (a rank object need not)
   */
  static Graph decode(JsonNode root, String source, boolean formatRequired) {
    return new GraphDecoder(source).graph(root, formatRequired);
  }

  /** Checks the {@code format} field of a top-level object. */
  static void checkFormat(JsonNode root, Where where, boolean required) {
    JsonNode format = root.get("format");
    if (format == null) {
      if (required) {
        throw where.error(
            "missing \"format\"; a graph file starts with \"format\": \"" + FORMAT + "\".");
      }
      return;
    }
    if (format.isTextual() && format.textValue().startsWith("entangle-relation/")) {
      throw where.error(WrongSlot.RELATION_AS_GRAPH);
    }
    if (!format.isTextual() || !format.textValue().equals(FORMAT)) {
      throw where.error(
          "unknown format " + format + "; this version reads \"" + FORMAT + "\" only.");
    }
  }

  private Graph graph(JsonNode root, boolean formatRequired) {
    if (!root.isObject()) {
      throw graphWhere.error("a graph is a JSON object with \"nodes\", not " + kind(root) + ".");
    }
    String name = header(root, formatRequired);
    JsonNode nodesJson = root.get("nodes");
    if (nodesJson == null || nodesJson.isNull()) {
      if (root.has("ranks")) {
        throw graphWhere.error(
            "missing \"nodes\": this is a G_d file (it has \"ranks\"), but a"
                + " single graph is expected here; give the sequential model's graph file.");
      }
      throw graphWhere.error(NO_NODES);
    }
    if (!nodesJson.isArray()) {
      throw graphWhere.error(
          "\"nodes\" must be a list of node objects, not " + kind(nodesJson) + ".");
    }
    Map<String, Integer> indexByName = indexNames(nodesJson);
    List<Node> nodes = new ArrayList<>(nodesJson.size());
    for (int i = 0; i < nodesJson.size(); i++) {
      Interruption.check();
      nodes.add(node(nodesJson.get(i), i, indexByName, nodes));
    }
    checkOutput(nodes);
    return new Graph(name, source, nodes);
  }

  /** Checks a graph object's {@code format} and {@code name}; the name, or null. */
  private String header(JsonNode root, boolean formatRequired) {
    checkFormat(root, graphWhere, formatRequired);
    JsonNode nameJson = root.get("name");
    if (nameJson != null && !nameJson.isNull() && !nameJson.isTextual()) {
      throw graphWhere.error("\"name\" must be a string, not " + nameJson + ".");
    }
    return nameJson == null || nameJson.isNull() ? null : nameJson.textValue();
  }

  /**
   * Decodes the graph object whose {@code START_OBJECT} the parser has just read, one node at a
   * time: only one node's tree is held at once. Fields other than {@code nodes} are read as trees.
   * The first problem is an {@link InputException}, though not necessarily the one {@link #decode}
   * reports first (a reference to a later node reads here as one to no node): callers read the file
   * whole again for the message.
   */
  static Graph decodeStreaming(JsonParser p, String source, boolean formatRequired)
      throws IOException {
    return decodeStreaming(p, source, formatRequired, new HashMap<>());
  }

  /** {@link #decodeStreaming}, its strings kept once in {@code pool} (see {@link JsonTree}). */
  static Graph decodeStreaming(
      JsonParser p, String source, boolean formatRequired, Map<String, String> pool)
      throws IOException {
    ObjectNode fields = JsonNodeFactory.instance.objectNode();
    List<Node> nodes = null;
    for (String key = p.nextFieldName(); key != null; key = p.nextFieldName()) {
      JsonToken t = p.nextToken();
      if (key.equals("nodes") && t == JsonToken.START_ARRAY) {
        nodes = streamNodes(p, source, pool);
      } else {
        fields.set(key, JsonTree.value(p, t, pool));
      }
    }
    return assemble(fields, nodes, source, formatRequired);
  }

  /**
   * The nodes of a {@code "nodes"} list whose {@code START_ARRAY} the parser has just read, decoded
   * one at a time (see {@link #decodeStreaming}), their strings kept once in {@code pool}.
   */
  static List<Node> streamNodes(JsonParser p, String source, Map<String, String> pool)
      throws IOException {
    GraphDecoder d = new GraphDecoder(source);
    Map<String, Integer> indexByName = new HashMap<>();
    List<Node> nodes = new ArrayList<>();
    for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
      Interruption.check();
      if (t == null) {
        throw d.graphWhere.error("the file ends inside \"nodes\".");
      }
      JsonNode n = JsonTree.value(p, t, pool);
      int i = nodes.size();
      d.indexName(n, i, indexByName);
      nodes.add(d.node(n, i, indexByName, nodes));
    }
    return nodes;
  }

  /**
   * A graph from its streamed nodes (null when it had no {@code "nodes"} list) and its other
   * fields, checked as {@link #decode} checks them.
   */
  static Graph assemble(
      ObjectNode fields, List<Node> nodes, String source, boolean formatRequired) {
    GraphDecoder d = new GraphDecoder(source);
    String name = d.header(fields, formatRequired);
    if (nodes == null) {
      throw d.graphWhere.error(NO_NODES);
    }
    d.checkOutput(nodes);
    return new Graph(name, source, nodes);
  }

  /** First pass: every node has a unique name; maps names to positions. */
  private Map<String, Integer> indexNames(JsonNode nodesJson) {
    Map<String, Integer> index = new HashMap<>(nodesJson.size() * 2);
    for (int i = 0; i < nodesJson.size(); i++) {
      indexName(nodesJson.get(i), i, index);
    }
    return index;
  }

  /** Node {@code i} is an object with a name no earlier node has; adds the name to the index. */
  private void indexName(JsonNode n, int i, Map<String, Integer> index) {
    Where at = graphWhere.in("nodes[" + i + "]");
    if (!n.isObject()) {
      throw at.error("a node must be a JSON object, not " + kind(n) + ".");
    }
    JsonNode name = n.get("name");
    if (name == null || !name.isTextual() || name.textValue().isEmpty()) {
      throw at.error("the node has no name; every node needs a non-empty string \"name\".");
    }
    Integer earlier = index.putIfAbsent(name.textValue(), i);
    if (earlier != null) {
      throw nodeWhere(name.textValue(), i)
          .error(
              "duplicate name: nodes["
                  + earlier
                  + "] has the same name; node names must be unique"
                  + " in a graph.");
    }
  }

  private Node node(JsonNode n, int index, Map<String, Integer> indexByName, List<Node> earlier) {
    String name = n.get("name").textValue();
    Where at = nodeWhere(name, index);
    NodeOp op = op(n.get("op"), at);
    JsonNode targetJson = n.get("target");
    if (targetJson == null || !targetJson.isTextual() || targetJson.textValue().isEmpty()) {
      throw at.error(
          "the node has no \"target\"; give the operator (e.g. \"aten.mm.default\")"
              + " or, for placeholder/get_attr, the attribute name.");
    }
    String target = targetJson.textValue();
    List<Arg> args = args(n.get("args"), at, op);
    Map<String, Arg> kwargs = kwargs(n.get("kwargs"), at);
    for (int i = 0; i < args.size(); i++) {
      checkRefs(args.get(i), "args[" + i + "]", name, index, at, indexByName);
    }
    for (Map.Entry<String, Arg> e : kwargs.entrySet()) {
      checkRefs(e.getValue(), "kwargs." + e.getKey(), name, index, at, indexByName);
    }
    Meta meta = MetaCodec.decode(n.get("meta"), at);
    if (op != NodeOp.OUTPUT && !meta.tuple() && meta.types().isEmpty()) {
      throw at.error(
          "missing shape: the node's meta has neither \"shape\" and \"dtype\" nor"
              + " \"tuple\"; give the result's meta.shape and meta.dtype (or meta.tuple for a node"
              + " that returns several values).");
    }
    if (op == NodeOp.CALL_FUNCTION && target.equals(GETITEM)) {
      checkGetitem(args, at, earlier, indexByName);
    }
    return new Node(name, op, target, args, kwargs, meta, index);
  }

  private static NodeOp op(JsonNode opJson, Where at) {
    if (opJson == null || !opJson.isTextual()) {
      throw at.error(
          "the node has no \"op\"; give one of placeholder, get_attr, call_function,"
              + " call_method, call_module, output.");
    }
    NodeOp op = NodeOp.fromJson(opJson.textValue());
    if (op == null) {
      throw at.error(
          "unknown op \""
              + opJson.textValue()
              + "\"; op is one of placeholder,"
              + " get_attr, call_function, call_method, call_module, output.");
    }
    return op;
  }

  private static List<Arg> args(JsonNode json, Where at, NodeOp op) {
    if (json == null || json.isNull()) {
      if (op == NodeOp.OUTPUT) {
        throw at.error(
            "the output node has no \"args\"; write \"args\": [[...]] with the graph's"
                + " outputs in the inner list.");
      }
      return List.of();
    }
    if (!json.isArray()) {
      throw at.error("\"args\" must be a list of arguments, not " + kind(json) + ".");
    }
    List<Arg> args = new ArrayList<>(json.size());
    for (int i = 0; i < json.size(); i++) {
      args.add(ArgCodec.decode(json.get(i), at, "args[" + i + "]"));
    }
    return args;
  }

  private static Map<String, Arg> kwargs(JsonNode json, Where at) {
    if (json == null || json.isNull()) {
      return Map.of();
    }
    if (!json.isObject()) {
      throw at.error(
          "\"kwargs\" must be an object from argument name to argument, not " + kind(json) + ".");
    }
    Map<String, Arg> kwargs = new LinkedHashMap<>();
    var fields = json.fields();
    while (fields.hasNext()) {
      var e = fields.next();
      kwargs.put(e.getKey(), ArgCodec.decode(e.getValue(), at, "kwargs." + e.getKey()));
    }
    return kwargs;
  }

  /** Every node reference names a node defined before {@code index}. */
  private static void checkRefs(
      Arg arg, String path, String name, int index, Where at, Map<String, Integer> indexByName) {
    if (arg instanceof Arg.NodeRef ref) {
      Integer target = indexByName.get(ref.name());
      if (target == null) {
        throw at.error(
            "argument "
                + path
                + " refers to node \""
                + ref.name()
                + "\", which does"
                + " not exist in this graph; check the name.");
      }
      if (target >= index) {
        throw at.error(
            "nodes must be in topological order; node \""
                + name
                + "\" uses \""
                + ref.name()
                + "\" (argument "
                + path
                + ") which is defined later or forms a cycle; list every node"
                + " after the nodes it uses.");
      }
    } else if (arg instanceof Arg.ListArg list) {
      for (int i = 0; i < list.items().size(); i++) {
        checkRefs(list.items().get(i), path + "[" + i + "]", name, index, at, indexByName);
      }
    }
  }

  private static void checkGetitem(
      List<Arg> args, Where at, List<Node> earlier, Map<String, Integer> indexByName) {
    if (args.size() != 2
        || !(args.get(0) instanceof Arg.NodeRef ref)
        || !(args.get(1) instanceof Arg.IntArg index)) {
      throw at.error(
          "getitem takes two arguments, a node reference and an integer index, as in"
              + " \"args\": [{\"node\": \"split\"}, 0].");
    }
    Node tuple = earlier.get(indexByName.get(ref.name()));
    if (!tuple.meta().tuple()) {
      throw at.error(
          "getitem on node \""
              + ref.name()
              + "\", which does not return a tuple (its"
              + " meta has no \"tuple\"); give that node meta.tuple, or use its value directly.");
    }
    int size = tuple.meta().types().size();
    if (index.value() < -size || index.value() >= size) {
      throw at.error(
          "getitem index "
              + index.value()
              + " is out of range for node \""
              + ref.name()
              + "\", which returns a tuple of "
              + size
              + " item"
              + (size == 1 ? "" : "s")
              + ".");
    }
  }

  private void checkOutput(List<Node> nodes) {
    Node output = null;
    for (Node n : nodes) {
      if (n.op() == NodeOp.OUTPUT) {
        if (output != null) {
          throw nodeWhere(n.name(), n.index())
              .error(
                  "a second output node (the first is \""
                      + output.name()
                      + "\"); a graph has exactly one output node.");
        }
        output = n;
      }
    }
    if (output == null) {
      throw graphWhere.error(
          "the graph has no output node; add {\"name\": \"output\", \"op\":"
              + " \"output\", \"target\": \"output\", \"args\": [[...]]} as its last node.");
    }
    Where at = nodeWhere(output.name(), output.index());
    if (output.index() != nodes.size() - 1) {
      throw at.error("the output node must be the last node of the graph.");
    }
    if (output.args().size() != 1 || !(output.args().get(0) instanceof Arg.ListArg)) {
      throw at.error(
          "the output node's args must be a list holding one list, the graph's"
              + " outputs: \"args\": [[{\"node\": \"y\"}, ...]].");
    }
  }

  private Where nodeWhere(String name, int index) {
    return graphWhere.in("node \"" + name + "\" (nodes[" + index + "])");
  }

  /** A short description of a JSON value's kind, for messages. */
  static String kind(JsonNode n) {
    return switch (n.getNodeType()) {
      case ARRAY -> "a list";
      case OBJECT -> "an object";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      default -> n.toString();
    };
  }
}
