package io.infermark.testkit.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a non-final instance field of type {@link io.infermark.testkit.simulator.Simulator
 * Simulator}, {@link InferenceEndpoint} or {@link io.infermark.core.protocol.OpenAiTarget
 * OpenAiTarget} for {@link SimulatorExtension} to fill before each test.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface InjectSimulator {}
