package dev.entangle.rules;

import java.util.List;

/** A loaded lemma library: the rules written in lemma files and the native lemmas they enable. */
public record Lemmas(List<Rule> rules, List<NativeRule> natives) {
  public Lemmas {
    rules = List.copyOf(rules);
    natives = List.copyOf(natives);
  }

  /** Every lemma's name, rules first, in the order their application counts are reported. */
  public List<String> names() {
    List<String> out = new java.util.ArrayList<>();
    rules.forEach(r -> out.add(r.name()));
    natives.forEach(n -> out.add(n.name()));
    return out;
  }
}
