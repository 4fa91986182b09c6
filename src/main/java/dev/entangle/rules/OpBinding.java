package dev.entangle.rules;

/** What an operator variable binds: the operator and its attributes. */
record OpBinding(int op, long[] attrs) {}
