package dev.entangle.cli;

import dev.entangle.util.DidYouMean;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/** "did you mean" for a misspelled option: the command's options closest to the first unknown. */
final class UnknownOptions {
  private UnknownOptions() {}

  /** {@code " (did you mean '--timeout'?)"}, or the empty string. */
  static String hint(CommandLine.ParameterException ex) {
    if (!(ex instanceof CommandLine.UnmatchedArgumentException u)) {
      return "";
    }
    List<String> known = new ArrayList<>();
    for (CommandLine.Model.OptionSpec o : ex.getCommandLine().getCommandSpec().options()) {
      known.addAll(List.of(o.names()));
    }
    for (String arg : u.getUnmatched()) {
      if (arg.startsWith("-")) {
        String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
        return DidYouMean.hint(name, known);
      }
    }
    return "";
  }
}
