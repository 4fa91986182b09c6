package dev.entangle.importer;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** The spellings torch prints for dtypes, layouts and memory formats, and what they mean. */
final class TorchNames {
  /** The abbreviations of {@code torch.fx}'s type annotations ({@code dtype_abbrs}). */
  private static final Map<String, String> ABBREVIATIONS = new LinkedHashMap<>();

  /** {@code torch.NAME} dtype spellings, aliases included, to the canonical name. */
  private static final Map<String, String> DTYPES = new LinkedHashMap<>();

  private static final Set<String> LAYOUTS =
      Set.of("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
          "_mkldnn", "jagged");

  private static final Set<String> MEMORY_FORMATS =
      Set.of("contiguous_format", "channels_last", "channels_last_3d", "preserve_format");

  static {
    String[][] abbrs = {
      {"f32", "float32"}, {"f16", "float16"}, {"bf16", "bfloat16"}, {"f64", "float64"},
      {"i64", "int64"}, {"i32", "int32"}, {"i16", "int16"}, {"i8", "int8"}, {"u8", "uint8"},
      {"u16", "uint16"}, {"u32", "uint32"}, {"u64", "uint64"}, {"b8", "bool"},
      {"c32", "complex32"}, {"c64", "complex64"}, {"c128", "complex128"},
      {"f8e4m3fn", "float8_e4m3fn"}, {"f8e5m2", "float8_e5m2"},
      {"f8e4m3fnuz", "float8_e4m3fnuz"}, {"f8e5m2fnuz", "float8_e5m2fnuz"},
      {"f8e8m0fnu", "float8_e8m0fnu"}, {"f4e2m1fnx2", "float4_e2m1fn_x2"},
      {"b16", "bits16"}, {"b1x8", "bits1x8"}
    };
    for (String[] a : abbrs) {
      ABBREVIATIONS.put(a[0], a[1]);
      DTYPES.put(a[1], a[1]);
    }
    String[][] aliases = {
      {"float", "float32"}, {"double", "float64"}, {"half", "float16"}, {"cfloat", "complex64"},
      {"cdouble", "complex128"}, {"chalf", "complex32"}, {"short", "int16"}, {"int", "int32"},
      {"long", "int64"}, {"quint8", "quint8"}, {"qint8", "qint8"}, {"qint32", "qint32"},
      {"quint4x2", "quint4x2"}, {"bits8", "bits8"}, {"bits2x4", "bits2x4"}, {"bits4x2", "bits4x2"}
    };
    for (String[] a : aliases) {
      DTYPES.put(a[0], a[1]);
    }
  }

  private TorchNames() {}

  /** The dtype an annotation abbreviation stands for ({@code bf16} is {@code bfloat16}), or null. */
  static String dtypeOfAbbreviation(String abbr) {
    return ABBREVIATIONS.get(abbr);
  }

  static String knownAbbreviations() {
    return String.join(", ", ABBREVIATIONS.keySet());
  }

  /** The canonical dtype of {@code torch.NAME} ({@code torch.long} is {@code int64}), or null. */
  static String dtype(String name) {
    return DTYPES.get(name);
  }

  static boolean isLayout(String name) {
    return LAYOUTS.contains(name);
  }

  static boolean isMemoryFormat(String name) {
    return MEMORY_FORMATS.contains(name);
  }
}
