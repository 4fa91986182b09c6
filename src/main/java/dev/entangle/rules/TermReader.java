package dev.entangle.rules;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.ShapeException;
import dev.entangle.core.Shapes;
import dev.entangle.core.TypeAnalysis;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.util.Names;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds terms of the core operator language, written as in lemma cases, into one typed e-graph.
 *
 * <pre>
 * (matmul (concat[0] a:f32[2,3] b:f32[2,3]) w:f32[3,5])
 * (mul x (expand[2 3] (scalar[0.5 f32])))
 * </pre>
 *
 * <p>A leaf is a name, declared with a dtype and a shape at its first use ({@code a:f32[2,3]},
 * {@code s:i64[]}) and written bare afterwards; it becomes an {@link Op#TENSOR} node whose id the
 * e-graph's {@link Shapes} maps to the declared type. Attributes in {@code [...]} are integers,
 * floats (written with a {@code .}, stored as double bits) or dtype names ({@code f32}, {@code
 * i64}, {@code bool}, ...; stored as dtype codes).
 */
public final class TermReader {
  private final Map<String, Integer> leafIds = new HashMap<>();
  private final List<TypeInfo> leafTypes = new ArrayList<>();
  private final EGraph<TypeInfo> graph;
  private String text;
  private int pos;
  private int depth;

  /** The deepest nesting of a term read. */
  public static final int MAX_DEPTH = 200;

  /** The largest size of one dimension of a declared leaf. */
  public static final long MAX_SIZE = 1 << 20;

  /** The most elements of a declared leaf (numbers are drawn for every one). */
  public static final long MAX_ELEMENTS = 1 << 22;

  private final OpTable table = new OpTable();

  public TermReader() {
    graph = new EGraph<>(new TypeAnalysis(new Shapes(table, id -> leafTypes.get((int) id))));
  }

  /** The operator table of the e-graph's terms. */
  public OpTable table() {
    return table;
  }

  /** The number of leaf tensors declared so far; leaf ids are 0 to this count. */
  public int leafCount() {
    return leafTypes.size();
  }

  /** The name leaf {@code id} was declared with. */
  public String leafName(int id) {
    for (Map.Entry<String, Integer> e : leafIds.entrySet()) {
      if (e.getValue() == id) {
        return e.getKey();
      }
    }
    return "tensor" + id;
  }

  /** The declared type of leaf {@code id} (an {@link Op#TENSOR} node's attribute). */
  public TypeInfo leafType(int id) {
    return leafTypes.get(id);
  }

  public EGraph<TypeInfo> graph() {
    return graph;
  }

  /** Adds the term written in {@code source} and returns its class. */
  public int add(String source) {
    text = source;
    pos = 0;
    depth = 0;
    int c = term();
    skipSpace();
    if (pos < text.length()) {
      throw error("unexpected text after the term");
    }
    return c;
  }

  /** The class of a declared leaf. */
  int leaf(String name) {
    Integer id = leafIds.get(name);
    if (id == null) {
      throw new IllegalArgumentException("no leaf named " + name);
    }
    return graph.lookup(ENode.leaf(Op.TENSOR.id(), id));
  }

  /**
   * A readable name of a class: the name of a leaf in it, else its first node written as a term
   * (deep or cyclic classes as {@code c<id>}).
   */
  String nameOf(int cls) {
    return nameOf(cls, 0);
  }

  private String nameOf(int cls, int depth) {
    int c = graph.find(cls);
    for (var e : leafIds.entrySet()) {
      int leaf = graph.lookup(ENode.leaf(Op.TENSOR.id(), e.getValue()));
      if (leaf >= 0 && graph.find(leaf) == c) {
        return e.getKey();
      }
    }
    if (depth > 4 || graph.nodes(c).isEmpty()) {
      return "c" + c;
    }
    ENode n = graph.nodes(c).get(0);
    StringBuilder sb = new StringBuilder("(").append(Op.of(n.op()).symbol());
    if (n.attrCount() > 0) {
      sb.append(Arrays.toString(n.attrs()).replace(",", ""));
    }
    for (int i = 0; i < n.arity(); i++) {
      sb.append(' ').append(nameOf(n.child(i), depth + 1));
    }
    return sb.append(')').toString();
  }

  /** A dtype code from a short ({@code f32}) or a full ({@code float32}) name, or -1. */
  /**
   * A dtype by torch.fx abbreviation ({@code f32}) or name ({@code float32}, {@code bool}); -1 when
   * unknown.
   */
  static int dtype(String name) {
    Dtype d = Dtype.byAbbreviation(name);
    return d != null ? d.code() : Dtype.code(name);
  }

  private int term() {
    skipSpace();
    if (pos >= text.length()) {
      throw error("a term is missing");
    }
    if (text.charAt(pos) != '(') {
      return leafTerm();
    }
    if (++depth > MAX_DEPTH) {
      throw error("the term is nested more than " + MAX_DEPTH + " levels deep");
    }
    int c = node();
    depth--;
    return c;
  }

  private int node() {
    int start = pos;
    pos++;
    String head = word();
    Op op = Op.bySymbol(head);
    if (op == null) {
      throw error("unknown operator '" + head + "'" + OperatorNames.hint(head));
    }
    long[] attrs = ENode.NO_ATTRS;
    if (pos < text.length() && text.charAt(pos) == '[') {
      attrs = attributes();
    }
    List<Integer> kids = new ArrayList<>();
    while (true) {
      skipSpace();
      if (pos >= text.length()) {
        pos = start;
        throw error("this '(' is never closed");
      }
      if (text.charAt(pos) == ')') {
        pos++;
        break;
      }
      kids.add(term());
    }
    try {
      return graph.add(
          new ENode(op.id(), attrs, kids.stream().mapToInt(Integer::intValue).toArray()));
    } catch (ShapeException e) {
      pos = start;
      throw error("ill-typed term: " + e.getMessage());
    } catch (IndexOutOfBoundsException | ArithmeticException | IllegalStateException e) {
      // the shape rules assume the operator's operands and attributes are there
      pos = start;
      throw error(
          "ill-typed term: '"
              + head
              + "' does not take "
              + kids.size()
              + " operand(s) and "
              + attrs.length
              + " attribute(s) like these");
    }
  }

  private long[] attributes() {
    pos++;
    List<Long> out = new ArrayList<>();
    while (true) {
      skipSpace();
      if (pos >= text.length()) {
        throw error("'[' is never closed");
      }
      if (text.charAt(pos) == ']') {
        pos++;
        return out.stream().mapToLong(Long::longValue).toArray();
      }
      String w = word();
      out.add(attribute(w));
    }
  }

  private long attribute(String w) {
    int dt = dtype(w);
    if (dt >= 0) {
      return dt;
    }
    try {
      if (w.contains(".") || w.contains("e") || w.equals("inf") || w.equals("-inf")) {
        double d =
            w.endsWith("inf")
                ? (w.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY)
                : Double.parseDouble(w);
        return Double.doubleToLongBits(d);
      }
      return Long.parseLong(w);
    } catch (NumberFormatException e) {
      throw error(
          "an attribute is an integer, a float such as 0.5 or a dtype such as f32; got '"
              + w
              + "'");
    }
  }

  private int leafTerm() {
    int start = pos;
    String name = word();
    if (name.isEmpty()) {
      throw error("expected a leaf name or '('");
    }
    int colon = name.indexOf(':');
    if (colon < 0) {
      Integer id = leafIds.get(name);
      if (id == null) {
        pos = start;
        throw error(
            "leaf '"
                + name
                + "' is used before it is declared (declare it as "
                + name
                + ":f32[2,3])");
      }
      return graph.add(ENode.leaf(Op.TENSOR.id(), id));
    }
    String bare = name.substring(0, colon);
    int dt = dtype(name.substring(colon + 1));
    if (dt < 0) {
      pos = start;
      throw error("unknown dtype '" + name.substring(colon + 1) + "'");
    }
    if (pos >= text.length() || text.charAt(pos) != '[') {
      throw error("a declared leaf has a shape, as in " + bare + ":f32[2,3]");
    }
    int close = text.indexOf(']', pos);
    if (close < 0) {
      throw error("'[' is never closed");
    }
    String dims = text.substring(pos + 1, close).strip();
    pos = close + 1;
    long[] shape;
    try {
      shape =
          dims.isEmpty()
              ? new long[0]
              : Arrays.stream(dims.split(",")).mapToLong(s -> Long.parseLong(s.strip())).toArray();
    } catch (NumberFormatException e) {
      pos = start;
      throw error("a shape is a list of integers such as [2,3]");
    }
    long elements = 1;
    for (long d : shape) {
      if (d < 0 || d > MAX_SIZE) {
        pos = start;
        throw error("a size of a shape is an integer from 0 to " + MAX_SIZE + ", not " + d);
      }
      elements *= d;
      if (elements > MAX_ELEMENTS) {
        pos = start;
        throw error("a leaf has at most " + MAX_ELEMENTS + " elements; give a smaller shape");
      }
    }
    TypeInfo type = TypeInfo.tensor(shape, dt);
    Integer id = leafIds.get(bare);
    if (id != null) {
      if (!leafTypes.get(id).equals(type)) {
        pos = start;
        throw error("leaf '" + bare + "' was declared as " + leafTypes.get(id) + " before");
      }
    } else {
      id = leafTypes.size();
      leafTypes.add(type);
      leafIds.put(bare, id);
    }
    return graph.add(ENode.leaf(Op.TENSOR.id(), id));
  }

  /** A run of characters up to a space, a bracket or a parenthesis. */
  private String word() {
    int start = pos;
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (Character.isWhitespace(c) || c == '(' || c == ')' || c == '[' || c == ']') {
        break;
      }
      pos++;
    }
    return text.substring(start, pos);
  }

  private void skipSpace() {
    while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
      pos++;
    }
  }

  private IllegalArgumentException error(String message) {
    return new IllegalArgumentException(
        "column " + (pos + 1) + " of '" + Names.shorten(text) + "': " + message);
  }
}
