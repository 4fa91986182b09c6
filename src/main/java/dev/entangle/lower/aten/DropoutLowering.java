package dev.entangle.lower.aten;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.TypeInfo;
import dev.entangle.lower.LoweringException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Dropout keeps its rate and training flag. In training with a rate above zero it is the
 * element-wise function {@code ew1} named {@code aten.native_dropout(p, train)}: two dropouts are
 * the same function exactly when their rates and flags are equal, and equal on equal inputs under
 * the assumption that the masks agree (README, Assumptions and limits), so every element-wise law
 * (slices, concatenations) applies and a G_d whose rate differs from G_s's does not map. Out of
 * training, or with rate zero, it is the identity; with rate one, zeros. {@code native_dropout}'s
 * mask has no defined value. Feature and alpha dropout are functions of their own (no kernel: the
 * numbers do not evaluate them).
 */
final class DropoutLowering {
  private final OpTable table;

  DropoutLowering(OpTable table) {
    this.table = table;
  }

  /** The call's handles, or null when it is not a dropout. */
  int[] lower(String base, Call c) {
    String kind =
        switch (base) {
          case "aten.native_dropout", "aten.dropout" -> "aten.native_dropout";
          case "aten.feature_dropout" -> "aten.feature_dropout";
          case "aten.alpha_dropout" -> "aten.alpha_dropout";
          default -> null;
        };
    if (kind == null) {
      return null;
    }
    boolean tuple = base.equals("aten.native_dropout");
    int x = c.tensor(0, "input");
    double p = c.number(1, "p", 0.5);
    boolean train = c.bool(2, "train", true);
    if (!(p >= 0 && p <= 1)) {
      throw new LoweringException("the dropout rate p=" + p + " is not between 0 and 1");
    }
    int out =
        !train || p == 0
            ? x
            : p == 1 ? c.filled(0, c.type(x).dtype(), c.shape(x)) : apply(kind, x, p, c);
    return tuple ? new int[] {out, c.undefined(c.shape(x), Dtype.BOOL.code())} : new int[] {out};
  }

  private int apply(String kind, int x, double p, Call c) {
    List<Object> args = new ArrayList<>();
    args.add(new OpTable.Operand(0));
    args.add(p);
    args.add(true);
    int id =
        table.opaque(
            kind + ".default",
            kind + "($0, p=" + p + ", train=True)",
            new OpTable.Arguments(args, Map.of()),
            TypeInfo.tensor(new long[0], c.type(x).dtype()));
    return c.b.add(Op.EW1, new long[] {id}, x);
  }
}
