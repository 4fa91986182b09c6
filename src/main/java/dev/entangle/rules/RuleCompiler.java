package dev.entangle.rules;

import dev.entangle.core.Op;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Turns the forms of one lemma file into {@link Rule}s, checking every name, arity and variable.
 * All problems are collected as {@link RuleError}s; nothing is resolved at match time.
 *
 * <p>Forms:
 *
 * <pre>
 * (ops NAME op ...)                       a named set of operators, usable as ?f:NAME
 * (rule NAME LHS RHS [:when E]... [:let ((?v E) ...)] [:if-exists | :if-parts-exist])
 * (birule NAME A B ...)                   the rule and its reverse NAME-rev
 * </pre>
 */
final class RuleCompiler {
  enum Kind {
    CLASS,
    CLASS_LIST,
    ATTR,
    ATTR_LIST,
    OP
  }

  private final SExprReader reader;
  private final String file;
  private final Map<String, int[]> opSets;
  private final List<Rule> rules = new ArrayList<>();
  final List<NativeRule<?>> natives = new ArrayList<>();
  private final Map<String, String> ruleNames;

  // per-rule state
  private final Map<String, Integer> slots = new LinkedHashMap<>();

  /** Most variables (and :let names) of one rule: the matcher keeps a bit per slot it binds. */
  static final int MAX_VARIABLES = 64;

  private final List<Kind> kinds = new ArrayList<>();
  private final Map<Integer, int[]> opFamilies = new HashMap<>();
  private boolean failed;

  RuleCompiler(
      SExprReader reader, String file, Map<String, int[]> opSets, Map<String, String> ruleNames) {
    this.reader = reader;
    this.file = file;
    this.opSets = opSets;
    this.ruleNames = ruleNames;
  }

  List<Rule> compile(List<SExpr> forms, Map<Integer, String> comments) {
    for (SExpr f : forms) {
      if (!(f instanceof SExpr.Lst l)
          || l.items().isEmpty()
          || !(l.items().get(0) instanceof SExpr.Atom head)) {
        err(f, "expected a form such as (rule NAME LHS RHS) or (ops NAME op ...)");
        continue;
      }
      switch (head.text()) {
        case "ops" -> opSet(l);
        case "rule" -> rule(l, false, comments.getOrDefault(l.line(), ""));
        case "birule" -> rule(l, true, comments.getOrDefault(l.line(), ""));
        case "native" -> nativeRule(l);
        default ->
            err(head, "unknown form '" + head.text() + "'; expected rule, birule, native or ops");
      }
    }
    return rules;
  }

  private void nativeRule(SExpr.Lst l) {
    if (l.items().size() != 2 || !(l.items().get(1) instanceof SExpr.Atom name)) {
      err(l, "expected (native NAME)");
      return;
    }
    NativeRule<?> r = NativeRule.REGISTRY.get(name.text());
    if (r == null) {
      err(
          name,
          "unknown native lemma '"
              + name.text()
              + "'; known: "
              + new TreeSet<>(NativeRule.REGISTRY.keySet()));
      return;
    }
    String prev = ruleNames.putIfAbsent(r.name(), file + ":" + l.line());
    if (prev != null) {
      err(name, "a rule named '" + r.name() + "' is already defined at " + prev);
      return;
    }
    natives.add(r);
  }

  private void opSet(SExpr.Lst l) {
    if (l.items().size() < 3 || !(l.items().get(1) instanceof SExpr.Atom name)) {
      err(l, "expected (ops NAME op ...)");
      return;
    }
    List<Integer> ids = new ArrayList<>();
    for (SExpr e : l.items().subList(2, l.items().size())) {
      if (!(e instanceof SExpr.Atom a)) {
        err(e, "expected an operator name");
        continue;
      }
      int[] set = opSets.get(a.text());
      Op op = Op.bySymbol(a.text());
      if (set != null) {
        for (int id : set) {
          ids.add(id);
        }
      } else if (op != null) {
        ids.add(op.id());
      } else {
        err(a, "unknown operator '" + a.text() + "'" + OperatorNames.hint(a.text()));
      }
    }
    if (opSets.containsKey(name.text())) {
      err(
          name,
          isBuiltIn(name.text())
              ? "operator family '"
                  + name.text()
                  + "' is built in (derived from the "
                  + "operators' declared kinds in core/Op.java); choose another name"
              : "operator set '" + name.text() + "' is declared twice");
    }
    opSets.put(name.text(), ids.stream().mapToInt(Integer::intValue).toArray());
  }

  private static boolean isBuiltIn(String family) {
    for (Op.Family f : Op.Family.values()) {
      if (f.lemmaName().equals(family)) {
        return true;
      }
    }
    return false;
  }

  private void rule(SExpr.Lst l, boolean both, String doc) {
    List<SExpr> it = l.items();
    if (it.size() < 4 || !(it.get(1) instanceof SExpr.Atom name)) {
      err(l, "expected (" + ((SExpr.Atom) it.get(0)).text() + " NAME LHS RHS [options])");
      return;
    }
    SExpr a = it.get(2);
    SExpr b = it.get(3);
    List<SExpr> opts = it.subList(4, it.size());
    compileOne(name.text(), name, a, b, opts, doc);
    if (both) {
      compileOne(name.text() + "-rev", name, b, a, opts, doc);
    }
  }

  private void compileOne(
      String name, SExpr at, SExpr lhsExpr, SExpr rhsExpr, List<SExpr> opts, String doc) {
    slots.clear();
    kinds.clear();
    opFamilies.clear();
    failed = false;
    String prev = ruleNames.putIfAbsent(name, file + ":" + at.line());
    if (prev != null) {
      err(at, "a rule named '" + name + "' is already defined at " + prev);
    }
    if (!(lhsExpr instanceof SExpr.Lst)) {
      err(
          lhsExpr,
          "the left side of rule '" + name + "' must be an operator pattern, not a variable");
      return;
    }
    Pat lhs = pattern(lhsExpr, true);
    List<Integer> letSlots = new ArrayList<>();
    List<Calc> letExprs = new ArrayList<>();
    List<Calc> conds = new ArrayList<>();
    boolean ifExists = false;
    boolean partsExist = false;
    for (int i = 0; i < opts.size(); i++) {
      SExpr o = opts.get(i);
      String key = o instanceof SExpr.Atom a ? a.text() : "";
      switch (key) {
        case ":when" -> {
          if (i + 1 >= opts.size()) {
            err(o, ":when needs an expression");
          } else {
            conds.add(calc(opts.get(++i)));
          }
        }
        case ":let" -> {
          if (i + 1 >= opts.size() || !(opts.get(i + 1) instanceof SExpr.Lst binds)) {
            err(o, ":let needs a list of bindings, as in :let ((?n (size ?a ?d)))");
            i++;
            continue;
          }
          i++;
          for (SExpr bnd : binds.items()) {
            if (!(bnd instanceof SExpr.Lst pair)
                || pair.items().size() != 2
                || !(pair.items().get(0) instanceof SExpr.Atom v)
                || !v.isVar()
                || v.isListVar()) {
              err(bnd, "a binding is (?name expression)");
              continue;
            }
            Calc e = calc(pair.items().get(1));
            if (slots.containsKey(v.varName())) {
              err(v, "?" + v.varName() + " is already bound");
              continue;
            }
            letExprs.add(e);
            boolean list =
                e instanceof Calc.Apply fn && fn.fn().list
                    || e instanceof Calc.Ref ref && kinds.get(ref.slot()) == Kind.ATTR_LIST;
            letSlots.add(declare(v.varName(), list ? Kind.ATTR_LIST : Kind.ATTR));
          }
        }
        case ":if-exists" -> ifExists = true;
        case ":if-parts-exist" -> partsExist = true;
        default ->
            err(
                o,
                "unknown option '" + o + "'; expected :when, :let, :if-exists or :if-parts-exist");
      }
    }
    Template rhs = template(rhsExpr, name, false);
    if (slots.size() > MAX_VARIABLES) {
      err(
          at,
          "rule '"
              + name
              + "' uses "
              + slots.size()
              + " variables; a rule may use at most "
              + MAX_VARIABLES
              + " (split it into smaller rules)");
    }
    if (failed || lhs == null || rhs == null) {
      return;
    }
    rules.add(
        new Rule(
            name,
            file,
            at.line(),
            doc,
            (Pat.Node) lhs,
            rhs,
            letSlots.stream().mapToInt(Integer::intValue).toArray(),
            letExprs.toArray(Calc[]::new),
            conds.toArray(Calc[]::new),
            ifExists,
            partsExist,
            slots.keySet().toArray(String[]::new)));
  }

  private int declare(String var, Kind kind) {
    slots.put(var, kinds.size());
    kinds.add(kind);
    return kinds.size() - 1;
  }

  /** A left-side pattern; binds variables as it meets them. */
  private Pat pattern(SExpr e, boolean root) {
    if (e instanceof SExpr.Atom a) {
      if (!a.isVar()) {
        err(a, "expected a variable such as ?x or an operator pattern, got '" + a.text() + "'");
        return null;
      }
      Kind k = a.isListVar() ? Kind.CLASS_LIST : Kind.CLASS;
      Integer s = slots.get(a.varName());
      if (s != null) {
        if (kinds.get(s) != k) {
          err(a, "?" + a.varName() + " is used both as a tensor and as a list or attribute");
          return null;
        }
        if (k == Kind.CLASS_LIST) {
          err(a, "list variable ?" + a.varName() + "... may appear only once on the left side");
          return null;
        }
        return new Pat.Var(s);
      }
      int slot = declare(a.varName(), k);
      return k == Kind.CLASS_LIST ? new Pat.ListVar(slot) : new Pat.Var(slot);
    }
    if (!(e instanceof SExpr.Lst l)
        || l.items().isEmpty()
        || !(l.items().get(0) instanceof SExpr.Atom head)) {
      err(e, "expected an operator pattern such as (matmul ?a ?b)");
      return null;
    }
    if (l.spread()) {
      err(l, "'...' after a pattern is only allowed on the right side");
    }
    int op = -1;
    int[] choices = null;
    int opSlot = -1;
    if (head.isVar()) {
      String[] parts = head.text().substring(1).split(":", 2);
      if (parts.length != 2 || !opSets.containsKey(parts[1])) {
        err(
            head,
            "an operator variable names its set, as in (?f:unary ?x); known sets: "
                + new TreeSet<>(opSets.keySet()));
        return null;
      }
      choices = opSets.get(parts[1]);
      Integer existing = slots.get(parts[0]);
      if (existing != null && kinds.get(existing) != Kind.OP) {
        err(head, "?" + parts[0] + " is used both as an operator and as something else");
        return null;
      }
      opSlot = existing != null ? existing : declare(parts[0], Kind.OP);
      opFamilies.putIfAbsent(opSlot, choices);
    } else {
      op = operator(head);
      if (op < 0) {
        return null;
      }
    }
    Pat.AttrPat[] attrs = null;
    if (l.attrs() != null) {
      List<SExpr> ai = l.attrs().items();
      attrs = new Pat.AttrPat[ai.size()];
      for (int i = 0; i < ai.size(); i++) {
        attrs[i] = attrPattern(ai.get(i), i == ai.size() - 1);
      }
    }
    List<SExpr> kids = l.items().subList(1, l.items().size());
    Pat[] children = new Pat[kids.size()];
    int lists = 0;
    for (int i = 0; i < kids.size(); i++) {
      children[i] = pattern(kids.get(i), false);
      if (children[i] instanceof Pat.ListVar) {
        lists++;
      }
    }
    if (op >= 0) {
      checkArity(Op.of(op), kids.size(), lists > 0, l);
    }
    return new Pat.Node(op, choices, opSlot, attrs, children);
  }

  /** The id of a named core operator, or -1 after reporting an unknown name. */
  private int operator(SExpr.Atom head) {
    Op o = Op.bySymbol(head.text());
    if (o == null) {
      err(head, "unknown operator '" + head.text() + "'" + OperatorNames.hint(head.text()));
      return -1;
    }
    return o.id();
  }

  private Pat.AttrPat attrPattern(SExpr e, boolean last) {
    if (e instanceof SExpr.Atom a) {
      if (a.text().equals("_")) {
        return new Pat.AttrPat.Any();
      }
      Long v = a.asLong();
      if (v != null) {
        return new Pat.AttrPat.Lit(v);
      }
      if (a.isVar()) {
        Kind k = a.isListVar() ? Kind.ATTR_LIST : Kind.ATTR;
        if (k == Kind.ATTR_LIST && !last) {
          err(a, "a list of attributes ?" + a.varName() + "... must come last");
        }
        Integer s = slots.get(a.varName());
        if (s != null) {
          if (kinds.get(s) != k) {
            err(
                a,
                "?"
                    + a.varName()
                    + " is used both as "
                    + (k == Kind.ATTR ? "one attribute" : "a list of attributes")
                    + " and as something else");
          }
          return k == Kind.ATTR_LIST ? new Pat.AttrPat.Rest(s) : new Pat.AttrPat.Var(s);
        }
        int slot = declare(a.varName(), k);
        return k == Kind.ATTR_LIST ? new Pat.AttrPat.Rest(slot) : new Pat.AttrPat.Var(slot);
      }
    }
    err(e, "an attribute on the left side is a number, a variable or _");
    return new Pat.AttrPat.Any();
  }

  private void checkArity(Op op, int n, boolean hasList, SExpr at) {
    if (op.arity >= 0 && !hasList && n != op.arity) {
      err(
          at,
          op.symbol()
              + " takes "
              + op.arity
              + " operand"
              + (op.arity == 1 ? "" : "s")
              + ", not "
              + n);
    }
    if (op.arity >= 0 && hasList && n - 1 > op.arity) {
      err(at, op.symbol() + " takes " + op.arity + " operands");
    }
  }

  /** A right-side template; every variable must be bound by the left side or a let. */
  private Template template(SExpr e, String rule, boolean inMap) {
    if (e instanceof SExpr.Atom a) {
      if (!a.isVar()) {
        err(a, "expected a variable or an operator term, got '" + a.text() + "'");
        return null;
      }
      Integer s = slots.get(a.varName());
      if (s == null) {
        err(
            a,
            "?"
                + a.varName()
                + " on the right side of rule '"
                + rule
                + "' is not bound by its left side");
        return null;
      }
      Kind k = kinds.get(s);
      if (a.isListVar()) {
        if (k != Kind.CLASS_LIST) {
          err(a, "?" + a.varName() + " is not a list variable");
          return null;
        }
        return new Template.ListVar(s);
      }
      if (k == Kind.CLASS_LIST && !inMap) {
        err(
            a,
            "list variable ?"
                + a.varName()
                + " must be written ?"
                + a.varName()
                + "... or used inside a (...)... template");
        return null;
      }
      if (k != Kind.CLASS && k != Kind.CLASS_LIST) {
        err(a, "?" + a.varName() + " is an attribute, not a tensor");
        return null;
      }
      return new Template.Var(s);
    }
    if (!(e instanceof SExpr.Lst l)
        || l.items().isEmpty()
        || !(l.items().get(0) instanceof SExpr.Atom head)) {
      err(e, "expected an operator term such as (matmul ?a ?b)");
      return null;
    }
    boolean map = l.spread();
    int op = -1;
    int opSlot = -1;
    if (head.isVar()) {
      Integer s = slots.get(head.varName());
      if (s == null || kinds.get(s) != Kind.OP) {
        err(head, "operator variable ?" + head.varName() + " is not bound by the left side");
        return null;
      }
      opSlot = s;
    } else {
      op = operator(head);
      if (op < 0) {
        return null;
      }
    }
    Template.AttrTemplate[] attrs = null;
    if (l.attrs() != null) {
      List<SExpr> ai = l.attrs().items();
      attrs = new Template.AttrTemplate[ai.size()];
      for (int i = 0; i < ai.size(); i++) {
        attrs[i] = attrTemplate(ai.get(i));
      }
    } else if (op >= 0) {
      attrs = new Template.AttrTemplate[0];
    }
    List<SExpr> kids = l.items().subList(1, l.items().size());
    Template[] children = new Template[kids.size()];
    boolean hasList = false;
    for (int i = 0; i < kids.size(); i++) {
      children[i] = template(kids.get(i), rule, inMap || map);
      hasList |= children[i] instanceof Template.ListVar || children[i] instanceof Template.Map;
    }
    if (op >= 0) {
      checkArity(Op.of(op), kids.size(), hasList, l);
    }
    if (opSlot >= 0 && !hasList) {
      for (int id : opFamilies.getOrDefault(opSlot, new int[0])) {
        Op member = Op.of(id);
        if (member != null && member.arity >= 0 && member.arity != kids.size()) {
          err(
              l,
              "?"
                  + head.varName()
                  + " can be "
                  + member.symbol()
                  + ", which takes "
                  + member.arity
                  + " operand"
                  + (member.arity == 1 ? "" : "s")
                  + ", not "
                  + kids.size());
          break;
        }
      }
    }
    Template node = new Template.Node(op, opSlot, attrs, children);
    if (map) {
      List<Integer> lists = new ArrayList<>();
      collectListSlots(l, lists);
      if (lists.isEmpty()) {
        err(l, "a (...)... template must mention a list variable");
        return null;
      }
      return new Template.Map(node, lists.stream().mapToInt(Integer::intValue).toArray());
    }
    return node;
  }

  private void collectListSlots(SExpr e, List<Integer> out) {
    if (e instanceof SExpr.Atom a && a.isVar()) {
      Integer s = slots.get(a.varName());
      if (s != null && (kinds.get(s) == Kind.CLASS_LIST) && !a.isListVar() && !out.contains(s)) {
        out.add(s);
      }
    } else if (e instanceof SExpr.Lst l) {
      for (SExpr c : l.items()) {
        if (!(c instanceof SExpr.Lst sub && sub.spread())) {
          collectListSlots(c, out);
        }
      }
      if (l.attrs() != null) {
        collectListSlots(l.attrs(), out);
      }
    } else if (e instanceof SExpr.Brackets b) {
      for (SExpr c : b.items()) {
        collectListSlots(c, out);
      }
    }
  }

  private Template.AttrTemplate attrTemplate(SExpr e) {
    if (e instanceof SExpr.Atom a && a.isListVar()) {
      Integer s = slots.get(a.varName());
      if (s == null || kinds.get(s) != Kind.ATTR_LIST) {
        err(a, "?" + a.varName() + "... is not a bound list of attributes");
        return new Template.AttrTemplate.One(new Calc.Lit(0));
      }
      return new Template.AttrTemplate.Splice(new Calc.Ref(s, a.varName()));
    }
    Calc c = calc(e);
    boolean list =
        c instanceof Calc.Apply f && f.fn().list
            || c instanceof Calc.Ref r && kinds.get(r.slot()) == Kind.ATTR_LIST;
    return list ? new Template.AttrTemplate.Splice(c) : new Template.AttrTemplate.One(c);
  }

  private Calc calc(SExpr e) {
    if (e instanceof SExpr.Atom a) {
      Long v = a.asLong();
      if (v != null) {
        return new Calc.Lit(v);
      }
      if (a.text().equals("true")) {
        return new Calc.Lit(1);
      }
      if (a.text().equals("false")) {
        return new Calc.Lit(0);
      }
      if (a.isVar()) {
        Integer s = slots.get(a.varName());
        if (s == null) {
          err(a, "?" + a.varName() + " is not bound here");
          return new Calc.Lit(0);
        }
        return new Calc.Ref(s, a.varName());
      }
      err(a, "expected a number, a variable or (function ...), got '" + a.text() + "'");
      return new Calc.Lit(0);
    }
    if (e instanceof SExpr.Lst l
        && !l.items().isEmpty()
        && l.items().get(0) instanceof SExpr.Atom f
        && l.attrs() == null) {
      Fn fn = Fn.bySymbol(f.text());
      if (fn == null) {
        err(f, "unknown function '" + f.text() + "'");
        return new Calc.Lit(0);
      }
      int n = l.items().size() - 1;
      if (n < fn.min || (fn.max >= 0 && n > fn.max)) {
        err(
            f,
            f.text()
                + " takes "
                + (fn.min == fn.max ? "" + fn.min : fn.min + " or more")
                + " argument"
                + (fn.max == 1 ? "" : "s")
                + ", not "
                + n);
      }
      Calc[] args = new Calc[n];
      for (int i = 0; i < n; i++) {
        args[i] = calc(l.items().get(i + 1));
      }
      if (fn.takesListVariable
          && n > 0
          && !(args[0] instanceof Calc.Ref r && kinds.get(r.slot()) == Kind.CLASS_LIST)) {
        err(
            l.items().get(1),
            f.text() + " takes a list variable such as ?xs as its first argument");
      }
      return new Calc.Apply(fn, args, f.line(), f.col());
    }
    err(e, "expected an expression such as (+ ?s 1)");
    return new Calc.Lit(0);
  }

  private void err(SExpr at, String message) {
    failed = true;
    reader.error(at.line(), at.col(), message);
  }
}
