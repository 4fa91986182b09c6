package dev.entangle.util;

/**
 * A problem with what the user gave us: a file, an argument, a graph or a relation.
 *
 * <p>The message is the whole user-facing paragraph: it names the file and the node, entry or line,
 * says what is wrong and what to do. The CLI prints it as-is and exits with code 2; it never prints
 * a stack trace unless {@code --debug} is given.
 */
public class InputException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InputException(String message) {
    super(message);
  }

  public InputException(String message, Throwable cause) {
    super(message, cause);
  }
}
