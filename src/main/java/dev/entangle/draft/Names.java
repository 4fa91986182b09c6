package dev.entangle.draft;

import java.util.regex.Pattern;

/** Names as relations write them, and names a capture tool generates from positions. */
final class Names {
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*");

  /**
   * Names that say where an input is in the argument list, not what it is: AOTAutograd's {@code
   * primals_4}, {@code tangents_2}, {@code arg3_1}, XLA's parameter names {@code p9.10}.
   */
  private static final Pattern GENERATED =
      Pattern.compile(
          "(primals|tangents)_\\d+|arg\\d+_\\d+|p\\d+\\.\\d+|Arg_\\d+(\\.\\d+)?|param_\\d+");

  private Names() {}

  /** A name in the expression syntax: as it is, or in backquotes. */
  static String ref(String name) {
    return PLAIN.matcher(name).matches() ? name : "`" + name + "`";
  }

  /** Whether the name was generated from the input's position. */
  static boolean generated(String name) {
    return GENERATED.matcher(name).matches();
  }
}
