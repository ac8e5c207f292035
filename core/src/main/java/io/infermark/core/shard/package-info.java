/**
 * Scale-out: one open-loop schedule split over several machines ({@code LoadProfile.shard}), a
 * wall-clock {@link io.infermark.core.shard.StartBarrier} so the shards start together, and
 * {@code sweep.ShardMerge} to make their results one.
 *
 * <p>May import: no other infermark package.
 */
package io.infermark.core.shard;
