package dev.entangle.cli;

import dev.entangle.util.InputException;
import dev.entangle.util.Names;
import java.util.Arrays;
import picocli.CommandLine;

/**
 * Decides, in one place, how failures reach the user: input and usage errors print one paragraph
 * and exit 2; anything else is a bug in the checker, printed as such (with the stack trace only
 * under {@code --debug}) and also exits 2.
 */
final class ErrorHandling {
  static final int INPUT_ERROR = ExitCodes.INPUT_ERROR;

  private ErrorHandling() {}

  static void install(CommandLine cl, String[] args) {
    boolean debug = Arrays.asList(args).contains("--debug");
    cl.setParameterExceptionHandler(
        (ex, a) -> {
          ex.getCommandLine()
              .getErr()
              .println("entangle: " + Names.forMessage(ex.getMessage()) + UnknownOptions.hint(ex));
          ex.getCommandLine()
              .getErr()
              .println("Run 'entangle " + commandName(ex.getCommandLine()) + "--help' for usage.");
          return INPUT_ERROR;
        });
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          var err = commandLine.getErr();
          if (ex instanceof InputException) {
            err.println("entangle: " + Names.forMessage(ex.getMessage()));
          } else {
            err.println(
                "entangle: internal error: "
                    + Names.shortenWords(String.valueOf(ex))
                    + ". This is a bug in entangle; please report it with the input files (rerun with --debug for details).");
          }
          if (debug) {
            ex.printStackTrace(err);
          }
          return INPUT_ERROR;
        });
  }

  /** The subcommand's full name and a space ({@code "lemmas check "}), empty for the top level. */
  private static String commandName(CommandLine cl) {
    String name = "";
    for (CommandLine c = cl; c.getParent() != null; c = c.getParent()) {
      name = c.getCommandName() + " " + name;
    }
    return name;
  }
}
