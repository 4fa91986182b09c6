package dev.entangle.egraph;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The changes made to one e-graph, in order, with its names numbered by first appearance.
 *
 * <p>An e-graph is a deterministic function of the changes made to it ({@link EGraph} fixes every
 * iteration order), so two e-graphs with equal journals are in the same state. A <em>name</em> is
 * attribute 0 of a node whose operator the journal was told names things (a leaf that stands for a
 * value of the outside world, say): the journal writes it as the number of distinct names seen
 * before it, and keeps the analysis fact of every named node (the only facts the e-graph takes from
 * outside). So two e-graphs built alike over different values of alike facts have equal journals,
 * and are in the same state up to the names, as long as nothing that reads the e-graph tells names
 * apart beyond equality ({@link SaturationMemo}).
 *
 * <p>Only changes are written: adding a node already present, a union of equal classes, rebuilding
 * a clean graph and taking no touched classes leave the e-graph as it was.
 */
public final class Journal {
  static final long ADD = 1;
  static final long UNION = 2;
  static final long REBUILD = 3;
  static final long TAKE_TOUCHED = 4;
  static final long TOUCH_ALL = 5;

  private final boolean[] naming;
  private long[] records = new long[512];
  private int length;
  private long hash = 0x2545F4914F6CDD1DL;
  private final Map<Long, Integer> ordinals = new HashMap<>();
  private long[] names = new long[16];
  private int nameCount;
  private final List<Object> facts = new ArrayList<>();

  /**
   * @param namingOps the operators whose attribute 0 is a name
   */
  public Journal(int... namingOps) {
    int max = -1;
    for (int op : namingOps) {
      max = Math.max(max, op);
    }
    naming = new boolean[max + 1];
    for (int op : namingOps) {
      naming[op] = true;
    }
  }

  /** Whether attribute 0 of a node with this operator is a name. */
  boolean names(int op) {
    return op >= 0 && op < naming.length && naming[op];
  }

  void added(ENode n, int id, Object fact) {
    boolean named = names(n.op) && n.attrs.length > 0;
    write(ADD);
    write(n.op);
    write(n.attrs.length);
    for (int i = 0; i < n.attrs.length; i++) {
      write(i == 0 && named ? ordinal(n.attrs[0]) : n.attrs[i]);
    }
    write(n.children.length);
    for (int c : n.children) {
      write(c);
    }
    write(id);
    if (named) {
      facts.add(fact);
      hash = mix(hash, fact == null ? 0 : fact.hashCode());
    }
  }

  void united(int a, int b) {
    write(UNION);
    write(a);
    write(b);
  }

  void rebuilt() {
    write(REBUILD);
  }

  void tookTouched() {
    write(TAKE_TOUCHED);
  }

  void touchedAll() {
    write(TOUCH_ALL);
  }

  /** The number of longs written. */
  int length() {
    return length;
  }

  /** A hash of everything written so far (records and facts). */
  long hash() {
    return hash;
  }

  /** The name numbered {@code ordinal}. */
  long name(int ordinal) {
    return names[ordinal];
  }

  /** The number of named nodes added. */
  int factCount() {
    return facts.size();
  }

  /** Whether the first {@code length} longs and {@code facts} facts equal the given ones. */
  boolean startsWith(long[] otherRecords, int length, List<Object> otherFacts) {
    return length <= this.length
        && otherFacts.size() <= facts.size()
        && Arrays.equals(records, 0, length, otherRecords, 0, length)
        && facts.subList(0, otherFacts.size()).equals(otherFacts);
  }

  /** A copy of the records from {@code from} to {@code to}. */
  long[] records(int from, int to) {
    return Arrays.copyOfRange(records, from, to);
  }

  /** A copy of the first {@code count} facts. */
  List<Object> facts(int count) {
    return new ArrayList<>(facts.subList(0, count));
  }

  /** The ordinal of a name already seen. */
  long ordinalOf(long name) {
    Integer known = ordinals.get(name);
    if (known == null) {
      throw new IllegalStateException("name " + name + " was never journaled");
    }
    return known;
  }

  /** Writes records another journal wrote (names as ordinals), as if the changes were made. */
  void append(long[] more) {
    for (long x : more) {
      write(x);
    }
  }

  private long ordinal(long name) {
    Integer known = ordinals.get(name);
    if (known != null) {
      return known;
    }
    if (nameCount == names.length) {
      names = Arrays.copyOf(names, nameCount * 2);
    }
    names[nameCount] = name;
    ordinals.put(name, nameCount);
    return nameCount++;
  }

  private void write(long x) {
    if (length == records.length) {
      records = Arrays.copyOf(records, length * 2);
    }
    records[length++] = x;
    hash = mix(hash, x);
  }

  private static long mix(long h, long x) {
    h = (h ^ x) * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 31);
  }
}
