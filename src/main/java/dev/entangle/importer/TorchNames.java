package dev.entangle.importer;

import dev.entangle.core.Dtype;
import java.util.Set;

/** The spellings torch prints for dtypes (through {@link Dtype}), layouts and memory formats. */
final class TorchNames {
  private static final Set<String> LAYOUTS =
      Set.of(
          "strided",
          "sparse_coo",
          "sparse_csr",
          "sparse_csc",
          "sparse_bsr",
          "sparse_bsc",
          "_mkldnn",
          "jagged");

  private static final Set<String> MEMORY_FORMATS =
      Set.of("contiguous_format", "channels_last", "channels_last_3d", "preserve_format");

  private TorchNames() {}

  /**
   * The dtype an annotation abbreviation stands for ({@code bf16} is {@code bfloat16}), or null.
   */
  static String dtypeOfAbbreviation(String abbr) {
    Dtype d = Dtype.byAbbreviation(abbr);
    return d == null ? null : d.canonical();
  }

  static String knownAbbreviations() {
    return Dtype.knownAbbreviations();
  }

  /** The canonical dtype of {@code torch.NAME} ({@code torch.long} is {@code int64}), or null. */
  static String dtype(String name) {
    Dtype d = Dtype.byName(name);
    return d == null ? null : d.canonical();
  }

  static boolean isLayout(String name) {
    return LAYOUTS.contains(name);
  }

  static boolean isMemoryFormat(String name) {
    return MEMORY_FORMATS.contains(name);
  }
}
