package dev.entangle.importer.hlo;

import dev.entangle.importer.SourceFile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Typed reading of one instruction's raw attribute texts ({@code dimensions={0,1}}, {@code
 * slice={[0:256], [0:2048]}}, {@code replica_groups={{0,1}}}, {@code direction=LE}, {@code
 * custom_call_target="..."}); a value that does not read is an error naming the line.
 */
final class HloAttributes {
  private final SourceFile src;
  private final HloInstruction ins;

  HloAttributes(SourceFile src, HloInstruction ins) {
    this.src = src;
    this.ins = ins;
  }

  boolean has(String key) {
    return ins.attribute(key) != null;
  }

  /** {@code {0,1}}, {@code {}} or a bare integer; null when absent. */
  long[] ints(String key) {
    String v = ins.attribute(key);
    if (v == null) {
      return null;
    }
    String body = v.startsWith("{") && v.endsWith("}") ? v.substring(1, v.length() - 1) : v;
    try {
      return parseInts(body);
    } catch (NumberFormatException e) {
      throw bad(key, "a list of integers such as {0,1}");
    }
  }

  /** Like {@link #ints} but required. */
  long[] requiredInts(String key) {
    long[] v = ints(key);
    if (v == null) {
      throw missing(key);
    }
    return v;
  }

  /** An integer attribute, or {@code dflt} when absent. */
  long integer(String key, long dflt) {
    String v = ins.attribute(key);
    if (v == null) {
      return dflt;
    }
    try {
      return Long.parseLong(v.strip());
    } catch (NumberFormatException e) {
      throw bad(key, "an integer");
    }
  }

  /**
   * A string attribute, unquoted ({@code "AwsNeuronRmsNorm"}); a bare word as it is; null when
   * absent.
   */
  String string(String key) {
    String v = ins.attribute(key);
    return v == null ? null : unquote(v);
  }

  /**
   * A computation named by an attribute ({@code to_apply=%add.3}), without {@code %}; null when
   * absent.
   */
  String computation(String key) {
    String v = ins.attribute(key);
    if (v == null) {
      return null;
    }
    return v.startsWith("%") ? v.substring(1) : v;
  }

  /** {@code slice={[0:256], [0:2048:2]}}: per dim {start, limit, stride}. */
  long[][] sliceRanges(String key) {
    String v = ins.attribute(key);
    if (v == null) {
      throw missing(key);
    }
    String body = v.strip();
    if (!body.startsWith("{") || !body.endsWith("}")) {
      throw bad(key, "ranges such as {[0:256], [0:2048]}");
    }
    List<long[]> out = new ArrayList<>();
    for (String r : splitTopLevel(body.substring(1, body.length() - 1))) {
      String t = r.strip();
      if (t.isEmpty()) {
        continue;
      }
      if (!t.startsWith("[") || !t.endsWith("]")) {
        throw bad(key, "ranges such as {[0:256], [0:2048]}");
      }
      String[] parts = t.substring(1, t.length() - 1).split(":");
      try {
        long start = Long.parseLong(parts[0].strip());
        long limit = Long.parseLong(parts[1].strip());
        long stride = parts.length > 2 ? Long.parseLong(parts[2].strip()) : 1;
        out.add(new long[] {start, limit, stride});
      } catch (RuntimeException e) {
        throw bad(key, "ranges such as {[0:256], [0:2048]}");
      }
    }
    return out.toArray(new long[0][]);
  }

  /**
   * Groups of ids: {@code {{0,1},{2,3}}}, {@code {}} (no groups), or the iota form {@code
   * [G,S]<=[D...]} with an optional transpose {@code T(p...)}; null when absent. Ids are at most
   * {@value #MAX_ID}.
   */
  List<List<Integer>> groups(String key) {
    String v = ins.attribute(key);
    if (v == null) {
      return null;
    }
    String t = v.replaceAll("\\s+", "");
    if (t.startsWith("[")) {
      return iotaGroups(key, t);
    }
    if (!t.startsWith("{") || !t.endsWith("}")) {
      throw bad(key, "groups such as {{0,1},{2,3}} or [2,2]<=[4]");
    }
    List<List<Integer>> out = new ArrayList<>();
    for (String g : splitTopLevel(t.substring(1, t.length() - 1))) {
      if (g.isEmpty()) {
        continue;
      }
      if (!g.startsWith("{") || !g.endsWith("}")) {
        throw bad(key, "groups such as {{0,1},{2,3}}");
      }
      List<Integer> ids = new ArrayList<>();
      for (long id : naturals(key, g.substring(1, g.length() - 1), MAX_ID)) {
        ids.add((int) id);
      }
      out.add(ids);
    }
    return out;
  }

  /** The largest device id, and the most devices an iota list may name. */
  static final int MAX_ID = 1 << 20;

  private static final Pattern IOTA =
      Pattern.compile("\\[([0-9,]+)]<=\\[([0-9,]+)](?:T\\(([0-9,]+)\\))?");

  /**
   * {@code [G,S]<=[D...]T(p...)}: iota over the dims D, transposed by p, cut into G groups of S.
   */
  private List<List<Integer>> iotaGroups(String key, String t) {
    Matcher m = IOTA.matcher(t);
    if (!m.matches()) {
      throw bad(key, "an iota list such as [2,2]<=[4] or [2,2]<=[2,2]T(1,0)");
    }
    long[] shape = naturals(key, m.group(1), MAX_ID);
    long[] dims = naturals(key, m.group(2), MAX_ID);
    long n = 1;
    for (long d : dims) {
      n *= d;
      if (n > MAX_ID) {
        throw bad(key, "an iota list of at most " + MAX_ID + " ids");
      }
    }
    if (shape.length != 2 || shape[0] * shape[1] != n) {
      throw bad(key, "an iota list [G,S]<=[...] of G*S ids");
    }
    int[] ids = new int[(int) n];
    for (int i = 0; i < n; i++) {
      ids[i] = i;
    }
    if (m.group(3) != null) {
      long[] perm = naturals(key, m.group(3), MAX_ID);
      boolean[] seen = new boolean[dims.length];
      for (long p : perm) {
        if (perm.length != dims.length || p >= dims.length || seen[(int) p]) {
          throw bad(key, "an iota list whose T(...) permutes its " + dims.length + " dims");
        }
        seen[(int) p] = true;
      }
      ids = transposeIota(dims, perm);
    }
    List<List<Integer>> out = new ArrayList<>();
    for (int g = 0; g < shape[0]; g++) {
      List<Integer> group = new ArrayList<>();
      for (int s = 0; s < shape[1]; s++) {
        group.add(ids[(int) (g * shape[1] + s)]);
      }
      out.add(group);
    }
    return out;
  }

  /** Comma-separated non-negative integers of at most {@code max}. */
  private long[] naturals(String key, String body, long max) {
    List<Long> out = new ArrayList<>();
    for (String p : body.split(",", -1)) {
      String d = p.strip();
      if (d.isEmpty() && body.isBlank()) {
        continue;
      }
      long v = HloScanner.parseNatural(d, max);
      if (d.isEmpty() || v < 0) {
        throw bad(key, "a list of ids from 0 to " + max);
      }
      out.add(v);
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  /** The row-major elements of iota(dims) transposed by perm. */
  static int[] transposeIota(long[] dims, long[] perm) {
    int rank = dims.length;
    long[] outDims = new long[rank];
    for (int i = 0; i < rank; i++) {
      outDims[i] = dims[(int) perm[i]];
    }
    long[] strides = new long[rank];
    long s = 1;
    for (int i = rank - 1; i >= 0; i--) {
      strides[i] = s;
      s *= dims[i];
    }
    int[] out = new int[(int) s];
    long[] idx = new long[rank];
    for (int k = 0; k < out.length; k++) {
      long flat = 0;
      for (int i = 0; i < rank; i++) {
        flat += idx[i] * strides[(int) perm[i]];
      }
      out[k] = (int) flat;
      for (int i = rank - 1; i >= 0; i--) {
        if (++idx[i] < outDims[i]) {
          break;
        }
        idx[i] = 0;
      }
    }
    return out;
  }

  /**
   * {@code padding=0_0x1_2} (low_high or low_high_interior per dim): per dim {low, high, interior}.
   */
  long[][] padding(String key) {
    String v = ins.attribute(key);
    if (v == null) {
      throw missing(key);
    }
    String[] dims = v.strip().split("x");
    long[][] out = new long[dims.length][];
    try {
      for (int i = 0; i < dims.length; i++) {
        String[] p = dims[i].split("_");
        out[i] =
            new long[] {
              Long.parseLong(p[0]), Long.parseLong(p[1]), p.length > 2 ? Long.parseLong(p[2]) : 0
            };
      }
    } catch (RuntimeException e) {
      throw bad(key, "a padding such as 0_0x1_2");
    }
    return out;
  }

  /**
   * {@code metadata={op_type="..." source_file="..." source_line=46}} as a map of unquoted values.
   */
  Map<String, String> metadata() {
    String v = ins.attribute("metadata");
    Map<String, String> out = new LinkedHashMap<>();
    if (v == null || !v.startsWith("{") || !v.endsWith("}")) {
      return out;
    }
    String body = v.substring(1, v.length() - 1);
    int i = 0;
    while (i < body.length()) {
      while (i < body.length() && Character.isWhitespace(body.charAt(i))) {
        i++;
      }
      int eq = body.indexOf('=', i);
      if (eq < 0) {
        break;
      }
      String key = body.substring(i, eq).strip();
      int j = eq + 1;
      String value;
      if (j < body.length() && body.charAt(j) == '"') {
        int end = j + 1;
        while (end < body.length() && body.charAt(end) != '"') {
          end += body.charAt(end) == '\\' ? 2 : 1;
        }
        value = unquote(body.substring(j, Math.min(end + 1, body.length())));
        i = end + 1;
      } else {
        int end = j;
        while (end < body.length() && !Character.isWhitespace(body.charAt(end))) {
          end++;
        }
        value = body.substring(j, end);
        i = end;
      }
      out.put(key, value);
    }
    return out;
  }

  /** The {@code sharding}, read (its raw text stays the attribute's); null when absent. */
  HloSharding sharding() {
    String v = ins.attribute("sharding");
    if (v == null) {
      return null;
    }
    try {
      return HloSharding.parse(v);
    } catch (IllegalArgumentException e) {
      throw src.error(
          ins.line(),
          "the sharding of `" + ins.name() + "` does not read (" + e.getMessage() + ")",
          HloParser.ADVICE);
    }
  }

  /** {@code frontend_attributes={_xla_key="value", ...}} as a map of unquoted values. */
  Map<String, String> frontendAttributes() {
    String v = ins.attribute("frontend_attributes");
    Map<String, String> out = new LinkedHashMap<>();
    if (v == null) {
      return out;
    }
    if (!v.startsWith("{") || !v.endsWith("}")) {
      throw bad("frontend_attributes", "a map such as {_xla_key=\"value\"}");
    }
    for (String entry : splitTopLevel(v.substring(1, v.length() - 1))) {
      if (entry.isBlank()) {
        continue;
      }
      int eq = entry.indexOf('=');
      String key = eq < 0 ? "" : entry.substring(0, eq).strip();
      if (!HloScanner.isNameChars(key)) {
        throw bad("frontend_attributes", "a map such as {_xla_key=\"value\"}");
      }
      out.put(key, unquote(entry.substring(eq + 1)));
    }
    return out;
  }

  /**
   * {@code backend_config}: a string (unquoted) or a JSON object (as printed); null when absent.
   */
  String backendConfig() {
    String v = ins.attribute("backend_config");
    if (v == null) {
      return null;
    }
    if (v.startsWith("\"") || (v.startsWith("{") && v.endsWith("}"))) {
      return unquote(v);
    }
    throw bad("backend_config", "a string or a JSON object");
  }

  /** Splits at commas outside brackets and strings. */
  static List<String> splitTopLevel(String s) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int start = 0;
    boolean quoted = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (quoted) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          quoted = false;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == '{' || c == '[' || c == '(') {
        depth++;
      } else if (c == '}' || c == ']' || c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        out.add(s.substring(start, i));
        start = i + 1;
      }
    }
    out.add(s.substring(start));
    return out;
  }

  /** A double-quoted string with C escapes, unquoted; other text as it is. */
  static String unquote(String v) {
    String t = v.strip();
    if (t.length() < 2 || !t.startsWith("\"") || !t.endsWith("\"")) {
      return t;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i < t.length() - 1; i++) {
      char c = t.charAt(i);
      if (c == '\\' && i + 1 < t.length() - 1) {
        char n = t.charAt(++i);
        sb.append(
            switch (n) {
              case 'n' -> '\n';
              case 't' -> '\t';
              case 'r' -> '\r';
              default -> n;
            });
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  private static long[] parseInts(String body) {
    List<Long> out = new ArrayList<>();
    for (String p : body.split(",")) {
      if (!p.isBlank()) {
        out.add(Long.parseLong(p.strip()));
      }
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  private RuntimeException missing(String key) {
    return src.error(
        ins.line(),
        "`" + ins.name() + "` (" + ins.opcode() + ") has no `" + key + "` attribute",
        HloParser.ADVICE);
  }

  private RuntimeException bad(String key, String expected) {
    return src.error(
        ins.line(),
        "the attribute `" + key + "` of `" + ins.name() + "` is not " + expected,
        HloParser.ADVICE);
  }
}
