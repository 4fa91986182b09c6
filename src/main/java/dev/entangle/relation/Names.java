package dev.entangle.relation;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The spelling of tensor names in expressions: plain names, rank prefixes and backquotes. */
final class Names {
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*");

  /** {@code rK.rest}: the rank prefix of a G_d reference. */
  static final Pattern RANK_REF = Pattern.compile("r([0-9]+)\\.(.*)", Pattern.DOTALL);

  private Names() {}

  static boolean isPlain(String name) {
    return PLAIN.matcher(name).matches();
  }

  static boolean isNameStart(char c) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
  }

  static boolean isNamePart(char c) {
    return isNameStart(c) || (c >= '0' && c <= '9') || c == '.';
  }

  /** A G_s tensor: plain unless that would read as a rank reference or is not a plain name. */
  static String gs(String name) {
    Matcher m = RANK_REF.matcher(name);
    return isPlain(name) && !m.matches() ? name : quote(name);
  }

  /** A G_d tensor of rank {@code rank}. */
  static String gd(int rank, String name) {
    return "r" + rank + "." + (isPlain(name) ? name : quote(name));
  }

  private static String quote(String name) {
    return "`" + name + "`";
  }
}
