/**
 * Pipeline targets: stages that run on the client before the generation request, reported as
 * phases of the request's record so latency decompositions and tail attribution see them. A
 * {@link io.infermark.core.pipeline.RetrievalTarget} runs a {@link io.infermark.core.pipeline.Retriever}
 * (vector search, BM25, anything) and then generates from the retrieved passages.
 */
package io.infermark.core.pipeline;
