package io.infermark.testkit.junit;

import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * A JUnit 5 extension that gives tests an OpenAI-compatible server: a {@link Simulator} it starts
 * and closes, or an external endpoint. It injects {@link Simulator}, {@link InferenceEndpoint} and
 * {@link OpenAiTarget} (a chat target, closed after the test) as test or lifecycle method
 * parameters, and into {@link InjectSimulator @InjectSimulator} fields.
 *
 * <p>Three ways to use it:
 * <pre>{@code
 * @WithSimulator(profile = "llama-8b-h200")               // 1. annotation (class or method)
 * class A { @Test void t(OpenAiTarget target) { ... } }
 *
 * class B {                                                // 2. registered with a full configuration
 *   @RegisterExtension
 *   static SimulatorExtension sim = SimulatorExtension.withConfig(SimulatorConfig.builder()
 *       .engine(EngineProfile.earlySaturation()).fault(Fault.serverError(), 0.01).build());
 *   @Test void t(Simulator simulator) { ... }
 * }
 *
 * class C {                                                // 3. an external server
 *   @RegisterExtension
 *   static SimulatorExtension server = SimulatorExtension.endpoint("http://gpu-box:8000/v1", "llama");
 * }
 * }</pre>
 *
 * <p>Lifecycle: registered in a static field or configured on the class, one simulator serves the
 * whole class and is closed after all its tests; registered in an instance field or configured on
 * a method, each test gets a fresh one, closed after it. With the system property
 * {@value #ENDPOINT_PROPERTY} set, annotation-configured tests run against that server instead
 * (model from {@value #MODEL_PROPERTY}, else the annotation's).
 */
public final class SimulatorExtension implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback,
    AfterAllCallback, ParameterResolver {

  /** System property naming an external server's base URL; when set, annotated tests use it instead. */
  public static final String ENDPOINT_PROPERTY = "infermark.endpoint";
  /** System property naming the external server's model. */
  public static final String MODEL_PROPERTY = "infermark.model";

  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(
      SimulatorExtension.class);

  private final SimulatorConfig config; // null: configured by annotation
  private final String externalUrl; // null: simulated
  private final String externalModel;

  /** Used by {@link WithSimulator}: the configuration comes from the annotation. */
  public SimulatorExtension() {
    this(null, null, null);
  }

  private SimulatorExtension(SimulatorConfig config, String externalUrl, String externalModel) {
    this.config = config;
    this.externalUrl = externalUrl;
    this.externalModel = externalModel;
  }

  /** An extension that starts simulators with {@code config}. */
  public static SimulatorExtension withConfig(SimulatorConfig config) {
    return new SimulatorExtension(Objects.requireNonNull(config, "config"), null, null);
  }

  /** An extension that starts no simulator and points tests at an external server. */
  public static SimulatorExtension endpoint(String baseUrl, String model) {
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(model, "model");
    if (!baseUrl.startsWith("http://") && !baseUrl.startsWith("https://")) {
      throw new IllegalArgumentException("baseUrl must be an http(s) URL, was '" + baseUrl + "'");
    }
    return new SimulatorExtension(null, baseUrl, model);
  }

  /** What one context started, to be closed when the context ends. */
  private static final class Resources {
    final InferenceEndpoint endpoint;
    final List<OpenAiTarget> targets = new ArrayList<>();

    Resources(InferenceEndpoint endpoint) {
      this.endpoint = endpoint;
    }

    void close() {
      for (OpenAiTarget t : targets) {
        t.close();
      }
      endpoint.simulator().ifPresent(Simulator::close);
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    // Class-wide when registered statically or configured on the class.
    Optional<WithSimulator> onClass = context.getTestClass()
        .flatMap(c -> AnnotationSupport.findAnnotation(c, WithSimulator.class));
    if (config != null || externalUrl != null || onClass.isPresent()) {
      start(context, onClass.orElse(null));
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IllegalAccessException {
    Optional<WithSimulator> onMethod = context.getTestMethod()
        .flatMap(m -> AnnotationSupport.findAnnotation(m, WithSimulator.class));
    if (onMethod.isPresent() || find(context.getParent().orElse(null)) == null) {
      start(context, onMethod.orElse(null));
    }
    Resources r = find(context);
    for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
      for (Field f : AnnotationSupport.findAnnotatedFields(instance.getClass(), InjectSimulator.class)) {
        if (Modifier.isStatic(f.getModifiers()) || Modifier.isFinal(f.getModifiers())) {
          throw new ExtensionConfigurationException("@InjectSimulator field " + f + " must be neither static nor final");
        }
        f.setAccessible(true);
        f.set(instance, value(f.getType(), r, "field " + f.getName()));
      }
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    close(context);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == Simulator.class || type == InferenceEndpoint.class || type == OpenAiTarget.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Resources r = find(context);
    if (r == null) {
      throw new ParameterResolutionException("no simulator or endpoint is active for " + context.getDisplayName()
          + "; configure one with @WithSimulator or a registered SimulatorExtension");
    }
    return value(parameter.getParameter().getType(), r, "parameter " + parameter.getIndex() + " of "
        + context.getDisplayName());
  }

  private static Object value(Class<?> type, Resources r, String where) {
    if (type == InferenceEndpoint.class) {
      return r.endpoint;
    }
    if (type == OpenAiTarget.class) {
      OpenAiTarget target = r.endpoint.chatTarget();
      r.targets.add(target);
      return target;
    }
    if (type == Simulator.class) {
      return r.endpoint.simulator().orElseThrow(() -> new ParameterResolutionException(where + " asks for a "
          + "Simulator, but the tests run against the external server " + r.endpoint.baseUrl()
          + "; ask for an InferenceEndpoint or an OpenAiTarget instead"));
    }
    throw new ParameterResolutionException(where + " has type " + type.getName() + "; SimulatorExtension injects "
        + "Simulator, InferenceEndpoint and OpenAiTarget");
  }

  private void start(ExtensionContext context, WithSimulator annotation) {
    Resources r;
    String url = externalUrl;
    String model = externalModel;
    if (url == null && config == null && System.getProperty(ENDPOINT_PROPERTY) != null) {
      url = System.getProperty(ENDPOINT_PROPERTY);
      model = System.getProperty(MODEL_PROPERTY, annotation == null ? SimulatorConfig.DEFAULT_MODEL
          : annotation.model());
    }
    if (url != null) {
      r = new Resources(new InferenceEndpoint(url, model, null));
    } else {
      SimulatorConfig c = config != null && annotation == null ? config : fromAnnotation(annotation);
      Simulator sim = Simulator.start(c);
      r = new Resources(new InferenceEndpoint(sim.baseUrl() + "/v1", c.model(), sim));
    }
    // remove() looks only at this context's store, never an enclosing one's.
    Resources previous = context.getStore(NAMESPACE).remove(Resources.class, Resources.class);
    if (previous != null) {
      previous.close();
    }
    context.getStore(NAMESPACE).put(Resources.class, r);
  }

  static SimulatorConfig fromAnnotation(WithSimulator a) {
    if (a == null) {
      return SimulatorConfig.defaults();
    }
    SimulatorConfig.Builder b = SimulatorConfig.builder().model(a.model()).seed(a.seed())
        .timeToFirstToken(Duration.ofMillis(a.timeToFirstTokenMillis()))
        .interTokenInterval(Duration.ofMillis(a.interTokenIntervalMillis()))
        .defaultOutputTokens(a.defaultOutputTokens()).tokensPerChunk(a.tokensPerChunk());
    if (!a.profile().isEmpty()) {
      b.engine(EngineProfile.named(a.profile()));
    }
    return b.build();
  }

  /** The resources of this context or the nearest enclosing one that has them (a store's get looks outward). */
  private static Resources find(ExtensionContext context) {
    return context == null ? null : context.getStore(NAMESPACE).get(Resources.class, Resources.class);
  }

  private static void close(ExtensionContext context) {
    Resources r = context.getStore(NAMESPACE).remove(Resources.class, Resources.class);
    if (r != null) {
      r.close();
    }
  }

  @Override
  public String toString() {
    return "SimulatorExtension[" + (externalUrl != null ? externalUrl : config != null ? config : "from annotation")
        + "]";
  }
}
