package dev.entangle.ops;

import java.util.List;

/** Dtype names and their integer codes (as stored in e-node attributes). */
public final class Dtype {
  private static final List<String> NAMES =
      List.of(
          "float32", "float16", "bfloat16", "float64", "int64", "int32", "int16", "int8", "uint8",
          "bool", "complex64", "complex128", "float8_e4m3fn", "float8_e5m2", "uint16", "uint32", "uint64");

  private Dtype() {}

  /** The code of a dtype name, or -1 when unknown. */
  public static int code(String name) {
    return NAMES.indexOf(normalize(name));
  }

  /** The name of a code. */
  public static String name(long code) {
    return code >= 0 && code < NAMES.size() ? NAMES.get((int) code) : "dtype" + code;
  }

  /** Accepts PyTorch's aliases: {@code float}, {@code half}, {@code long}, {@code int}, ... */
  public static String normalize(String name) {
    if (name == null) {
      return null;
    }
    String n = name.startsWith("torch.") ? name.substring(6) : name;
    return switch (n) {
      case "float" -> "float32";
      case "half" -> "float16";
      case "double" -> "float64";
      case "long" -> "int64";
      case "int" -> "int32";
      case "short" -> "int16";
      case "cfloat" -> "complex64";
      case "cdouble" -> "complex128";
      default -> n;
    };
  }

  public static boolean isFloating(long code) {
    String n = name(code);
    return n.startsWith("float") || n.startsWith("bfloat") || n.startsWith("complex");
  }

  /** Whether a dtype represents the integer v exactly. */
  public static boolean holdsExactly(long code, long v) {
    return switch (name(code)) {
      case "bool" -> v == 0 || v == 1;
      case "uint8" -> v >= 0 && v <= 255;
      case "uint16" -> v >= 0 && v <= 65535;
      case "uint32" -> v >= 0 && v <= 4294967295L;
      case "uint64" -> v >= 0;
      case "int8" -> v >= -128 && v <= 127;
      case "int16" -> v >= Short.MIN_VALUE && v <= Short.MAX_VALUE;
      case "int32" -> v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE;
      case "int64" -> true;
      case "float16" -> Math.abs(v) <= 2048;
      case "bfloat16" -> Math.abs(v) <= 256;
      case "float32" -> Math.abs(v) <= (1L << 24);
      case "float64" -> Math.abs(v) <= (1L << 53);
      default -> false;
    };
  }

  public static final int FLOAT32 = 0;
  public static final int INT64 = 4;
  public static final int BOOL = 9;
}
