package dev.entangle.graph;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/** Decodes and encodes a node's {@code meta} object (docs/formats.md, Result types). */
final class MetaCodec {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private MetaCodec() {}

  /** Decodes {@code meta}; an absent or null meta is {@link Meta#empty()}. */
  static Meta decode(JsonNode meta, Where where) {
    if (meta == null || meta.isNull()) {
      return Meta.empty();
    }
    if (!meta.isObject()) {
      throw where.error("meta must be a JSON object, not " + meta + ".");
    }
    JsonNode shape = meta.get("shape");
    JsonNode dtype = meta.get("dtype");
    JsonNode tuple = meta.get("tuple");
    List<TensorType> types = new ArrayList<>();
    boolean isTuple = tuple != null && !tuple.isNull();
    if (isTuple) {
      if (shape != null || dtype != null) {
        throw where.error(
            "meta has both tuple and shape/dtype; give meta.tuple for a node that returns several"
                + " values, meta.shape and meta.dtype otherwise.");
      }
      if (!tuple.isArray()) {
        throw where.error(
            "meta.tuple must be a list of {\"shape\", \"dtype\"} objects (null for a non-tensor"
                + " item), not "
                + tuple
                + ".");
      }
      for (int i = 0; i < tuple.size(); i++) {
        JsonNode item = tuple.get(i);
        if (item.isNull()) {
          types.add(null);
        } else if (item.isObject()) {
          types.add(type(item.get("shape"), item.get("dtype"), where, "meta.tuple[" + i + "]"));
        } else {
          throw where.error(
              "meta.tuple["
                  + i
                  + "] must be a {\"shape\", \"dtype\"} object or null, not "
                  + item
                  + ".");
        }
      }
    } else if (shape != null || dtype != null) {
      types.add(type(shape, dtype, where, "meta"));
    }
    return new Meta(
        types,
        isTuple,
        optionalText(meta, "stack_trace", where),
        optionalTag(meta, where),
        value(meta.get("value"), where));
  }

  private static TensorType type(JsonNode shape, JsonNode dtype, Where where, String field) {
    if (shape == null || shape.isNull()) {
      throw where.error(
          field
              + " has a dtype but no shape; give "
              + field
              + ".shape as a list of"
              + " sizes ([] for a 0-d tensor).");
    }
    if (dtype == null || dtype.isNull()) {
      throw where.error(
          field + " has a shape but no dtype; give " + field + ".dtype, e.g." + " \"float32\".");
    }
    if (!dtype.isTextual() || dtype.textValue().isEmpty()) {
      throw where.error(
          field + ".dtype must be a dtype name such as \"float32\", not " + dtype + ".");
    }
    if (!shape.isArray()) {
      throw where.error(field + ".shape must be a list of sizes, not " + shape + ".");
    }
    List<Dim> dims = new ArrayList<>(shape.size());
    for (int i = 0; i < shape.size(); i++) {
      dims.add(dim(shape.get(i), where, field + ".shape[" + i + "]"));
    }
    return new TensorType(dims, dtype.textValue());
  }

  private static Dim dim(JsonNode size, Where where, String field) {
    if (size.isIntegralNumber() && size.canConvertToLong() && size.longValue() >= 0) {
      return new Dim.Fixed(size.longValue());
    }
    if (size.isObject()
        && size.size() == 1
        && size.has("sym")
        && size.get("sym").isTextual()
        && !size.get("sym").textValue().isBlank()) {
      return new Dim.Sym(size.get("sym").textValue());
    }
    throw where.error(
        field + " is " + size + "; a size is a non-negative integer or {\"sym\":" + " \"s0\"}.");
  }

  private static String optionalText(JsonNode meta, String key, Where where) {
    JsonNode v = meta.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw where.error("meta." + key + " must be a string, not " + v + ".");
    }
    return v.textValue();
  }

  private static String optionalTag(JsonNode meta, Where where) {
    String tag = optionalText(meta, "tag", where);
    if (tag != null && tag.isEmpty()) {
      throw where.error("meta.tag is empty; leave it out or give the value's second name.");
    }
    return tag;
  }

  private static Double value(JsonNode v, Where where) {
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isNumber()) {
      return v.doubleValue();
    }
    if (v.isObject() && v.size() == 1 && v.has("float") && v.get("float").isTextual()) {
      return ArgCodec.specialFloat(v.get("float").textValue(), where, "meta.value");
    }
    throw where.error("meta.value must be a number (the 0-d constant's value), not " + v + ".");
  }

  /** Encodes {@code meta}; null when there is nothing to write. */
  static ObjectNode encode(Meta meta) {
    ObjectNode out = JSON.objectNode();
    if (meta.tuple()) {
      ArrayNode items = out.putArray("tuple");
      for (TensorType t : meta.types()) {
        if (t == null) {
          items.addNull();
        } else {
          ObjectNode item = items.addObject();
          putType(item, t);
        }
      }
    } else if (!meta.types().isEmpty()) {
      putType(out, meta.types().get(0));
    }
    if (meta.stackTrace() != null) {
      out.put("stack_trace", meta.stackTrace());
    }
    if (meta.tag() != null) {
      out.put("tag", meta.tag());
    }
    if (meta.value() != null) {
      out.set("value", encodeValue(meta.value()));
    }
    return out.isEmpty() ? null : out;
  }

  private static void putType(ObjectNode out, TensorType t) {
    ArrayNode shape = out.putArray("shape");
    for (Dim d : t.shape()) {
      if (d instanceof Dim.Fixed f) {
        shape.add(f.size());
      } else {
        shape.addObject().put("sym", ((Dim.Sym) d).expr());
      }
    }
    out.put("dtype", t.dtype());
  }

  /** A constant's value: integral values as JSON integers, so {@code 0} stays {@code 0}. */
  private static JsonNode encodeValue(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 0x1p53 && !(v == 0 && 1 / v < 0)) {
      return JSON.numberNode((long) v);
    }
    return ArgCodec.encodeFloat(v);
  }
}
