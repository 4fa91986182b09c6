package dev.entangle.importer.pt2;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.graph.Arg;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Meta;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The graph module of a serialized program ({@code graph_module.graph} and its {@code signature})
 * as a graph: one placeholder per input, named as the program names it and tagged with the
 * parameter's, buffer's or constant's qualified name; one node per operator call (a tuple node and
 * {@code getitem}s for an operator with several results); and the output node.
 */
final class Pt2GraphReader {
  private static final String OPS = "torch.ops.";

  private final Pt2Errors errors;
  private final JsonNode graph;
  private final JsonNode tensorValues;
  private final Set<String> defined = new HashSet<>();
  private final Set<String> taken = new HashSet<>();
  private final Set<String> used = new HashSet<>();
  private final Pt2Arguments arguments = new Pt2Arguments(defined);
  private final List<Node> nodes = new ArrayList<>();

  private Pt2GraphReader(Pt2Errors errors, JsonNode graph) {
    this.errors = errors;
    this.graph = graph;
    this.tensorValues = graph.path("tensor_values");
  }

  /** The graph of {@code archive}'s program, named {@code name}. */
  static Graph read(Pt2Archive archive, String name) {
    Pt2Errors errors = new Pt2Errors(archive.file().toString(), null);
    JsonNode module = archive.program().path("graph_module");
    JsonNode graph = module.path("graph");
    if (!graph.path("nodes").isArray() || !graph.path("inputs").isArray()) {
      throw errors.damaged(
          "the serialized program has no graph_module.graph with inputs and nodes");
    }
    Pt2GraphReader r = new Pt2GraphReader(errors, graph);
    r.collectNames();
    r.inputs(module.path("signature").path("input_specs"));
    for (JsonNode n : graph.get("nodes")) {
      r.node(n);
    }
    r.output();
    return new Graph(name, archive.file().toString(), r.nodes);
  }

  /** Every value name (so that tuple nodes get fresh ones) and every name an argument uses. */
  private void collectNames() {
    tensorValues.fieldNames().forEachRemaining(taken::add);
    for (String k : List.of("sym_int_values", "sym_float_values", "sym_bool_values")) {
      graph.path(k).fieldNames().forEachRemaining(taken::add);
    }
    for (JsonNode n : graph.get("nodes")) {
      for (JsonNode in : n.path("inputs")) {
        collectUses(in.get("arg"));
      }
    }
    collectUses(graph.get("outputs"));
  }

  private void collectUses(JsonNode json) {
    if (json == null) {
      return;
    }
    if (json.isObject()) {
      for (String key : List.of("name", "as_name")) {
        if (json.path(key).isTextual()) {
          used.add(json.get(key).asText());
        }
      }
    }
    for (JsonNode child : json) {
      collectUses(child);
    }
  }

  private void inputs(JsonNode specs) {
    JsonNode inputs = graph.get("inputs");
    if (!specs.isArray() || specs.size() != inputs.size()) {
      throw errors.damaged(
          "the program has "
              + inputs.size()
              + " graph inputs but "
              + (specs.isArray() ? specs.size() : 0)
              + " input specs in its signature");
    }
    for (int i = 0; i < inputs.size(); i++) {
      input(inputs.get(i), specs.get(i), i);
    }
  }

  private void input(JsonNode arg, JsonNode spec, int i) {
    Pt2Errors at = errors.at("input " + i);
    String kind = spec.isObject() && spec.size() == 1 ? spec.fieldNames().next() : "";
    String tag =
        switch (kind) {
          case "parameter" -> spec.get(kind).path("parameter_name").asText(null);
          case "buffer" -> spec.get(kind).path("buffer_name").asText(null);
          case "tensor_constant" -> spec.get(kind).path("tensor_constant_name").asText(null);
          case "user_input" -> null;
          case "token" ->
              throw at.unsupported(
                  "an effect token (the program calls operators with side effects)",
                  "Export the model without side-effecting operators.");
          case "custom_obj" ->
              throw at.unsupported(
                  "a script object input", "Export the model without TorchScript objects.");
          case "constant_input" ->
              throw at.unsupported(
                  "a constant (non-tensor) input",
                  "Export with tensor inputs only; constants are then part of the program.");
          default -> throw at.damaged("its input spec is " + spec);
        };
    Map.Entry<String, TensorType> value = inputValue(arg, at);
    String name = value.getKey();
    Meta meta = new Meta(List.of(value.getValue()), false, null, tag, null);
    add(name, NodeOp.PLACEHOLDER, name, List.of(), Map.of(), meta, at);
  }

  /** The name and type of a graph input: a tensor, or a symbolic integer. */
  private Map.Entry<String, TensorType> inputValue(JsonNode arg, Pt2Errors at) {
    JsonNode tensor = arg.path("as_tensor").get("name");
    if (tensor != null && tensor.isTextual()) {
      return Map.entry(tensor.asText(), type(tensor.asText(), at));
    }
    JsonNode sym = arg.path("as_sym_int").get("as_name");
    if (sym != null && sym.isTextual()) {
      return Map.entry(sym.asText(), new TensorType(List.of(), "int64"));
    }
    throw at.unsupported(
        "an input that is neither a tensor nor a symbolic integer (" + arg + ")",
        "Export with tensor inputs only.");
  }

  private void node(JsonNode n) {
    String label = n.path("name").isTextual() ? n.get("name").asText() : null;
    JsonNode outputs = n.path("outputs");
    if (label == null && outputs.size() > 0) {
      label = outputs.get(0).findPath("name").asText(null);
    }
    Pt2Errors at = errors.at("node " + (label == null ? "#" + nodes.size() : label));
    String target = target(n.path("target").asText(""), at);
    List<Arg> args = new ArrayList<>();
    Map<String, Arg> kwargs = new LinkedHashMap<>();
    for (JsonNode in : n.path("inputs")) {
      String argName = in.path("name").asText("");
      Arg value = arguments.convert(in.get("arg"), at.at(at.where() + ", argument " + argName));
      switch (in.path("kind").asInt(0)) {
        case 1 -> args.add(value);
        case 2 -> kwargs.put(argName, value);
        default ->
            throw at.unsupported(
                "argument '"
                    + argName
                    + "' does not say whether it is positional or keyword (its 'kind', which"
                    + " archives of older torch versions lack)",
                "Load it with torch.export.load and save it again with a current torch.");
      }
    }
    String trace = n.path("metadata").path("stack_trace").asText(null);
    if (trace != null) {
      trace = trace.strip();
      trace = trace.isEmpty() ? null : trace;
    }
    results(n, label, target, args, kwargs, trace, at);
  }

  private void results(
      JsonNode n,
      String label,
      String target,
      List<Arg> args,
      Map<String, Arg> kwargs,
      String trace,
      Pt2Errors at) {
    JsonNode outputs = n.path("outputs");
    if (outputs.size() == 1 && !outputs.get(0).has("as_tensors")) {
      Map.Entry<String, TensorType> single = single(outputs.get(0), at);
      Meta meta = new Meta(List.of(single.getValue()), false, trace, null, null);
      add(single.getKey(), NodeOp.CALL_FUNCTION, target, args, kwargs, meta, at);
      return;
    }
    List<JsonNode> items = new ArrayList<>();
    if (outputs.size() == 1) {
      outputs.get(0).get("as_tensors").forEach(items::add);
    } else {
      outputs.forEach(items::add);
    }
    List<TensorType> types = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (JsonNode item : items) {
      if (item.has("as_none")) {
        types.add(null);
        names.add(null);
        continue;
      }
      JsonNode t = item.has("as_tensor") ? item.get("as_tensor") : item;
      if (!t.path("name").isTextual() || item.has("as_tensors")) {
        throw at.unsupported(
            "a result " + item + " that is not a tensor",
            "entangle reads operators whose results are tensors.");
      }
      names.add(t.get("name").asText());
      types.add(type(t.get("name").asText(), at));
    }
    String tuple = fresh(label == null ? "tuple" : label);
    add(
        tuple,
        NodeOp.CALL_FUNCTION,
        target,
        args,
        kwargs,
        new Meta(types, true, trace, null, null),
        at);
    for (int i = 0; i < names.size(); i++) {
      String item = names.get(i);
      if (item != null && used.contains(item)) {
        List<Arg> ga = List.of(new Arg.NodeRef(tuple), new Arg.IntArg(i));
        Meta meta = new Meta(List.of(types.get(i)), false, trace, null, null);
        add(item, NodeOp.CALL_FUNCTION, "getitem", ga, Map.of(), meta, at);
      }
    }
  }

  /** The name and type of a single result: a tensor or a symbolic scalar. */
  private Map.Entry<String, TensorType> single(JsonNode out, Pt2Errors at) {
    if (out.path("as_tensor").path("name").isTextual()) {
      String name = out.get("as_tensor").get("name").asText();
      return Map.entry(name, type(name, at));
    }
    for (Map.Entry<String, String> sym :
        Map.of("as_sym_int", "int64", "as_sym_float", "float64", "as_sym_bool", "bool")
            .entrySet()) {
      JsonNode name = out.path(sym.getKey()).get("as_name");
      if (name != null && name.isTextual()) {
        return Map.entry(name.asText(), new TensorType(List.of(), sym.getValue()));
      }
    }
    throw at.unsupported(
        "a result " + out + " that is neither a tensor nor a symbolic scalar",
        "entangle reads operators whose results are tensors.");
  }

  private void output() {
    JsonNode outs = graph.path("outputs");
    Pt2Errors at = errors.at("the graph's outputs");
    if (!outs.isArray()) {
      throw at.damaged("the graph has no list of outputs");
    }
    List<Arg> values = new ArrayList<>();
    for (JsonNode o : outs) {
      values.add(arguments.convert(o, at));
    }
    String name = fresh("output");
    nodes.add(
        new Node(
            name,
            NodeOp.OUTPUT,
            "output",
            List.of(new Arg.ListArg(values)),
            Map.of(),
            Meta.empty(),
            nodes.size()));
  }

  private TensorType type(String tensor, Pt2Errors at) {
    JsonNode meta = tensorValues.get(tensor);
    if (meta == null || !meta.isObject()) {
      throw at.damaged("the tensor '" + tensor + "' has no entry in the graph's tensor_values");
    }
    return Pt2Types.tensorType(meta, at.at(at.where() + ", tensor " + tensor));
  }

  private void add(
      String name,
      NodeOp op,
      String target,
      List<Arg> args,
      Map<String, Arg> kwargs,
      Meta meta,
      Pt2Errors at) {
    if (!defined.add(name)) {
      throw at.damaged("the value '" + name + "' is defined twice");
    }
    taken.add(name);
    nodes.add(new Node(name, op, target, args, kwargs, meta, nodes.size()));
  }

  private String fresh(String base) {
    String name = base;
    for (int i = 1; taken.contains(name); i++) {
      name = base + "_" + i;
    }
    taken.add(name);
    return name;
  }

  /** {@code torch.ops.NS.OP.OVERLOAD} as {@code NS.OP.OVERLOAD}; Python operators by name. */
  private static String target(String t, Pt2Errors at) {
    if (t.startsWith(OPS)) {
      String[] parts = t.substring(OPS.length()).split("\\.", -1);
      if (parts.length == 3 && !parts[0].equals("higher_order")) {
        return t.substring(OPS.length());
      }
    } else if (t.startsWith("_operator.") || t.startsWith("operator.")) {
      return t.substring(t.indexOf('.') + 1);
    } else if (t.isEmpty()) {
      throw at.damaged("the node has no target");
    }
    throw at.unsupported(
        "the call of "
            + t
            + ", which is not an operator overload torch.ops.NAMESPACE.NAME.OVERLOAD (higher-order"
            + " operators such as control flow are not read from .pt2 archives)",
        "Export the model without it, or import its printed graph code.");
  }
}
