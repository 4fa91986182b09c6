package dev.entangle.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The top-level command; the work is in its subcommands.
 *
 * <p>Every run builds this command, so it is built in code ({@link CodedOptions}), as is {@code
 * check}; the other subcommands are annotated classes, whose model picocli builds by reflection.
 * The command line is built with the one subcommand its first argument names, and with all of them
 * only when the first argument names none (usage, {@code --help}, {@code --version}, a mistyped
 * command): what any command line prints and does is the same either way.
 */
final class EntangleCommand implements Runnable {
  /**
   * A subcommand: its name and how to make its model (a {@link CommandSpec} or an annotated
   * object).
   */
  record Subcommand(String name, Supplier<Object> model) {}

  /** The subcommands, in the order of the usage message. */
  static final List<Subcommand> SUBCOMMANDS =
      List.of(
          new Subcommand("check", CheckCommand::spec),
          new Subcommand("import", ImportCommand::new),
          new Subcommand("batch", BatchCommand::spec),
          new Subcommand("manifest", ManifestCommand::new),
          new Subcommand("draft-relation", DraftRelationCommand::new),
          new Subcommand("lemmas", LemmasCommand::new));

  static final String DESCRIPTION =
      "Proves that a distributed model G_d refines a sequential model G_s, or names the first "
          + "operator of G_s it cannot map.";

  private final CommandSpec spec = CommandSpec.wrapWithoutInspection(this);

  private EntangleCommand() {}

  /** The command line for {@code args}: see the class comment. */
  static CommandLine commandLine(String... args) {
    CommandSpec spec = new EntangleCommand().spec.name("entangle").versionProvider(new Version());
    Map<String, String> exitCodes = new LinkedHashMap<>();
    exitCodes.put("0", "refines");
    exitCodes.put("1", "not-refined or expectation-violated");
    exitCodes.put("2", "bad input or usage");
    exitCodes.put(
        "3",
        "inconclusive (a limit was reached), unproved (no lemma proves an operator; numbers say"
            + " it maps) or unsupported (an operator entangle cannot lower or evaluate yet)");
    exitCodes.put(
        "4",
        "check --certify: an entry of the output relation is false on numbers (a bug in entangle)");
    spec.usageMessage()
        .description(DESCRIPTION)
        .exitCodeListHeading("%nExit codes:%n")
        .exitCodeList(exitCodes);
    CodedOptions.addHelp(spec);
    CommandLine cl = new CommandLine(spec);
    String first = args.length > 0 ? args[0] : null;
    List<Subcommand> named = SUBCOMMANDS.stream().filter(c -> c.name().equals(first)).toList();
    for (Subcommand c : named.isEmpty() ? SUBCOMMANDS : named) {
      cl.addSubcommand(c.name(), c.model().get());
    }
    return cl;
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(),
        "name a command: check, import, batch, manifest, draft-relation or lemmas");
  }
}
