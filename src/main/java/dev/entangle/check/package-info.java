/**
 * One check as a library call: the inputs read from files, validated and lowered once, the
 * refinement check run over them with its settings, and the outcome handed back as values. {@code
 * entangle check} and {@code entangle batch} both run checks through here; rendering the outcome
 * (text, JSON, JUnit, SARIF, HTML) is the command line's.
 */
package dev.entangle.check;
