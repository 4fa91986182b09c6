package dev.entangle.importer;

import dev.entangle.util.Interruption;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the statements of a printed graph module: the module prelude (imports, {@code b8: type}
 * declarations, the {@code class} line), the {@code def forward(self, ...)} signature and its body
 * up to {@code return}. Node-defining statements become {@link Statement}s; clean-ups ({@code x =
 * None}, {@code del x}) are recognised and dropped; {@code # File:} comments set the stack trace of
 * the statements that follow. Anything else is an error naming its line.
 */
final class GraphCodeParser {
  private static final String ADVICE =
      "The importer reads graph code as torch.fx prints it (GraphModule.print_readable() or a"
          + " TORCH_LOGS graph dump); check that the file is such a dump.";

  private enum Place {
    PRELUDE,
    BODY,
    AFTER_RETURN
  }

  private final SourceFile src;
  private final PythonExprParser p;
  private final List<GraphCode.Param> params = new ArrayList<>();
  private final List<Statement> body = new ArrayList<>();
  private Place place = Place.PRELUDE;
  private String stackTrace;

  private GraphCodeParser(SourceFile src) {
    this.src = src;
    this.p = new PythonExprParser(src, Tokenizer.tokenize(src));
  }

  static GraphCode parse(SourceFile src) {
    return new GraphCodeParser(src).run();
  }

  private GraphCode run() {
    while (true) {
      Interruption.check();
      Token t = p.peek();
      if (t.kind() == Token.Kind.END) {
        break;
      }
      if (t.kind() == Token.Kind.COMMENT) {
        comment(p.next());
      } else if (t.kind() == Token.Kind.NEWLINE) {
        p.next();
      } else {
        logicalLine();
      }
    }
    if (place == Place.PRELUDE) {
      throw src.error(
          "no `def forward(self, ...)` found, so this is not printed torch.fx graph code",
          "Give the file that GraphModule.print_readable() or a TORCH_LOGS graph dump wrote.");
    }
    if (place == Place.BODY) {
      throw src.error(
          "the `forward` function has no `return` statement (the file may be cut short)",
          "Give the whole printed graph, which ends with `return (...)`.");
    }
    return new GraphCode(params, body);
  }

  private void comment(Token t) {
    if (place != Place.BODY) {
      return;
    }
    String text = t.text();
    if (StackTraces.isSummary(text)) {
      String trace = StackTraces.fromSummary(text);
      if (trace == null) {
        throw src.error(
            t.line(),
            "cannot read this stack trace comment; torch.fx prints it as"
                + " `# File: PATH:LINE in FUNCTION, code: CODE`",
            "Restore the comment as torch.fx printed it, or delete it.");
      }
      stackTrace = trace;
    } else if (text.startsWith(StackTraces.NO_TRACE)) {
      stackTrace = null;
    }
  }

  private void logicalLine() {
    Token first = p.peek();
    if (first.isName("class")) {
      if (place != Place.PRELUDE) {
        throw src.error(
            first.line(),
            place == Place.BODY
                ? "a class definition inside `forward`"
                : "another module follows the graph's `return`; nested submodules (graphs of"
                    + " higher-order operators) are not supported",
            "Import one graph per file.");
      }
      p.skipLine();
      return;
    }
    if (first.isName("def")) {
      functionDef(first);
      return;
    }
    while (true) {
      simpleStatement();
      if (p.acceptOp(";")) {
        if (p.peek().kind() == Token.Kind.NEWLINE || p.peek().kind() == Token.Kind.END) {
          break;
        }
        continue;
      }
      Token t = p.peek();
      if (t.kind() != Token.Kind.NEWLINE && t.kind() != Token.Kind.END) {
        throw p.unexpected(t, "the end of the statement");
      }
      break;
    }
    if (p.peek().kind() == Token.Kind.NEWLINE) {
      p.next();
    }
  }

  private void functionDef(Token def) {
    if (place != Place.PRELUDE) {
      throw src.error(
          def.line(),
          place == Place.BODY
              ? "a function definition inside `forward`"
              : "another function follows the graph's `return`; only one graph per file is"
                  + " supported",
          "Import one graph per file.");
    }
    p.next();
    Token nameTok = p.peek();
    String name = p.expectName();
    if (!name.equals("forward")) {
      throw src.error(
          nameTok.line(),
          "the module defines `" + name + "` before `forward`; only the `forward` graph is read",
          "Give the file that GraphModule.print_readable() or a TORCH_LOGS graph dump wrote.");
    }
    p.expectOp("(");
    boolean first = true;
    while (!p.peek().isOp(")")) {
      Token t = p.peek();
      if (t.isOp("*") || t.isOp("**")) {
        throw src.error(
            t.line(), "`forward` takes star parameters, which graph code never has", ADVICE);
      }
      String param = p.expectName();
      String annotation = null;
      if (p.acceptOp(":")) {
        PyExpr ann = p.parseExpr();
        if (!(ann instanceof PyExpr.StrLit s)) {
          throw src.error(
              t.line(),
              "the parameter `"
                  + param
                  + "` has an annotation that is not a type string such as"
                  + " \"f32[8, 16]\"",
              ADVICE);
        }
        annotation = s.value();
      }
      if (p.peek().isOp("=")) {
        throw src.error(
            t.line(),
            "the parameter `" + param + "` has a default value, which graph code never has",
            ADVICE);
      }
      if (!(first && param.equals("self"))) {
        params.add(new GraphCode.Param(param, annotation, t.line()));
      }
      first = false;
      if (!p.acceptOp(",")) {
        break;
      }
    }
    p.expectOp(")");
    if (p.acceptOp("->")) {
      p.parseExpr();
    }
    p.expectOp(":");
    Token end = p.peek();
    if (end.kind() != Token.Kind.NEWLINE) {
      throw p.unexpected(end, "the end of the line after `def forward(...):`");
    }
    p.next();
    place = Place.BODY;
  }

  private void simpleStatement() {
    Token t = p.peek();
    if (place == Place.PRELUDE) {
      prelude(t);
      return;
    }
    if (place == Place.AFTER_RETURN) {
      throw src.error(
          t.line(),
          "code follows the `return` of `forward`",
          "Import one graph per file, ending with its `return`.");
    }
    if (t.isName("del")) {
      p.skipStatement();
      return;
    }
    if (t.isName("pass")) {
      p.next();
      return;
    }
    if (t.isName("return")) {
      p.next();
      PyExpr value =
          p.peek().endsStatement() ? new PyExpr.Constant("None", span(t)) : p.parseExprList();
      body.add(new Statement.Return(value, t.line()));
      place = Place.AFTER_RETURN;
      return;
    }
    if (t.isName("import") || t.isName("from")) {
      throw src.error(t.line(), "an import inside `forward`, which graph code never has", ADVICE);
    }
    assignment(t);
  }

  private void prelude(Token t) {
    if (t.isName("import") || t.isName("from")) {
      p.skipStatement();
      return;
    }
    if (t.kind() == Token.Kind.NAME && p.peek(1).isOp(":")) {
      p.next();
      p.next();
      p.parseExpr();
      if (p.peek().isOp("=")) {
        throw src.error(
            t.line(), "unexpected module-level assignment before `def forward`", ADVICE);
      }
      return;
    }
    throw src.error(t.line(), "unexpected module-level statement before `def forward`", ADVICE);
  }

  private void assignment(Token t) {
    PyExpr first = p.parseExprList();
    if (p.acceptOp(":")) {
      if (!(first instanceof PyExpr.Name name)) {
        throw src.error(t.line(), "only a plain name can be annotated", ADVICE);
      }
      PyExpr ann = p.parseExpr();
      if (!(ann instanceof PyExpr.StrLit annotation)) {
        throw src.error(
            t.line(),
            "the annotation of `" + name.id() + "` is not a type string such as \"f32[8, 16]\"",
            ADVICE);
      }
      if (p.acceptOp("=")) {
        PyExpr value = p.parseExprList();
        body.add(new Statement.Assign(name.id(), annotation.value(), value, t.line(), stackTrace));
      } else {
        body.add(new Statement.Annotate(name.id(), annotation.value(), t.line()));
      }
      return;
    }
    if (!p.peek().isOp("=")) {
      throw src.error(
          t.line(),
          "a statement that is not an assignment; graph code assigns every call to a name",
          ADVICE);
    }
    List<PyExpr> targets = new ArrayList<>();
    targets.add(first);
    PyExpr value = null;
    while (p.acceptOp("=")) {
      value = p.parseExprList();
      targets.add(value);
    }
    targets.remove(targets.size() - 1);
    if (PyExpr.isNone(value)) {
      for (PyExpr target : targets) {
        if (!(target instanceof PyExpr.Name)) {
          throw src.error(t.line(), "only names can be cleared with `= None`", ADVICE);
        }
      }
      return;
    }
    if (targets.size() != 1) {
      throw src.error(t.line(), "a chained assignment of something other than None", ADVICE);
    }
    PyExpr target = targets.get(0);
    if (target instanceof PyExpr.Name name) {
      body.add(new Statement.Assign(name.id(), null, value, t.line(), stackTrace));
    } else if (target instanceof PyExpr.Sequence seq) {
      body.add(flatten(seq, value, t));
    } else {
      throw src.error(t.line(), "cannot assign to this target", ADVICE);
    }
  }

  /** {@code a, b, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)}. */
  private Statement flatten(PyExpr.Sequence targets, PyExpr value, Token t) {
    String advice =
        "Graph code unpacks a tuple only from `fx_pytree.tree_flatten_spec([inputs...],"
            + " self._in_spec)`.";
    if (!(value instanceof PyExpr.Call call)
        || !"fx_pytree.tree_flatten_spec".equals(PyExpr.dotted(call.func()))
        || call.args().isEmpty()
        || !(call.args().get(0) instanceof PyExpr.Sequence containers)) {
      throw src.error(t.line(), "cannot read this tuple assignment", advice);
    }
    List<String> names = new ArrayList<>();
    for (PyExpr e : targets.items()) {
      if (!(e instanceof PyExpr.Name n)) {
        throw src.error(t.line(), "a flattened input is not a plain name", advice);
      }
      names.add(n.id());
    }
    List<String> from = new ArrayList<>();
    for (PyExpr e : containers.items()) {
      if (!(e instanceof PyExpr.Name n)) {
        throw src.error(t.line(), "the inputs flattened are not parameters of `forward`", advice);
      }
      from.add(n.id());
    }
    return new Statement.FlattenInputs(names, from, t.line());
  }

  private static PyExpr.Span span(Token t) {
    return new PyExpr.Span(t.start(), t.end(), t.line());
  }
}
