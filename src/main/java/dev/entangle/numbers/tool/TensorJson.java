package dev.entangle.numbers.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.core.Dtype;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.eval.Value;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Tensors and values as JSON: {@code {"dtype": "float32", "shape": [2, 3], "data": [...]}},
 * elements row-major, NaN and infinities as the strings {@code "nan"}, {@code "inf"}, {@code
 * "-inf"}; a value without a tensor as {@code {"undefined": ORIGIN}} or {@code {"unavailable":
 * REASON}}.
 */
final class TensorJson {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private TensorJson() {}

  static ObjectNode write(Tensor t) {
    ObjectNode o = JSON.objectNode();
    o.put("dtype", Dtype.name(t.dtype()));
    ArrayNode shape = o.putArray("shape");
    for (long s : t.shape()) {
      shape.add(s);
    }
    ArrayNode data = o.putArray("data");
    for (int i = 0; i < t.numel(); i++) {
      double v = t.at(i);
      if (Double.isNaN(v)) {
        data.add("nan");
      } else if (Double.isInfinite(v)) {
        data.add(v > 0 ? "inf" : "-inf");
      } else if (v == Math.rint(v) && Math.abs(v) < 1e15) {
        data.add((long) v);
      } else {
        data.add(v);
      }
    }
    return o;
  }

  static ObjectNode write(Value v) {
    if (v instanceof Value.Known k) {
      return write(k.tensor());
    }
    ObjectNode o = JSON.objectNode();
    if (v instanceof Value.Undefined u) {
      o.put("undefined", u.origin());
    } else {
      o.put("unavailable", ((Value.Unavailable) v).reason());
    }
    return o;
  }

  static ObjectNode write(Map<String, Tensor> values) {
    ObjectNode o = JSON.objectNode();
    values.forEach((name, t) -> o.set(name, write(t)));
    return o;
  }

  /** Reads a tensor object; {@code where} names it in messages. */
  static Tensor read(JsonNode o, String where) {
    if (o == null || !o.isObject() || !o.has("dtype") || !o.has("shape") || !o.has("data")) {
      throw new IllegalArgumentException(
          where + ": a tensor is an object with dtype, shape and data");
    }
    int dtype = Dtype.code(o.get("dtype").asText());
    if (dtype < 0) {
      throw new IllegalArgumentException(where + ": unknown dtype " + o.get("dtype"));
    }
    long[] shape = new long[o.get("shape").size()];
    for (int i = 0; i < shape.length; i++) {
      shape[i] = o.get("shape").get(i).asLong();
    }
    JsonNode data = o.get("data");
    double[] values = new double[data.size()];
    for (int i = 0; i < values.length; i++) {
      JsonNode d = data.get(i);
      values[i] =
          d.isTextual()
              ? switch (d.asText()) {
                case "nan" -> Double.NaN;
                case "inf" -> Double.POSITIVE_INFINITY;
                case "-inf" -> Double.NEGATIVE_INFINITY;
                default ->
                    throw new IllegalArgumentException(where + ": element " + i + " is " + d);
              }
              : d.asDouble();
    }
    try {
      return Tensor.of(dtype, shape, values);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage());
    }
  }

  static Map<String, Tensor> readMap(JsonNode o, String where) {
    Map<String, Tensor> out = new LinkedHashMap<>();
    if (o == null || !o.isObject()) {
      throw new IllegalArgumentException(where + " must be an object of tensors by node name");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
      var e = it.next();
      out.put(e.getKey(), read(e.getValue(), where + "." + e.getKey()));
    }
    return out;
  }
}
