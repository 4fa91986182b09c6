package dev.entangle.egraph;

import java.util.ArrayList;
import java.util.List;

/**
 * A pattern compiled for matching: every variable gets a slot (class and attribute slots
 * separately, in order of first occurrence) and the tree refers to slots instead of names.
 */
final class CompiledPattern {
  static final byte LIT = 0;
  static final byte VAR = 1;
  static final byte ANY = 2;

  /** A compiled pattern tree node: a class variable ({@code op < 0}) or an operator node. */
  static final class Code {
    final int op;
    final int slot;
    final byte[] attrKinds;
    /** Per attribute: the literal value for LIT, the slot for VAR. */
    final long[] attrArgs;
    final Code[] children;

    Code(int slot) {
      this.op = -1;
      this.slot = slot;
      this.attrKinds = new byte[0];
      this.attrArgs = new long[0];
      this.children = new Code[0];
    }

    Code(int op, byte[] attrKinds, long[] attrArgs, Code[] children) {
      this.op = op;
      this.slot = -1;
      this.attrKinds = attrKinds;
      this.attrArgs = attrArgs;
      this.children = children;
    }

    boolean isVar() {
      return op < 0;
    }
  }

  final Pattern pattern;
  final String[] clsNames;
  final String[] attrNames;
  final Code root;

  CompiledPattern(Pattern pattern) {
    this.pattern = pattern;
    List<String> cls = new ArrayList<>(pattern.classVars());
    List<String> attrs = new ArrayList<>(pattern.attrVars());
    this.clsNames = cls.toArray(new String[0]);
    this.attrNames = attrs.toArray(new String[0]);
    this.root = compile(pattern, cls, attrs);
  }

  private static Code compile(Pattern p, List<String> cls, List<String> attrs) {
    if (p instanceof Pattern.Var v) {
      return new Code(cls.indexOf(v.name()));
    }
    Pattern.Node n = (Pattern.Node) p;
    int k = n.attrs().size();
    byte[] kinds = new byte[k];
    long[] args = new long[k];
    for (int i = 0; i < k; i++) {
      AttrPattern a = n.attrs().get(i);
      if (a instanceof AttrPattern.Lit lit) {
        kinds[i] = LIT;
        args[i] = lit.value();
      } else if (a instanceof AttrPattern.Var v) {
        kinds[i] = VAR;
        args[i] = attrs.indexOf(v.name());
      } else {
        kinds[i] = ANY;
      }
    }
    Code[] children = new Code[n.children().size()];
    for (int i = 0; i < children.length; i++) {
      children[i] = compile(n.children().get(i), cls, attrs);
    }
    return new Code(n.op(), kinds, args, children);
  }
}
