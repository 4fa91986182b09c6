/**
 * The command line: picocli commands ({@code check}, {@code import}, {@code batch}, {@code
 * manifest}, {@code draft-relation}, {@code lemmas check}), the result in words ({@code Report})
 * rendered as text, JSON, JUnit, SARIF and HTML, exit codes and error presentation decided in one
 * place ({@code ExitCodes}, {@code ErrorHandling}), and progress listeners. Only {@code Main} calls
 * {@code System.exit}.
 */
package dev.entangle.cli;
