package dev.entangle.importer.pt2;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.graph.Arg;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * torch.export's {@code Argument} union (a one-key object such as {@code {"as_tensor": {"name":
 * "mm"}}} or {@code {"as_ints": [1, 0]}}) as a graph argument ({@link Arg}). A reference must name
 * a value defined earlier (an input or an earlier node's result); graphs of higher-order operators,
 * script objects and complex numbers are refused with a reason.
 */
final class Pt2Arguments {
  private final Set<String> defined;

  /**
   * @param defined the names of the values defined so far; the reader adds each node's results
   *     after converting its arguments
   */
  Pt2Arguments(Set<String> defined) {
    this.defined = defined;
  }

  /** The argument {@code json} of the part {@code at} names. */
  Arg convert(JsonNode json, Pt2Errors at) {
    if (json == null || !json.isObject() || json.size() != 1) {
      throw at.damaged("an argument is " + json + ", not a one-key Argument object");
    }
    Map.Entry<String, JsonNode> e = json.fields().next();
    JsonNode v = e.getValue();
    return switch (e.getKey()) {
      case "as_none" -> Arg.NONE;
      case "as_tensor", "as_optional_tensor" -> tensorOrNone(v, at);
      case "as_tensors", "as_optional_tensors" -> list(v, at, x -> tensorOrNone(x, at));
      case "as_nested_tensors" -> list(v, at, x -> list(x, at, y -> tensorOrNone(y, at)));
      case "as_int" -> integer(v, at);
      case "as_ints" -> list(v, at, x -> integer(x, at));
      case "as_int_lists" -> list(v, at, x -> list(x, at, y -> integer(y, at)));
      case "as_float" -> floating(v, at);
      case "as_floats" -> list(v, at, x -> floating(x, at));
      case "as_float_lists" -> list(v, at, x -> list(x, at, y -> floating(y, at)));
      case "as_bool" -> bool(v, at);
      case "as_bools" -> list(v, at, x -> bool(x, at));
      case "as_string", "as_operator" -> new Arg.StrArg(string(v, at));
      case "as_strings" -> list(v, at, x -> new Arg.StrArg(string(x, at)));
      case "as_sym_int", "as_sym_float", "as_sym_bool" -> symbol(v, at);
      case "as_sym_ints", "as_sym_floats", "as_sym_bools" -> list(v, at, x -> symbol(x, at));
      case "as_scalar_type" -> new Arg.DtypeArg(code(v, at, Pt2Types::dtype, "dtype"));
      case "as_layout" -> new Arg.LayoutArg(code(v, at, Pt2Types::layout, "layout"));
      case "as_memory_format" ->
          new Arg.MemoryFormatArg(code(v, at, Pt2Types::memoryFormat, "memory format"));
      case "as_device" -> device(v, at);
      case "as_graph" ->
          throw at.unsupported(
              "a subgraph argument (a higher-order operator such as cond, map or a wrapped"
                  + " function), which entangle does not read from .pt2 archives",
              "Export the model without control flow (or with it inlined), or import its"
                  + " printed graph code.");
      case "as_custom_obj" ->
          throw at.unsupported(
              "a script object argument (" + v.path("class_fqn").asText("?") + ")",
              "Export the model without TorchScript objects.");
      case "as_complex" ->
          throw at.unsupported(
              "a complex number argument", "entangle's graph format has no complex constants.");
      default ->
          throw at.unsupported(
              "an argument of kind '" + e.getKey() + "', which entangle does not read",
              "Import the printed graph code instead (GraphModule.print_readable()).");
    };
  }

  private Arg tensorOrNone(JsonNode v, Pt2Errors at) {
    if (v != null && v.isObject() && v.size() == 1 && v.has("as_none")) {
      return Arg.NONE;
    }
    if (v != null && v.isObject() && v.size() == 1 && v.has("as_tensor")) {
      v = v.get("as_tensor");
    }
    return reference(v == null ? null : v.get("name"), at);
  }

  private Arg symbol(JsonNode v, Pt2Errors at) {
    if (v == null || !v.isObject() || v.size() != 1) {
      throw at.damaged("a symbolic argument is " + v);
    }
    Map.Entry<String, JsonNode> e = v.fields().next();
    return switch (e.getKey()) {
      case "as_name" -> reference(e.getValue(), at);
      case "as_int" -> integer(e.getValue(), at);
      case "as_float" -> floating(e.getValue(), at);
      case "as_bool" -> bool(e.getValue(), at);
      default -> throw at.damaged("a symbolic argument is " + v);
    };
  }

  private Arg reference(JsonNode name, Pt2Errors at) {
    if (name == null || !name.isTextual() || name.asText().isEmpty()) {
      throw at.damaged("a reference without a name");
    }
    String n = name.asText();
    if (!defined.contains(n)) {
      throw at.damaged(
          "it uses '" + n + "', which is neither an input nor the result of an earlier node");
    }
    return new Arg.NodeRef(n);
  }

  private static Arg integer(JsonNode v, Pt2Errors at) {
    if (v == null || !v.isIntegralNumber() || !v.canConvertToLong()) {
      throw at.damaged("an integer argument is " + v + ", not a 64-bit integer");
    }
    return new Arg.IntArg(v.longValue());
  }

  private static Arg floating(JsonNode v, Pt2Errors at) {
    if (v != null && v.isNumber()) {
      return new Arg.FloatArg(v.doubleValue());
    }
    if (v != null && v.isTextual()) {
      switch (v.asText()) {
        case "Infinity":
          return new Arg.FloatArg(Double.POSITIVE_INFINITY);
        case "-Infinity":
          return new Arg.FloatArg(Double.NEGATIVE_INFINITY);
        case "NaN":
          return new Arg.FloatArg(Double.NaN);
        default:
          break;
      }
    }
    throw at.damaged("a float argument is " + v);
  }

  private static Arg bool(JsonNode v, Pt2Errors at) {
    if (v == null || !v.isBoolean()) {
      throw at.damaged("a boolean argument is " + v);
    }
    return new Arg.BoolArg(v.booleanValue());
  }

  private static String string(JsonNode v, Pt2Errors at) {
    if (v == null || !v.isTextual()) {
      throw at.damaged("a string argument is " + v);
    }
    return v.asText();
  }

  private static String code(
      JsonNode v, Pt2Errors at, java.util.function.IntFunction<String> names, String what) {
    String name = v != null && v.canConvertToInt() ? names.apply(v.intValue()) : null;
    if (name == null) {
      throw at.unsupported(
          "the " + what + " code " + v + " of torch.export's schema is not known to entangle",
          "Export the model without it, or import its printed graph code.");
    }
    return name;
  }

  private static Arg device(JsonNode v, Pt2Errors at) {
    JsonNode type = v == null ? null : v.get("type");
    if (type == null || !type.isTextual()) {
      throw at.damaged("a device argument is " + v);
    }
    JsonNode index = v.get("index");
    return new Arg.DeviceArg(
        index == null || index.isNull() ? type.asText() : type.asText() + ":" + index.asText());
  }

  private static Arg list(
      JsonNode v, Pt2Errors at, java.util.function.Function<JsonNode, Arg> item) {
    if (v == null || !v.isArray()) {
      throw at.damaged("a list argument is " + v);
    }
    List<Arg> items = new ArrayList<>();
    for (Iterator<JsonNode> it = v.elements(); it.hasNext(); ) {
      items.add(item.apply(it.next()));
    }
    return new Arg.ListArg(items);
  }
}
