package dev.entangle.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The top-level command; the work is in its subcommands.
 *
 * <p>picocli builds a command's model by reflection over its class, which for all six subcommands
 * costs a check a noticeable part of its start-up. So the command line is built with the one
 * subcommand its first argument names, and with all of them only when the first argument names none
 * (usage, {@code --help}, {@code --version}, a mistyped command): what any command line prints and
 * does is the same either way.
 */
@Command(
    name = "entangle",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description =
        "Proves that a distributed model G_d refines a sequential model G_s, or names the first "
            + "operator of G_s it cannot map.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:refines",
      "1:not-refined or expectation-violated",
      "2:bad input or usage",
      "3:inconclusive (a limit was reached)"
    })
final class EntangleCommand implements Runnable {
  /** The subcommands, in the order of the usage message. */
  static final List<Class<?>> SUBCOMMANDS =
      List.of(
          CheckCommand.class,
          ImportCommand.class,
          BatchCommand.class,
          ManifestCommand.class,
          DraftRelationCommand.class,
          LemmasCommand.class);

  @picocli.CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The command line for {@code args}: see the class comment. */
  static CommandLine commandLine(String... args) {
    CommandLine cl = new CommandLine(new EntangleCommand());
    String first = args.length > 0 ? args[0] : null;
    List<Class<?>> named = SUBCOMMANDS.stream().filter(c -> name(c).equals(first)).toList();
    for (Class<?> c : named.isEmpty() ? SUBCOMMANDS : named) {
      cl.addSubcommand(c);
    }
    return cl;
  }

  /** A subcommand's name, as its annotation gives it. */
  static String name(Class<?> subcommand) {
    return subcommand.getAnnotation(Command.class).name();
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(),
        "name a command: check, import, batch, manifest, draft-relation or lemmas");
  }
}
