package dev.entangle.numbers.sampling;

import dev.entangle.core.Dtype;
import dev.entangle.core.IdRange;
import dev.entangle.core.numeric.Rounding;
import java.util.SplittableRandom;

/**
 * The random numbers of one sampling run, all from one seeded generator: inputs (floats uniform in
 * [-1, 1) rounded to their dtype, integers uniform below a bound, booleans fair), the parts of a
 * sum and the margins of a max or min.
 */
final class RandomValues {
  /** Integers with no known bound range over [0, this). */
  static final long DEFAULT_INT_BOUND = 8;

  private final SplittableRandom rng;

  RandomValues(long seed) {
    this.rng = new SplittableRandom(seed);
  }

  /** One input element of {@code dtype}; integers lie in {@code ids}. */
  double input(int dtype, IdRange ids) {
    if (dtype == Dtype.BOOL.code()) {
      return rng.nextBoolean() ? 1 : 0;
    }
    if (Rounding.isIntegral(dtype)) {
      return ids.lo() + rng.nextLong(ids.hi() - ids.lo());
    }
    return Rounding.to(dtype, rng.nextDouble(-1, 1));
  }

  /** Integers in [0, bound): the ids below a lookup's bound (at least one value). */
  static IdRange below(long bound) {
    return new IdRange(0, Math.max(bound, 1));
  }

  /** A random part of a sum: small integers for integral dtypes, else uniform in [-1, 1). */
  double part(int dtype) {
    return Rounding.isIntegral(dtype) ? rng.nextLong(-3, 4) : rng.nextDouble(-1, 1);
  }

  /** A positive margin below a max (above a min): at least 1 for integers, else in [0.1, 1.1). */
  double margin(int dtype) {
    return Rounding.isIntegral(dtype) ? 1 + rng.nextLong(3) : 0.1 + rng.nextDouble();
  }
}
