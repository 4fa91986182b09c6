package dev.entangle.egraph;

import java.util.ArrayList;
import java.util.List;

/**
 * A pattern compiled for matching into a small program over registers (class ids), in the spirit of
 * egg's matching machine. Register 0 holds the class being matched. Each operator node of the
 * pattern, in preorder, becomes a BIND instruction: for every node of the class in its register
 * with the right operator, arity and attributes, load the children into fresh registers and go on.
 * A variable's first occurrence just names its register; a repeated one becomes a COMPARE.
 * Attribute variables get slots of their own.
 */
final class CompiledPattern {
  static final byte LIT = 0;
  static final byte VAR = 1;
  static final byte ANY = 2;

  /** One instruction: BIND when {@code op >= 0}, else COMPARE {@code reg} with {@code other}. */
  static final class Instr {
    final int reg;
    final int op;
    final byte[] attrKinds;

    /** Per attribute: the literal value for LIT, the attribute slot for VAR. */
    final long[] attrArgs;

    /** The registers receiving the children. */
    final int[] out;

    final int other;

    private Instr(int reg, int op, byte[] attrKinds, long[] attrArgs, int[] out, int other) {
      this.reg = reg;
      this.op = op;
      this.attrKinds = attrKinds;
      this.attrArgs = attrArgs;
      this.out = out;
      this.other = other;
    }

    boolean isBind() {
      return op >= 0;
    }
  }

  final Pattern pattern;
  final String[] clsNames;
  final String[] attrNames;
  final Instr[] program;
  final int registerCount;

  /** Per class variable slot: the register of its first occurrence. */
  final int[] varRegister;

  /** The root's operator, or -1 when the pattern is a variable. */
  final int rootOp;

  /**
   * Whether two matching paths can give the same bindings. Without wildcard attributes they cannot:
   * the bindings fix every e-node of a match (the hashcons holds each node once).
   */
  final boolean mayRepeat;

  CompiledPattern(Pattern pattern) {
    this.pattern = pattern;
    this.mayRepeat = pattern.hasWildcard();
    this.rootOp = pattern instanceof Pattern.Node n ? n.op() : -1;
    List<String> cls = new ArrayList<>(pattern.classVars());
    List<String> attrs = new ArrayList<>(pattern.attrVars());
    this.clsNames = cls.toArray(new String[0]);
    this.attrNames = attrs.toArray(new String[0]);
    this.varRegister = new int[clsNames.length];
    java.util.Arrays.fill(varRegister, -1);
    List<Instr> prog = new ArrayList<>();
    int[] next = {1};
    emit(pattern, 0, prog, next, cls, attrs);
    this.program = prog.toArray(new Instr[0]);
    this.registerCount = next[0];
  }

  private void emit(
      Pattern p, int reg, List<Instr> prog, int[] next, List<String> cls, List<String> attrs) {
    if (p instanceof Pattern.Var v) {
      int slot = cls.indexOf(v.name());
      if (varRegister[slot] < 0) {
        varRegister[slot] = reg;
      } else {
        prog.add(new Instr(reg, -1, null, null, null, varRegister[slot]));
      }
      return;
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
    int[] out = new int[n.children().size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = next[0]++;
    }
    prog.add(new Instr(reg, n.op(), kinds, args, out, -1));
    for (int i = 0; i < out.length; i++) {
      emit(n.children().get(i), out[i], prog, next, cls, attrs);
    }
  }
}
