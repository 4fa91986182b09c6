package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line is built with the subcommand named first, or with all of them. */
class EntangleCommandTest {
  private static List<String> names() {
    return EntangleCommand.SUBCOMMANDS.stream().map(EntangleCommand.Subcommand::name).toList();
  }

  @Test
  void anAnnotatedSubcommandIsListedUnderItsOwnName() {
    for (EntangleCommand.Subcommand c : EntangleCommand.SUBCOMMANDS) {
      Object model = c.model().get();
      String own =
          model instanceof CommandLine.Model.CommandSpec spec
              ? spec.name()
              : model.getClass().getAnnotation(CommandLine.Command.class).name();
      assertEquals(c.name(), own);
    }
  }

  @Test
  void aNamedSubcommandIsBuiltAloneAndReadsAsWhenAllAreBuilt() {
    CommandLine all = EntangleCommand.commandLine();
    assertEquals(names(), List.copyOf(all.getSubcommands().keySet()));
    for (String name : names()) {
      CommandLine one = EntangleCommand.commandLine(name, "--help");
      assertEquals(List.of(name), List.copyOf(one.getSubcommands().keySet()));
      CommandLine alone = one.getSubcommands().get(name);
      CommandLine among = all.getSubcommands().get(name);
      assertEquals(among.getUsageMessage(), alone.getUsageMessage(), name);
      assertEquals(
          among.getSubcommands().keySet(), alone.getSubcommands().keySet(), name + "'s own");
    }
  }

  @Test
  void anythingElseFirstBuildsEverySubcommand() {
    for (String[] args :
        new String[][] {{}, {"--help"}, {"-V"}, {"chekc"}, {"--debug", "check"}, {"@args.txt"}}) {
      assertEquals(
          names(),
          List.copyOf(EntangleCommand.commandLine(args).getSubcommands().keySet()),
          String.join(" ", args));
    }
    String usage = EntangleCommand.commandLine().getUsageMessage();
    for (String name : names()) {
      assertEquals(true, usage.contains("  " + name + " "), name + " in\n" + usage);
    }
  }
}
