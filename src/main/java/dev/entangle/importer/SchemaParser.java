package dev.entangle.importer;

import dev.entangle.util.InputException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads operator schemas in PyTorch's syntax, one per line: {@code NS::NAME[.OVERLOAD](TYPE
 * NAME[=DEFAULT], ...) -> RETURNS}. A {@code !} in an argument's type ({@code Tensor!}, {@code
 * Tensor(a!)}, {@code Tensor(a!)?}) marks an argument the operator mutates. Blank lines and lines
 * starting with {@code #} are skipped.
 */
final class SchemaParser {
  static final String EXAMPLE =
      "_C::rms_norm(Tensor! result, Tensor input, Tensor weight, float epsilon) -> ()";

  private SchemaParser() {}

  /** All schemas of a schema file's text. */
  static List<OpSchema> parseFile(String text, String fileName) {
    List<OpSchema> out = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].trim();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      out.add(parse(line, fileName + ":" + (i + 1)));
    }
    return out;
  }

  static OpSchema parse(String schema, String where) {
    int sep = schema.indexOf("::");
    int open = schema.indexOf('(');
    if (sep <= 0 || open < sep) {
      throw fail(schema, where, "it does not start with NAMESPACE::NAME(");
    }
    String ns = schema.substring(0, sep).trim();
    String name = schema.substring(sep + 2, open).trim();
    String overload = "default";
    int dot = name.indexOf('.');
    if (dot >= 0) {
      overload = name.substring(dot + 1);
      name = name.substring(0, dot);
    }
    if (!isIdentifier(ns) || !isIdentifier(name) || !isIdentifier(overload)) {
      throw fail(
          schema, where, "the operator name is not NAMESPACE::NAME or NAMESPACE::NAME.OVERLOAD");
    }
    int close = closing(schema, open);
    if (close < 0) {
      throw fail(schema, where, "the argument list is not closed");
    }
    String rest = schema.substring(close + 1).trim();
    if (!rest.startsWith("->")) {
      throw fail(schema, where, "the return type after `->` is missing");
    }
    List<OpSchema.Param> params = new ArrayList<>();
    for (String arg : splitTopLevel(schema.substring(open + 1, close))) {
      if (arg.isEmpty()) {
        throw fail(schema, where, "an argument is empty");
      }
      if (arg.equals("*")) {
        continue;
      }
      params.add(param(arg, schema, where));
    }
    int returns = returnCount(rest.substring(2).trim(), schema, where);
    return new OpSchema(ns + "." + name + "." + overload, params, returns, where);
  }

  private static OpSchema.Param param(String arg, String schema, String where) {
    String decl = arg;
    int eq = topLevelEquals(arg);
    if (eq >= 0) {
      decl = arg.substring(0, eq).trim();
    }
    int end = decl.length();
    int start = end;
    while (start > 0
        && (Character.isLetterOrDigit(decl.charAt(start - 1)) || decl.charAt(start - 1) == '_')) {
      start--;
    }
    String name = decl.substring(start, end);
    String type = decl.substring(0, start).trim();
    if (name.isEmpty() || type.isEmpty() || !isIdentifier(name)) {
      throw fail(schema, where, "the argument `" + arg + "` is not TYPE NAME");
    }
    boolean tensorList = type.startsWith("Tensor") && type.contains("[]");
    return new OpSchema.Param(name, type, type.contains("!"), tensorList);
  }

  private static int returnCount(String returns, String schema, String where) {
    if (returns.isEmpty()) {
      throw fail(schema, where, "the return type after `->` is missing");
    }
    if (returns.startsWith("(")) {
      int close = closing(returns, 0);
      if (close != returns.length() - 1) {
        throw fail(schema, where, "cannot read the return type `" + returns + "`");
      }
      String inner = returns.substring(1, close).trim();
      return inner.isEmpty() ? 0 : splitTopLevel(inner).size();
    }
    return 1;
  }

  private static List<String> splitTopLevel(String s) {
    List<String> out = new ArrayList<>();
    if (s.isBlank()) {
      return out;
    }
    int start = 0;
    for (int comma = topLevel(s, 0, ','); comma >= 0; comma = topLevel(s, start, ',')) {
      out.add(s.substring(start, comma).trim());
      start = comma + 1;
    }
    out.add(s.substring(start).trim());
    return out;
  }

  private static int topLevelEquals(String s) {
    return topLevel(s, 0, '=');
  }

  /** The index of the bracket closing the one at {@code open}, or -1. */
  private static int closing(String s, int open) {
    return topLevel(s, open + 1, s.charAt(open) == '[' ? ']' : ')');
  }

  /**
   * The index of the first {@code target} from {@code from} outside quotes and outside brackets
   * opened after {@code from}, or -1.
   */
  private static int topLevel(String s, int from, char target) {
    int depth = 0;
    char quote = 0;
    for (int i = from; i < s.length(); i++) {
      char c = s.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (depth == 0 && c == target) {
        return i;
      } else if (c == '(' || c == '[') {
        depth++;
      } else if (c == ')' || c == ']') {
        depth--;
      }
    }
    return -1;
  }

  private static boolean isIdentifier(String s) {
    if (s.isEmpty() || Character.isDigit(s.charAt(0))) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '_')) {
        return false;
      }
    }
    return true;
  }

  private static InputException fail(String schema, String where, String why) {
    return new InputException(
        where
            + ": cannot read the operator schema `"
            + schema
            + "`: "
            + why
            + ". Write one schema per line in PyTorch's syntax, e.g. `"
            + EXAMPLE
            + "`, with `Tensor!` or `Tensor(a!)` marking the arguments the operator mutates.");
  }
}
