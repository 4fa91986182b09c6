/**
 * {@code entangle import}: reads torch.fx graph code as {@code GraphModule.print_readable()} and
 * TORCH_LOGS graph dumps print it, as data (never executed), into the graph model of {@code
 * dev.entangle.graph}. The entry point is {@link dev.entangle.importer.GraphCodeImporter}.
 *
 * <p>Pipeline: {@code Tokenizer} (characters to tokens) → {@code GraphCodeParser} with {@code
 * PythonExprParser} (tokens to the statements of {@code forward}) → {@code GraphAssembler}
 * (statements to nodes, with {@code TypeAnnotations}, {@code ArgConverter} and {@code
 * AutoFunctionalizedLowering}). Every error is an {@code InputException} naming file and line.
 *
 * <p>The normalized forms a checker relies on:
 *
 * <ul>
 *   <li>Every input, assignment and the return is one node, in file order; node names are the
 *       printed names; the output node is {@code output} (or {@code output_1}, ... when taken).
 *   <li>{@code torch.ops.NS.OP.OVERLOAD} is target {@code NS.OP.OVERLOAD}; {@code torch.ops.NS.OP}
 *       is {@code NS.OP.default}; higher-order operators keep {@code higher_order.NAME}. An
 *       operator passed as an argument is its target string.
 *   <li>A multi-output call is a tuple node ({@code meta.tuple}) whose items up to the highest
 *       index used take their getitems' annotations (null where nobody indexes); {@code x[i]} and
 *       {@code operator.getitem(x, i)} are {@code getitem} nodes with args {@code [x, i]}.
 *   <li>Operators that return nothing (assertions such as {@code aten._assert_scalar.default}) are
 *       tuple nodes with no items.
 *   <li>{@code auto_functionalized} (and v2 calls on whole bases) are tuple nodes with target
 *       {@code higher_order.auto_functionalized}, args {@code [OP]}, the operator's arguments as
 *       kwargs and {@code kwargs._mutated}, the names of the mutated arguments: the last {@code
 *       len(_mutated)} items are their new values, in that order. See {@code
 *       AutoFunctionalizedLowering}; the operators' schemas come from {@code custom_ops.schema} and
 *       the user's schema files.
 *   <li>Tagging operators ({@code tg.log_tensor}, {@code tg.inplace_log_tensor}, also under {@code
 *       auto_functionalized}) are {@code aten.alias.default} of the tagged tensor, with the tag as
 *       {@code meta.tag}; getitems of a functionalized tagging call alias that node.
 *   <li>Python builtins on symbols (infix {@code a + b}, {@code a >= 0}, {@code -a}, or {@code
 *       operator.add(a, b)}) are {@code call_function} nodes whose target is the operator's name
 *       ({@code add}, {@code sub}, {@code mul}, {@code truediv}, {@code floordiv}, {@code mod},
 *       {@code pow}, {@code eq}, {@code ne}, {@code lt}, {@code le}, {@code gt}, {@code ge}, {@code
 *       and_}, {@code or_}, {@code neg}, ...). Inside an argument, such arithmetic is a {@code
 *       SymArg} with its text, which refers to nodes by name.
 *   <li>Symbolic scalars ({@code "Sym(s0)"}) are described as 0-d tensors of {@code int64}, {@code
 *       bool} (comparisons) or {@code float64}; symbolic sizes are {@code Dim.Sym}.
 *   <li>{@code # File: PATH:N in FN, code: CODE} comments become {@code meta.stack_trace} {@code
 *       File "PATH", line N, in FN\n CODE} of the nodes that follow (not of inputs or the output),
 *       until the next such comment or {@code # No stacktrace found}.
 * </ul>
 */
package dev.entangle.importer;
