package dev.entangle.importer;

import dev.entangle.graph.Dim;
import dev.entangle.graph.TensorType;
import dev.entangle.util.InputException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the type strings torch.fx prints as annotations: {@code "f32[8, 16]"} (optionally with
 * strides and a device, {@code "f32[8, 16][16, 1]cuda:0"}), symbolic sizes such as {@code "f32[s0,
 * 2*s1]"}, and symbolic scalars {@code "Sym(s0)"}.
 *
 * <p>A symbolic scalar has no tensor type in the graph model; it is described as a 0-d tensor of
 * {@code int64} (a SymInt), {@code bool} (a SymBool: a comparison such as {@code u0 >= 0}) or
 * {@code float64} (a SymFloat: an expression with a decimal point or a true division).
 */
final class TypeAnnotations {

  private static final String ADVICE =
      "torch.fx annotates values as \"DTYPE[SIZES]\" (e.g. \"f32[8, 16]\") or \"Sym(EXPR)\";"
          + " restore the annotation as printed.";

  private final SourceFile src;

  TypeAnnotations(SourceFile src) {
    this.src = src;
  }

  TensorType parse(String annotation, int line) {
    String text = annotation.trim();
    if (text.startsWith("Sym(") && text.endsWith(")")) {
      return symbolic(text.substring(4, text.length() - 1).trim(), annotation, line);
    }
    int open = text.indexOf('[');
    if (open < 0) {
      throw fail(annotation, line, "it has no [sizes]");
    }
    String abbr = text.substring(0, open).trim();
    String dtype = TorchNames.dtypeOfAbbreviation(abbr);
    if (dtype == null) {
      throw src.error(
          line,
          "the type annotation \"" + annotation + "\" names the unknown dtype `" + abbr + "`",
          "Known dtype abbreviations: " + TorchNames.knownAbbreviations() + ".");
    }
    int close = matching(text, open);
    if (close < 0) {
      throw fail(annotation, line, "its [sizes] are not closed");
    }
    List<Dim> shape = dims(text.substring(open + 1, close), annotation, line);
    checkSuffix(text.substring(close + 1), annotation, line);
    return new TensorType(shape, dtype);
  }

  private TensorType symbolic(String expr, String annotation, int line) {
    if (expr.isEmpty()) {
      throw fail(annotation, line, "Sym() is empty");
    }
    return new TensorType(List.of(), symbolicDtype(expr));
  }

  /** The dtype that describes a symbolic scalar with this expression. */
  static String symbolicDtype(String expr) {
    if (expr.equals("True")
        || expr.equals("False")
        || expr.startsWith("Eq(")
        || expr.startsWith("Ne(")
        || expr.startsWith("Not(")
        || expr.startsWith("And(")
        || expr.startsWith("Or(")
        || hasComparison(expr)) {
      return "bool";
    }
    if (hasDecimalPoint(expr) || hasTrueDivision(expr)) {
      return "float64";
    }
    return "int64";
  }

  private static boolean hasComparison(String e) {
    int depth = 0;
    for (int i = 0; i < e.length(); i++) {
      char c = e.charAt(i);
      if (c == '(' || c == '[') {
        depth++;
      } else if (c == ')' || c == ']') {
        depth--;
      } else if (depth == 0
          && (c == '<'
              || c == '>'
              || ((c == '=' || c == '!') && i + 1 < e.length() && e.charAt(i + 1) == '='))) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasDecimalPoint(String e) {
    for (int i = 1; i + 1 < e.length(); i++) {
      if (e.charAt(i) == '.'
          && Character.isDigit(e.charAt(i - 1))
          && Character.isDigit(e.charAt(i + 1))) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasTrueDivision(String e) {
    for (int i = 0; i < e.length(); i++) {
      if (e.charAt(i) == '/') {
        if (i + 1 < e.length() && e.charAt(i + 1) == '/') {
          i++;
        } else {
          return true;
        }
      }
    }
    return false;
  }

  private List<Dim> dims(String inner, String annotation, int line) {
    List<Dim> out = new ArrayList<>();
    if (inner.isBlank()) {
      return out;
    }
    int depth = 0;
    int start = 0;
    for (int i = 0; i <= inner.length(); i++) {
      char c = i < inner.length() ? inner.charAt(i) : ',';
      if (c == '(' || c == '[') {
        depth++;
      } else if (c == ')' || c == ']') {
        depth--;
      } else if (c == ',' && depth == 0) {
        out.add(dim(inner.substring(start, i).trim(), annotation, line));
        start = i + 1;
      }
      if (depth < 0) {
        throw fail(annotation, line, "its parentheses do not match");
      }
    }
    if (depth != 0) {
      throw fail(annotation, line, "its parentheses do not match");
    }
    return out;
  }

  private Dim dim(String text, String annotation, int line) {
    if (text.isEmpty()) {
      throw fail(annotation, line, "it has an empty size");
    }
    boolean digits = true;
    for (int i = 0; i < text.length(); i++) {
      if (!Character.isDigit(text.charAt(i))) {
        digits = false;
        break;
      }
    }
    if (digits) {
      try {
        return new Dim.Fixed(Long.parseLong(text));
      } catch (NumberFormatException ex) {
        throw fail(annotation, line, "the size " + text + " is too large");
      }
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!(Character.isLetterOrDigit(c) || "_ +-*/%().,".indexOf(c) >= 0)) {
        throw fail(
            annotation,
            line,
            "the size `" + text + "` is neither a number nor a symbolic expression");
      }
    }
    if (!namesASymbol(text)) {
      throw fail(
          annotation,
          line,
          "the size `"
              + text
              + "` is neither a non-negative integer nor a symbolic expression over sizes such as"
              + " s0 (a number is never followed by a letter, and a symbolic size names a symbol)");
    }
    return new Dim.Sym(text);
  }

  /**
   * Whether {@code text} reads as a symbolic size torch prints: it names a symbol ({@code s0}), and
   * no number runs into a letter ({@code 8x}). Allowed characters are checked before.
   */
  static boolean namesASymbol(String text) {
    boolean symbol = false;
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (Character.isLetter(c) || c == '_') {
        symbol = true;
        while (i < text.length()
            && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) {
          i++;
        }
      } else if (Character.isDigit(c)) {
        while (i < text.length() && Character.isDigit(text.charAt(i))) {
          i++;
        }
        if (i < text.length() && (Character.isLetter(text.charAt(i)) || text.charAt(i) == '_')) {
          return false;
        }
      } else {
        i++;
      }
    }
    return symbol;
  }

  /** After the sizes torch may print strides {@code [..]} and a device such as {@code cuda:0}. */
  private void checkSuffix(String rest, String annotation, int line) {
    String r = rest.trim();
    if (r.startsWith("[")) {
      int close = matching(r, 0);
      if (close < 0) {
        throw fail(annotation, line, "its [strides] are not closed");
      }
      r = r.substring(close + 1).trim();
    }
    for (int i = 0; i < r.length(); i++) {
      char c = r.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == ':' || c == '_')) {
        throw fail(
            annotation, line, "it has unexpected text after the sizes: `" + rest.trim() + "`");
      }
    }
  }

  private static int matching(String s, int open) {
    int depth = 0;
    for (int i = open; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '[') {
        depth++;
      } else if (c == ']') {
        depth--;
        if (depth == 0) {
          return i;
        }
      }
    }
    return -1;
  }

  private InputException fail(String annotation, int line, String why) {
    return src.error(
        line, "cannot read the type annotation \"" + annotation + "\": " + why, ADVICE);
  }
}
