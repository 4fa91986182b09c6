package dev.entangle.importer.pt2;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.graph.Dim;
import dev.entangle.graph.TensorType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The enumerations of torch.export's schema ({@code torch/_export/serde/schema.py}: {@code
 * ScalarType}, {@code Layout}, {@code MemoryFormat}) and its {@code TensorMeta}, in the graph
 * format's spelling.
 */
final class Pt2Types {
  private static final Map<Integer, String> DTYPES =
      Map.ofEntries(
          Map.entry(1, "uint8"),
          Map.entry(2, "int8"),
          Map.entry(3, "int16"),
          Map.entry(4, "int32"),
          Map.entry(5, "int64"),
          Map.entry(6, "float16"),
          Map.entry(7, "float32"),
          Map.entry(8, "float64"),
          Map.entry(9, "complex32"),
          Map.entry(10, "complex64"),
          Map.entry(11, "complex128"),
          Map.entry(12, "bool"),
          Map.entry(13, "bfloat16"),
          Map.entry(28, "uint16"),
          Map.entry(29, "float8_e4m3fn"),
          Map.entry(30, "float8_e5m2"),
          Map.entry(31, "float8_e4m3fnuz"),
          Map.entry(32, "float8_e5m2fnuz"),
          Map.entry(33, "float8_e8m0fnu"),
          Map.entry(34, "uint32"),
          Map.entry(35, "uint64"));

  private static final Map<Integer, String> LAYOUTS =
      Map.of(
          1, "sparse_coo",
          2, "sparse_csr",
          3, "sparse_csc",
          4, "sparse_bsr",
          5, "sparse_bsc",
          6, "_mkldnn",
          7, "strided");

  private static final Map<Integer, String> MEMORY_FORMATS =
      Map.of(
          1, "contiguous_format",
          2, "channels_last",
          3, "channels_last_3d",
          4, "preserve_format");

  private Pt2Types() {}

  /** The dtype name of a {@code ScalarType} code, or null when the code is unknown. */
  static String dtype(int code) {
    return DTYPES.get(code);
  }

  /** The layout name of a {@code Layout} code, or null when unknown. */
  static String layout(int code) {
    return LAYOUTS.get(code);
  }

  /** The memory format name of a {@code MemoryFormat} code, or null when unknown. */
  static String memoryFormat(int code) {
    return MEMORY_FORMATS.get(code);
  }

  /**
   * The shape and dtype of a {@code TensorMeta} object; sizes are {@code {"as_int": N}} or {@code
   * {"as_expr": {"expr_str": "s0"}}}.
   *
   * @param at what the metadata belongs to, for messages
   */
  static TensorType tensorType(JsonNode meta, Pt2Errors at) {
    JsonNode code = meta.get("dtype");
    if (code == null || !code.canConvertToInt()) {
      throw at.damaged("its tensor metadata has no dtype code");
    }
    String dtype = dtype(code.intValue());
    if (dtype == null) {
      throw at.unsupported(
          "dtype code "
              + code.intValue()
              + " of torch.export's ScalarType is not known to entangle",
          "Export the model in a dtype entangle knows (docs/formats.md, Dtypes).");
    }
    JsonNode sizes = meta.get("sizes");
    if (sizes == null || !sizes.isArray()) {
      throw at.damaged("its tensor metadata has no list of sizes");
    }
    List<Dim> shape = new ArrayList<>();
    for (JsonNode s : sizes) {
      shape.add(size(s, at));
    }
    return new TensorType(shape, dtype);
  }

  private static Dim size(JsonNode s, Pt2Errors at) {
    JsonNode fixed = s.get("as_int");
    if (fixed != null && fixed.canConvertToLong() && fixed.longValue() >= 0) {
      return Dim.of(fixed.longValue());
    }
    JsonNode expr = s.path("as_expr").get("expr_str");
    if (expr != null && expr.isTextual() && !expr.asText().isBlank()) {
      return new Dim.Sym(expr.asText());
    }
    throw at.damaged("a size of its tensor metadata is " + s + ", not a size");
  }
}
