package dev.entangle.importer.hlo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An instruction's {@code sharding={...}} as XLA prints it: {@code {replicated}}, {@code {manual}},
 * {@code {unknown}}, {@code {maximal device=N}}, tiled {@code {devices=[2,1]0,1}} or in iota form
 * {@code {devices=[2,2]<=[4]}} / {@code <=[2,2]T(1,0)}, with {@code last_tile_dim_replicate},
 * {@code last_tile_dims={...}}, {@code metadata={...}}, {@code shard_as N} / {@code shard_like N},
 * or a tuple of these ({@code {{replicated}, {maximal device=0}}}). The graph importer does not use
 * it (an SPMD program's values are each rank's own): it is read to reject damaged text, and the raw
 * text stays on the instruction. {@code HloShardingRelation} turns the parameters' shardings of a
 * program before partitioning into the input relation.
 */
sealed interface HloSharding {
  /** The same value on every device. */
  record Replicated() implements HloSharding {}

  /** Partitioned by hand (inside shard_map); no layout to read. */
  record Manual() implements HloSharding {}

  /** Not decided yet. */
  record Unknown() implements HloSharding {}

  /** The whole value on one device. */
  record Maximal(long device) implements HloSharding {}

  /**
   * Tiles over a device mesh.
   *
   * @param tiles the mesh's shape
   * @param devices the device of each tile, row-major
   * @param replicatedLastDim whether the mesh's last dim replicates
   */
  record Tiled(long[] tiles, long[] devices, boolean replicatedLastDim) implements HloSharding {}

  /** One sharding per element of a tuple. */
  record Tuple(List<HloSharding> items) implements HloSharding {}

  /** The largest device id. */
  long MAX_DEVICE = HloAttributes.MAX_ID;

  /**
   * Reads a sharding's text (braces included); throws {@link IllegalArgumentException} saying why.
   */
  static HloSharding parse(String text) {
    String t = text.strip();
    if (!t.startsWith("{") || !t.endsWith("}")) {
      throw new IllegalArgumentException("a sharding is written in braces, such as {replicated}");
    }
    String body = t.substring(1, t.length() - 1).strip();
    if (body.startsWith("{") || body.isEmpty()) {
      List<HloSharding> items = new ArrayList<>();
      for (String piece : HloAttributes.splitTopLevel(body)) {
        if (!piece.isBlank()) {
          String p = piece.strip();
          if (!p.startsWith("{") || !p.endsWith("}")) {
            throw new IllegalArgumentException("a tuple sharding lists shardings in braces");
          }
          items.add(single(p.substring(1, p.length() - 1).strip()));
        }
      }
      return new Tuple(items);
    }
    return single(body);
  }

  /** The words of one sharding (without its braces). */
  private static HloSharding single(String body) {
    Words w = new Words(body);
    HloSharding out = null;
    boolean replicateLast = false;
    while (w.more()) {
      String word = w.word();
      switch (word) {
        case "replicated" -> out = once(out, new Replicated());
        case "manual" -> out = once(out, new Manual());
        case "unknown" -> out = once(out, new Unknown());
        case "maximal" -> {
          w.expect("device=");
          out = once(out, new Maximal(w.number(MAX_DEVICE)));
        }
        case "devices=" -> out = once(out, w.tiles());
        case "last_tile_dim_replicate" -> replicateLast = true;
        case "last_tile_dims=", "metadata=" -> w.braces();
        case "shard_as", "shard_like" -> w.number(Integer.MAX_VALUE);
        case "shard_barrier_from", "shard_barrier_to" -> {}
        default -> throw new IllegalArgumentException("`" + word + "` is not a sharding keyword");
      }
    }
    if (out == null) {
      throw new IllegalArgumentException("a sharding names replicated, manual, maximal or devices");
    }
    if (out instanceof Tiled tiled) {
      return new Tiled(tiled.tiles(), tiled.devices(), replicateLast);
    }
    return out;
  }

  private static HloSharding once(HloSharding before, HloSharding now) {
    if (before != null) {
      throw new IllegalArgumentException("a sharding of two kinds");
    }
    return now;
  }

  /** A cursor over a sharding's words. */
  final class Words {
    private static final Pattern WORD = Pattern.compile("[A-Za-z_]+=?");
    private static final Pattern IOTA = Pattern.compile("<=\\[([0-9,]+)](?:T\\(([0-9,]+)\\))?");
    private final String s;
    private int pos;

    Words(String s) {
      this.s = s;
    }

    boolean more() {
      while (pos < s.length() && (Character.isWhitespace(s.charAt(pos)) || s.charAt(pos) == ',')) {
        pos++;
      }
      return pos < s.length();
    }

    String word() {
      Matcher m = WORD.matcher(s).region(pos, s.length());
      if (!m.lookingAt()) {
        throw new IllegalArgumentException("unexpected `" + s.substring(pos) + "`");
      }
      pos = m.end();
      return m.group();
    }

    void expect(String w) {
      more();
      if (!s.startsWith(w, pos)) {
        throw new IllegalArgumentException("expected `" + w + "`");
      }
      pos += w.length();
    }

    long number(long max) {
      more();
      int start = pos;
      while (pos < s.length() && Character.isDigit(s.charAt(pos))) {
        pos++;
      }
      long v = HloScanner.parseNatural(s.substring(start, pos), max);
      if (start == pos || v < 0) {
        throw new IllegalArgumentException("expected a number from 0 to " + max);
      }
      return v;
    }

    void braces() {
      more();
      if (pos >= s.length() || s.charAt(pos) != '{') {
        throw new IllegalArgumentException("expected `{`");
      }
      int depth = 0;
      boolean quoted = false;
      for (; pos < s.length(); pos++) {
        char c = s.charAt(pos);
        if (quoted) {
          if (c == '\\') {
            pos++;
          } else if (c == '"') {
            quoted = false;
          }
        } else if (c == '"') {
          quoted = true;
        } else if (c == '{') {
          depth++;
        } else if (c == '}' && --depth == 0) {
          pos++;
          return;
        }
      }
      throw new IllegalArgumentException("a `{` is never closed");
    }

    /** {@code [2,2]0,1,2,3} or {@code [2,2]<=[4]} / {@code <=[2,2]T(1,0)}. */
    Tiled tiles() {
      long[] tiles = bracketed();
      long n = 1;
      for (long d : tiles) {
        n *= Math.max(d, 1);
        if (n > MAX_DEVICE) {
          throw new IllegalArgumentException(
              "a device mesh of more than " + MAX_DEVICE + " devices");
        }
      }
      Matcher m = IOTA.matcher(s).region(pos, s.length());
      long[] devices = new long[(int) n];
      if (m.lookingAt()) {
        pos = m.end();
        long count = 1;
        for (long d : ints(m.group(1))) {
          count *= Math.max(d, 1);
          if (count > MAX_DEVICE) {
            throw new IllegalArgumentException("an iota list of more than " + MAX_DEVICE + " ids");
          }
        }
        if (count != n) {
          throw new IllegalArgumentException("the iota list does not fill the device mesh");
        }
        long[] reshape = ints(m.group(1));
        long[] perm = m.group(2) == null ? identity(reshape.length) : ints(m.group(2));
        if (!Arrays.equals(sorted(perm), identity(reshape.length))) {
          throw new IllegalArgumentException(
              "T(...) is not a permutation of the " + reshape.length + " iota dims");
        }
        int[] order = HloAttributes.transposeIota(reshape, perm);
        for (int i = 0; i < n; i++) {
          devices[i] = order[i];
        }
        return new Tiled(tiles, devices, false);
      }
      for (int i = 0; i < n; i++) {
        if (!more() || !Character.isDigit(s.charAt(pos))) {
          throw new IllegalArgumentException(
              "the device mesh needs " + n + " device ids, " + i + " are listed");
        }
        devices[i] = number(MAX_DEVICE); // after the comma that more() skips
      }
      return new Tiled(tiles, devices, false);
    }

    private static long[] identity(int n) {
      long[] out = new long[n];
      for (int i = 0; i < n; i++) {
        out[i] = i;
      }
      return out;
    }

    private static long[] sorted(long[] a) {
      long[] out = a.clone();
      Arrays.sort(out);
      return out;
    }

    private long[] bracketed() {
      more();
      int close = s.indexOf(']', pos);
      if (pos >= s.length() || s.charAt(pos) != '[' || close < 0) {
        throw new IllegalArgumentException("expected a mesh shape such as [2,1]");
      }
      long[] out = ints(s.substring(pos + 1, close));
      pos = close + 1;
      return out;
    }

    private static long[] ints(String list) {
      String[] parts = list.split(",", -1);
      long[] out = new long[parts.length];
      for (int i = 0; i < parts.length; i++) {
        out[i] = HloScanner.parseNatural(parts[i].strip(), MAX_DEVICE);
        if (parts[i].isBlank() || out[i] < 0) {
          throw new IllegalArgumentException("expected numbers from 0 to " + MAX_DEVICE);
        }
      }
      return out;
    }
  }
}
