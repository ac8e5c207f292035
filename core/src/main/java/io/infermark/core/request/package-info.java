/**
 * What is sent: {@link io.infermark.core.request.Prompt} (messages or text, tags), {@link
 * io.infermark.core.request.GenerationParams} and {@link io.infermark.core.request.InferenceRequest}, as
 * immutable values.
 *
 * <p>May import: no other infermark package.
 */
package io.infermark.core.request;
