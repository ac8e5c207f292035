/**
 * Pipeline targets: stages that run on the client before the generation request, reported as
 * phases of the request's record so latency decompositions and tail attribution see them. A
 * {@link io.infermark.core.pipeline.RetrievalTarget} runs a {@link io.infermark.core.pipeline.Retriever}
 * (vector search, BM25, anything) and then generates from the retrieved passages.
 *
 * <p>May import: {@code io.infermark.core.capture}, {@code io.infermark.core.health},
 * {@code io.infermark.core.protocol}, {@code io.infermark.core.request}, {@code io.infermark.core.time},
 * {@code io.infermark.core.transport}. Nothing else of infermark: the floors are in docs/architecture.md and
 * ArchitectureTest holds every package to this line.
 */
package io.infermark.core.pipeline;
