package dev.entangle.graph;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Decodes and encodes node arguments (docs/formats.md, Argument encoding). */
final class ArgCodec {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final String KINDS =
      "{\"node\": NAME}, {\"dtype\": ...}, {\"device\": ...}, {\"layout\": ...},"
          + " {\"memory_format\": ...}, {\"sym\": ...} or {\"float\": \"inf\"|\"-inf\"|\"nan\"}";

  private ArgCodec() {}

  /**
   * Decodes one argument.
   *
   * @param where the node, for messages
   * @param path the argument's place, e.g. {@code args[1]} or {@code kwargs.dtype}
   */
  static Arg decode(JsonNode json, Where where, String path) {
    switch (json.getNodeType()) {
      case NUMBER:
        if (!json.isIntegralNumber()) {
          return new Arg.FloatArg(json.doubleValue());
        }
        if (!json.canConvertToLong()) {
          throw where.error(
              "argument "
                  + path
                  + " is the integer "
                  + json.asText()
                  + ", which does not fit in"
                  + " 64 bits; integers in graph files are 64-bit.");
        }
        return new Arg.IntArg(json.longValue());
      case STRING:
        return new Arg.StrArg(json.textValue());
      case BOOLEAN:
        return new Arg.BoolArg(json.booleanValue());
      case NULL:
        return Arg.NONE;
      case ARRAY:
        List<Arg> items = new ArrayList<>(json.size());
        for (int i = 0; i < json.size(); i++) {
          items.add(decode(json.get(i), where, path + "[" + i + "]"));
        }
        return new Arg.ListArg(items);
      case OBJECT:
        return decodeObject(json, where, path);
      default:
        throw where.error("argument " + path + " is not a JSON value a graph file may hold.");
    }
  }

  private static Arg decodeObject(JsonNode json, Where where, String path) {
    if (json.size() != 1) {
      throw where.error(
          "argument "
              + path
              + " is the object "
              + json
              + ", which is not an argument encoding;"
              + " an argument object has exactly one key: "
              + KINDS
              + ".");
    }
    Map.Entry<String, JsonNode> e = json.fields().next();
    String kind = e.getKey();
    JsonNode value = e.getValue();
    if (!isKnownKind(kind)) {
      throw where.error(
          "argument "
              + path
              + " is an object of unknown kind \""
              + kind
              + "\" ("
              + json
              + ");"
              + " an argument object is one of "
              + KINDS
              + ".");
    }
    if (!value.isTextual()) {
      throw where.error(
          "argument "
              + path
              + " is "
              + json
              + ", but the value of \""
              + kind
              + "\" must be a"
              + " string.");
    }
    String text = value.textValue();
    switch (kind) {
      case "node":
        if (text.isEmpty()) {
          throw where.error("argument " + path + " refers to a node with an empty name.");
        }
        return new Arg.NodeRef(text);
      case "dtype":
        return new Arg.DtypeArg(text);
      case "device":
        return new Arg.DeviceArg(text);
      case "layout":
        return new Arg.LayoutArg(text);
      case "memory_format":
        return new Arg.MemoryFormatArg(text);
      case "sym":
        return new Arg.SymArg(text);
      default:
        return new Arg.FloatArg(specialFloat(text, where, "argument " + path));
    }
  }

  private static boolean isKnownKind(String kind) {
    return switch (kind) {
      case "node", "dtype", "device", "layout", "memory_format", "sym", "float" -> true;
      default -> false;
    };
  }

  /** The value of {@code {"float": text}}. */
  static double specialFloat(String text, Where where, String what) {
    return switch (text) {
      case "inf" -> Double.POSITIVE_INFINITY;
      case "-inf" -> Double.NEGATIVE_INFINITY;
      case "nan" -> Double.NaN;
      default ->
          throw where.error(
              what
                  + " is {\"float\": \""
                  + text
                  + "\"}, but only \"inf\", \"-inf\" and \"nan\" are"
                  + " written that way; write other floats as JSON numbers.");
    };
  }

  /** Encodes one argument; {@code decode(encode(a))} equals {@code a}. */
  static JsonNode encode(Arg arg) {
    if (arg instanceof Arg.IntArg i) {
      return JSON.numberNode(i.value());
    } else if (arg instanceof Arg.FloatArg f) {
      return encodeFloat(f.value());
    } else if (arg instanceof Arg.StrArg s) {
      return JSON.textNode(s.value());
    } else if (arg instanceof Arg.BoolArg b) {
      return JSON.booleanNode(b.value());
    } else if (arg instanceof Arg.NoneArg) {
      return JSON.nullNode();
    } else if (arg instanceof Arg.ListArg l) {
      ArrayNode out = JSON.arrayNode(l.items().size());
      for (Arg item : l.items()) {
        out.add(encode(item));
      }
      return out;
    } else if (arg instanceof Arg.NodeRef n) {
      return tagged("node", n.name());
    } else if (arg instanceof Arg.DtypeArg d) {
      return tagged("dtype", d.dtype());
    } else if (arg instanceof Arg.DeviceArg d) {
      return tagged("device", d.device());
    } else if (arg instanceof Arg.LayoutArg l) {
      return tagged("layout", l.layout());
    } else if (arg instanceof Arg.MemoryFormatArg m) {
      return tagged("memory_format", m.format());
    } else if (arg instanceof Arg.SymArg s) {
      return tagged("sym", s.expr());
    }
    throw new IllegalArgumentException("unknown argument " + arg);
  }

  /** A float as a JSON number, or {@code {"float": ...}} for infinities and NaN. */
  static JsonNode encodeFloat(double v) {
    if (Double.isNaN(v)) {
      return tagged("float", "nan");
    } else if (Double.isInfinite(v)) {
      return tagged("float", v > 0 ? "inf" : "-inf");
    }
    return JSON.numberNode(v);
  }

  private static ObjectNode tagged(String kind, String value) {
    ObjectNode o = JSON.objectNode();
    o.put(kind, value);
    return o;
  }
}
