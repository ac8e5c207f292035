/**
 * The option mixins and flag converters that both the top-level commands ({@code cli}) and the scenario kits
 * ({@code cli.scenario}) use: where to send requests ({@code TargetOptions}, with the model a server serves when
 * {@code --model} is missing) and durations as people type them ({@code DurationText}). It imports neither of its
 * users, so they do not import each other. Not a library API.
 *
 * <p>May import: {@code io.infermark.core.protocol}, {@code io.infermark.core.transport.netty}. Nothing else of
 * infermark: the floors are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.cli.options;
