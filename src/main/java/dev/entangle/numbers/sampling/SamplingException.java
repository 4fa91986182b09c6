package dev.entangle.numbers.sampling;

/**
 * The input relation cannot be met by any inputs, or the sampler cannot invert it: the message
 * names the relation file, the entry (or equality) and the element where it fails.
 */
public final class SamplingException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SamplingException(String message) {
    super(message);
  }
}
