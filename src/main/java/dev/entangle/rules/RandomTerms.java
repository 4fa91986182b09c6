package dev.entangle.rules;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * Well-typed random terms of the core language in {@link TermReader} syntax, built top-down from
 * the shape each sub-term must have: concats of 2 to 4 parts, slices, reshapes, permutes, expands,
 * matmuls, element-wise operators, sums and reductions over small shapes. Leaves are drawn again
 * when one of the same shape exists, so that terms share tensors and lemmas meet.
 */
public final class RandomTerms {
  private final Random random;
  private final List<String> leafNames = new ArrayList<>();
  private final List<long[]> leafShapes = new ArrayList<>();

  public RandomTerms(long seed) {
    random = new Random(seed);
  }

  /** A term of a random shape of rank 1 to 3. */
  public String term(int depth) {
    long[] shape = new long[1 + random.nextInt(3)];
    for (int i = 0; i < shape.length; i++) {
      shape[i] = 1 + random.nextInt(4);
    }
    return term(shape, depth);
  }

  /** A term of the given shape. */
  String term(long[] shape, int depth) {
    if (depth <= 0) {
      return leaf(shape);
    }
    for (int tries = 0; tries < 8; tries++) {
      String t =
          switch (random.nextInt(10)) {
            case 0 -> concat(shape, depth);
            case 1 -> slice(shape, depth);
            case 2 -> reshape(shape, depth);
            case 3 -> permute(shape, depth);
            case 4 -> matmul(shape, depth);
            case 5 -> expand(shape, depth);
            case 6 -> "(" + pick("exp", "neg", "relu") + " " + term(shape, depth - 1) + ")";
            case 7 ->
                "("
                    + pick("add", "mul", "sumn")
                    + " "
                    + term(shape, depth - 1)
                    + " "
                    + term(shape, depth - 1)
                    + ")";
            case 8 -> reduce(shape, depth);
            default -> concat(shape, depth);
          };
      if (t != null) {
        return t;
      }
    }
    return leaf(shape);
  }

  private String leaf(long[] shape) {
    for (int i = 0; i < leafShapes.size(); i++) {
      if (Arrays.equals(leafShapes.get(i), shape) && random.nextInt(3) > 0) {
        return leafNames.get(i);
      }
    }
    String name = "t" + leafNames.size();
    leafNames.add(name);
    leafShapes.add(shape.clone());
    return name
        + ":f32["
        + Arrays.stream(shape).mapToObj(Long::toString).collect(Collectors.joining(","))
        + "]";
  }

  private String concat(long[] shape, int depth) {
    List<Integer> dims = new ArrayList<>();
    for (int d = 0; d < shape.length; d++) {
      if (shape[d] >= 2) {
        dims.add(d);
      }
    }
    if (dims.isEmpty()) {
      return null;
    }
    int d = dims.get(random.nextInt(dims.size()));
    int parts = 2 + random.nextInt((int) Math.min(3, shape[d] - 1));
    long[] sizes = new long[parts];
    Arrays.fill(sizes, 1);
    for (long left = shape[d] - parts; left > 0; left--) {
      sizes[random.nextInt(parts)]++;
    }
    StringBuilder sb = new StringBuilder("(concat[" + d + "]");
    for (long s : sizes) {
      sb.append(' ').append(term(with(shape, d, s), depth - 1));
    }
    return sb.append(')').toString();
  }

  private String slice(long[] shape, int depth) {
    int d = random.nextInt(shape.length);
    int extra = random.nextInt(4);
    int start = random.nextInt(extra + 1);
    return "(slice["
        + d
        + " "
        + start
        + " "
        + (start + shape[d])
        + " 1] "
        + term(with(shape, d, shape[d] + extra), depth - 1)
        + ")";
  }

  private String reshape(long[] shape, int depth) {
    long[] in;
    int d = random.nextInt(shape.length);
    if (shape.length >= 2 && d + 1 < shape.length && random.nextBoolean()) {
      in = new long[shape.length - 1];
      for (int i = 0, j = 0; i < shape.length; i++) {
        if (i == d + 1) {
          in[j - 1] *= shape[i];
        } else {
          in[j++] = shape[i];
        }
      }
    } else if (shape[d] % 2 == 0 && shape.length < 4) {
      in = new long[shape.length + 1];
      for (int i = 0, j = 0; i < shape.length; i++) {
        if (i == d) {
          in[j++] = 2;
          in[j++] = shape[i] / 2;
        } else {
          in[j++] = shape[i];
        }
      }
    } else {
      return null;
    }
    return "(reshape" + attrs(shape) + " " + term(in, depth - 1) + ")";
  }

  private String permute(long[] shape, int depth) {
    if (shape.length < 2) {
      return null;
    }
    List<Long> p = new ArrayList<>();
    for (long i = 0; i < shape.length; i++) {
      p.add(i);
    }
    Collections.shuffle(p, random);
    long[] perm = p.stream().mapToLong(Long::longValue).toArray();
    long[] in = new long[shape.length];
    for (int i = 0; i < shape.length; i++) {
      in[(int) perm[i]] = shape[i];
    }
    return "(permute" + attrs(perm) + " " + term(in, depth - 1) + ")";
  }

  private String matmul(long[] shape, int depth) {
    if (shape.length < 2) {
      return null;
    }
    long k = 1 + random.nextInt(4);
    long[] a = with(shape, shape.length - 1, k);
    long[] b;
    if (shape.length == 2 || random.nextBoolean()) {
      b = new long[] {k, shape[shape.length - 1]};
    } else {
      b = with(shape, shape.length - 2, k);
    }
    return "(matmul " + term(a, depth - 1) + " " + term(b, depth - 1) + ")";
  }

  private String expand(long[] shape, int depth) {
    long[] in = shape.clone();
    boolean any = false;
    for (int i = 0; i < in.length; i++) {
      if (random.nextInt(3) == 0) {
        in[i] = 1;
        any = true;
      }
    }
    if (!any) {
      return null;
    }
    return "(expand" + attrs(shape) + " " + term(in, depth - 1) + ")";
  }

  private String reduce(long[] shape, int depth) {
    List<Integer> ones = new ArrayList<>();
    for (int d = 0; d < shape.length; d++) {
      if (shape[d] == 1) {
        ones.add(d);
      }
    }
    if (ones.isEmpty()) {
      return null;
    }
    int d = ones.get(random.nextInt(ones.size()));
    String op = pick("rsum", "ramax", "rmean");
    return "("
        + op
        + "[1 "
        + d
        + "] "
        + term(with(shape, d, 1 + random.nextInt(4)), depth - 1)
        + ")";
  }

  private String pick(String... options) {
    return options[random.nextInt(options.length)];
  }

  private static long[] with(long[] shape, int d, long size) {
    long[] s = shape.clone();
    s[d] = size;
    return s;
  }

  private static String attrs(long[] values) {
    return Arrays.toString(values).replace(",", "");
  }
}
