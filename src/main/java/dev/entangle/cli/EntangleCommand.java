package dev.entangle.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The top-level command; the work is in its subcommands. */
@Command(
    name = "entangle",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description =
        "Proves that a distributed model G_d refines a sequential model G_s, or names the first "
            + "operator of G_s it cannot map.",
    subcommands = {
      CheckCommand.class,
      ImportCommand.class,
      BatchCommand.class,
      ManifestCommand.class,
      DraftRelationCommand.class,
      LemmasCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:refines",
      "1:not-refined or expectation-violated",
      "2:bad input or usage",
      "3:inconclusive (a limit was reached)"
    })
final class EntangleCommand implements Runnable {
  @picocli.CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(),
        "name a command: check, import, batch, manifest, draft-relation or lemmas");
  }
}
