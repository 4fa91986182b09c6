package dev.entangle.core;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tensor element types: each with its canonical name (as graph files write it), the abbreviation
 * torch.fx's printed type annotations use ({@code f32}), and PyTorch's other spellings ({@code
 * torch.float}, {@code torch.half}). The one table of dtypes; a dtype's code (its ordinal, stored
 * in e-node attributes and written in lemma files, e.g. 9 for bool) never changes, so new dtypes
 * are added at the end.
 */
public enum Dtype {
  FLOAT32("float32", "f32", "float"),
  FLOAT16("float16", "f16", "half"),
  BFLOAT16("bfloat16", "bf16"),
  FLOAT64("float64", "f64", "double"),
  INT64("int64", "i64", "long"),
  INT32("int32", "i32", "int"),
  INT16("int16", "i16", "short"),
  INT8("int8", "i8"),
  UINT8("uint8", "u8"),
  BOOL("bool", "b8"),
  COMPLEX64("complex64", "c64", "cfloat"),
  COMPLEX128("complex128", "c128", "cdouble"),
  FLOAT8_E4M3FN("float8_e4m3fn", "f8e4m3fn"),
  FLOAT8_E5M2("float8_e5m2", "f8e5m2"),
  UINT16("uint16", "u16"),
  UINT32("uint32", "u32"),
  UINT64("uint64", "u64"),
  COMPLEX32("complex32", "c32", "chalf"),
  FLOAT8_E4M3FNUZ("float8_e4m3fnuz", "f8e4m3fnuz"),
  FLOAT8_E5M2FNUZ("float8_e5m2fnuz", "f8e5m2fnuz"),
  FLOAT8_E8M0FNU("float8_e8m0fnu", "f8e8m0fnu"),
  FLOAT4_E2M1FN_X2("float4_e2m1fn_x2", "f4e2m1fnx2"),
  BITS16("bits16", "b16"),
  BITS1X8("bits1x8", "b1x8"),
  BITS8("bits8", null),
  BITS2X4("bits2x4", null),
  BITS4X2("bits4x2", null),
  QUINT8("quint8", null),
  QINT8("qint8", null),
  QINT32("qint32", null),
  QUINT4X2("quint4x2", null);

  private final String canonical;
  private final String abbreviation;
  private final List<String> aliases;

  private static final Dtype[] VALUES = values();
  private static final Map<String, Dtype> BY_NAME = new HashMap<>();
  private static final Map<String, Dtype> BY_ABBREVIATION = new HashMap<>();

  static {
    for (Dtype d : VALUES) {
      BY_NAME.put(d.canonical, d);
      d.aliases.forEach(a -> BY_NAME.put(a, d));
      if (d.abbreviation != null) {
        BY_ABBREVIATION.put(d.abbreviation, d);
      }
    }
  }

  Dtype(String canonical, String abbreviation, String... aliases) {
    this.canonical = canonical;
    this.abbreviation = abbreviation;
    this.aliases = List.of(aliases);
  }

  /** The canonical name, e.g. {@code float32}. */
  public String canonical() {
    return canonical;
  }

  /** Whether the interpreter holds its values exactly as integers: the integer dtypes and bool. */
  public boolean isIntegral() {
    return switch (this) {
      case INT64, INT32, INT16, INT8, UINT8, BOOL -> true;
      default -> false;
    };
  }

  /** Whether the interpreter has numbers for it: 16- to 64-bit floats, integers and bool. */
  public boolean hasNumbers() {
    return isIntegral() || isFloatingWithNumbers();
  }

  private boolean isFloatingWithNumbers() {
    return switch (this) {
      case FLOAT32, FLOAT16, BFLOAT16, FLOAT64 -> true;
      default -> false;
    };
  }

  /** The largest finite value of a floating dtype; {@link Double#MAX_VALUE} for the others. */
  public double maxFinite() {
    return switch (this) {
      case FLOAT16 -> 65504.0;
      case BFLOAT16 -> 0x1.FEp127;
      case FLOAT32 -> Float.MAX_VALUE;
      default -> Double.MAX_VALUE;
    };
  }

  /**
   * The element type XLA's HLO text writes for it ({@code pred}, {@code s32}, {@code bf16}...), or
   * null.
   */
  public String xlaName() {
    return switch (this) {
      case BOOL -> "pred";
      case INT8 -> "s8";
      case INT16 -> "s16";
      case INT32 -> "s32";
      case INT64 -> "s64";
      case UINT8 -> "u8";
      case UINT16 -> "u16";
      case UINT32 -> "u32";
      case UINT64 -> "u64";
      case FLOAT16 -> "f16";
      case BFLOAT16 -> "bf16";
      case FLOAT32 -> "f32";
      case FLOAT64 -> "f64";
      case COMPLEX64 -> "c64";
      case COMPLEX128 -> "c128";
      case FLOAT8_E4M3FN -> "f8e4m3fn";
      case FLOAT8_E5M2 -> "f8e5m2";
      default -> null;
    };
  }

  /** The dtype of an XLA element type name ({@link #xlaName}), or null. */
  public static Dtype byXlaName(String name) {
    for (Dtype d : VALUES) {
      if (name.equals(d.xlaName())) {
        return d;
      }
    }
    return null;
  }

  /** The code stored in e-node attributes. */
  public int code() {
    return ordinal();
  }

  /**
   * A dtype by canonical name or PyTorch alias, with or without {@code torch.}; null when unknown.
   */
  public static Dtype byName(String name) {
    if (name == null) {
      return null;
    }
    return BY_NAME.get(name.startsWith("torch.") ? name.substring(6) : name);
  }

  /** A dtype by torch.fx's annotation abbreviation ({@code bf16}); null when unknown. */
  public static Dtype byAbbreviation(String abbreviation) {
    return BY_ABBREVIATION.get(abbreviation);
  }

  /** The abbreviations torch.fx's annotations use, for messages. */
  public static String knownAbbreviations() {
    StringBuilder sb = new StringBuilder();
    for (Dtype d : VALUES) {
      if (d.abbreviation != null) {
        sb.append(sb.length() == 0 ? "" : ", ").append(d.abbreviation);
      }
    }
    return sb.toString();
  }

  /** The code of a dtype name (canonical or alias), or -1 when unknown. */
  public static int code(String name) {
    Dtype d = byName(name);
    return d == null ? -1 : d.code();
  }

  /** The dtype of a code, or null for none. */
  public static Dtype of(long code) {
    return code >= 0 && code < VALUES.length ? VALUES[(int) code] : null;
  }

  /** The canonical name of a code. */
  public static String name(long code) {
    Dtype d = of(code);
    return d != null ? d.canonical : "dtype" + code;
  }

  /** Whether values of the dtype are floating point (real or complex). */
  public boolean isFloating() {
    return canonical.startsWith("float")
        || canonical.startsWith("bfloat")
        || canonical.startsWith("complex");
  }

  /** Whether the code is a floating dtype. */
  public static boolean isFloating(long code) {
    Dtype d = of(code);
    return d != null && d.isFloating();
  }

  /** Whether a dtype represents the integer v exactly. */
  public static boolean holdsExactly(long code, long v) {
    Dtype d = of(code);
    if (d == null) {
      return false;
    }
    return switch (d) {
      case BOOL -> v == 0 || v == 1;
      case UINT8 -> v >= 0 && v <= 255;
      case UINT16 -> v >= 0 && v <= 65535;
      case UINT32 -> v >= 0 && v <= 4294967295L;
      case UINT64 -> v >= 0;
      case INT8 -> v >= -128 && v <= 127;
      case INT16 -> v >= Short.MIN_VALUE && v <= Short.MAX_VALUE;
      case INT32 -> v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE;
      case INT64 -> true;
      case FLOAT16 -> Math.abs(v) <= 2048;
      case BFLOAT16 -> Math.abs(v) <= 256;
      case FLOAT32 -> Math.abs(v) <= (1L << 24);
      case FLOAT64 -> Math.abs(v) <= (1L << 53);
      default -> false;
    };
  }
}
