package dev.entangle.lower;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreValue;
import dev.entangle.core.Op;
import dev.entangle.core.Steps;
import dev.entangle.core.ValueKind;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Locale;

/**
 * Prints a core program for lemma authors: one line per value, its type and its definition as a
 * core term over the values it reads, with the operator it came from; a collective group's facts
 * follow its definition.
 */
public final class ProgramDump {
  private final CoreProgram p;

  private ProgramDump(CoreProgram p) {
    this.p = p;
  }

  /** Writes {@code p} to {@code out}, headed by {@code title}. */
  public static void print(CoreProgram p, String title, PrintWriter out) {
    out.println(
        "# "
            + title
            + " ("
            + p.source()
            + "): "
            + p.size()
            + " values, "
            + p.ops().size()
            + " operations");
    new ProgramDump(p).values(out);
    out.flush();
  }

  private void values(PrintWriter out) {
    for (CoreValue v : p.values()) {
      StringBuilder sb = new StringBuilder(v.label()).append(" : ").append(v.type());
      if (v.op() < 0) {
        out.println(sb.append(" = input"));
        continue;
      }
      CoreOp op = p.op(v.op());
      String[] slots = render(op);
      sb.append(" = ").append(slots[op.results()[v.item()]]);
      sb.append("   # ").append(op.target());
      if (v.kind() != ValueKind.COMPUTED) {
        sb.append(", ").append(v.kind().name().toLowerCase(Locale.ROOT));
      }
      out.println(sb);
      Steps s = op.steps();
      for (int i = 0; i < s.size(); i++) {
        if (s.kind(i) == Steps.UNION) {
          out.println("    where " + slots[s.kids(i)[0]] + " = " + slots[s.kids(i)[1]]);
        }
      }
    }
  }

  /** Every slot of an operation's steps as text. */
  private String[] render(CoreOp op) {
    Steps s = op.steps();
    String[] text = new String[s.slots()];
    for (int i = 0; i < s.size(); i++) {
      if (s.kind(i) == Steps.REF) {
        text[s.slot(i)] = p.value(s.arg(i)).label();
      } else if (s.kind(i) == Steps.ADD && text[s.slot(i)] == null) {
        text[s.slot(i)] = node(s.arg(i), s.attrs(i), s.kids(i), text);
      }
    }
    return text;
  }

  private String node(int opId, long[] attrs, int[] kids, String[] text) {
    Op op = Op.of(opId);
    if (op == Op.TENSOR) {
      return p.value((int) attrs[0]).label();
    }
    StringBuilder sb = new StringBuilder(p.table().name(opId));
    if (attrs.length > 0) {
      sb.append('[')
          .append(op == null ? Arrays.toString(attrs) : TermText.attrs(op, attrs))
          .append(']');
    }
    if (kids.length > 0) {
      sb.append('(');
      for (int i = 0; i < kids.length; i++) {
        sb.append(i == 0 ? "" : ", ").append(text[kids[i]]);
      }
      sb.append(')');
    }
    return sb.toString();
  }
}
