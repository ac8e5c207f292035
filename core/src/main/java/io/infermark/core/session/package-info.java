/**
 * Sessions as graphs: an agent or chat session is a sequence of {@link io.infermark.core.session.Turn turns}
 * whose prompts carry the session's real history (the server's actual replies), where a turn may call
 * client-side {@link io.infermark.core.session.ToolCall tools}, {@link io.infermark.core.session.FanOut fan out}
 * to parallel sub-agent calls and join them, and retry failed calls under a
 * {@link io.infermark.core.session.RetryPolicy}. {@link io.infermark.core.session.SessionWorkload} runs them on
 * the engine's asynchronous issuing path, every call one {@code RequestRecord} tagged as
 * {@link io.infermark.core.session.SessionTags} says.
 *
 * <p>May import: {@code io.infermark.core.capture}, {@code io.infermark.core.load},
 * {@code io.infermark.core.request}, {@code io.infermark.core.tokens}, {@code io.infermark.core.workload}.
 * Nothing else of infermark: the floors are in docs/architecture.md and ArchitectureTest holds every package
 * to this line.
 */
package io.infermark.core.session;
