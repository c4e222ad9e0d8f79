package dev.delayedtasks.spring;

import dev.delayedtasks.client.callback.Callback;
import dev.delayedtasks.client.callback.CallbackHandler;
import dev.delayedtasks.client.callback.CallbackReceiver;
import dev.delayedtasks.client.callback.IdempotencyStore;
import dev.delayedtasks.client.callback.PermanentException;
import dev.delayedtasks.client.callback.ReceiverResponse;
import dev.delayedtasks.client.callback.WebhookVerifier;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds every {@link DelayedTaskHandler} once all singletons exist (as Spring's own event listener
 * methods are found) and builds the {@link CallbackReceiver} that serves them.
 */
public class DelayedTaskHandlerRegistry implements SmartInitializingSingleton, BeanFactoryAware {
  private static final Log LOG = LogFactory.getLog(DelayedTaskHandlerRegistry.class);

  private final Supplier<WebhookVerifier> verifier;
  private final boolean allowUnsigned;
  private final IdempotencyStore store;
  private ConfigurableListableBeanFactory beanFactory;
  private volatile CallbackReceiver receiver;
  private volatile Map<String, String> handlerNames = Map.of();

  /**
   * @param verifier the signature verifier, or a supplier of null when no secret is configured
   * @param allowUnsigned accept unsigned callbacks when there is no verifier; without it, handlers
   *     and no verifier fail the startup
   * @param store where handled idempotency keys are remembered
   */
  public DelayedTaskHandlerRegistry(
      Supplier<WebhookVerifier> verifier, boolean allowUnsigned, IdempotencyStore store) {
    this.verifier = verifier;
    this.allowUnsigned = allowUnsigned;
    this.store = store;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
  }

  @Override
  public void afterSingletonsInstantiated() {
    WebhookVerifier webhookVerifier = verifier.get();
    CallbackReceiver.Builder builder =
        CallbackReceiver.builder()
            .verifier(webhookVerifier)
            .allowUnsigned(allowUnsigned)
            .idempotencyStore(store);
    Map<String, String> names = new TreeMap<>();
    for (String beanName : beanFactory.getBeanNamesForType(Object.class, false, false)) {
      Class<?> type = beanFactory.getType(beanName, false);
      if (type == null || type.getName().startsWith("org.springframework.")) {
        continue;
      }
      Class<?> target = AopUtils.isAopProxy(type) ? AopUtils.getTargetClass(type) : type;
      DelayedTaskHandler onType =
          AnnotatedElementUtils.findMergedAnnotation(target, DelayedTaskHandler.class);
      if (onType != null) {
        Object bean = beanFactory.getBean(beanName);
        if (!(bean instanceof CallbackHandler handler)) {
          throw new IllegalStateException(
              "@DelayedTaskHandler on class "
                  + target.getName()
                  + " needs it to implement CallbackHandler");
        }
        register(builder, names, onType.value(), handler, beanName);
      }
      Map<Method, DelayedTaskHandler> methods =
          MethodIntrospector.selectMethods(
              target,
              (MethodIntrospector.MetadataLookup<DelayedTaskHandler>)
                  method ->
                      AnnotatedElementUtils.findMergedAnnotation(method, DelayedTaskHandler.class));
      for (Map.Entry<Method, DelayedTaskHandler> entry : methods.entrySet()) {
        Object bean = beanFactory.getBean(beanName);
        Method method = AopUtils.selectInvocableMethod(entry.getKey(), bean.getClass());
        register(
            builder,
            names,
            entry.getValue().value(),
            methodHandler(bean, method),
            beanName + "." + method.getName());
      }
    }
    this.handlerNames = Collections.unmodifiableMap(names);
    if (names.isEmpty() && webhookVerifier == null) {
      return; // Nothing to receive (an application using only the client): no receiver.
    }
    if (webhookVerifier == null && allowUnsigned) {
      LOG.warn(
          "delayed-tasks.webhook.allow-unsigned is set and no secret is: callbacks are accepted"
              + " without a signature check");
    }
    if (webhookVerifier == null && !allowUnsigned) {
      throw new IllegalStateException(
          "delayed-tasks.webhook.secrets is empty: set the service's whsec_ secret, or"
              + " delayed-tasks.webhook.allow-unsigned=true to accept unsigned callbacks");
    }
    this.receiver = builder.build();
  }

  /**
   * Whether callbacks are received: once the context has started, when there is a handler or a
   * secret.
   */
  public boolean isReceiving() {
    return receiver != null;
  }

  /**
   * Answers one delivery.
   *
   * @throws IllegalStateException when not {@link #isReceiving()}
   */
  public ReceiverResponse handle(Map<String, String> headers, byte[] body) {
    CallbackReceiver current = receiver;
    if (current == null) {
      throw new IllegalStateException(
          "no callback receiver: the context has not started, or it has no handler and no secret");
    }
    return current.handle(headers, body);
  }

  /** Task type to the bean (and method) handling it. */
  public Map<String, String> handlers() {
    return handlerNames;
  }

  private static void register(
      CallbackReceiver.Builder builder,
      Map<String, String> names,
      String taskType,
      CallbackHandler handler,
      String name) {
    String previous = names.putIfAbsent(taskType, name);
    if (previous != null) {
      throw new IllegalStateException(
          "task type " + taskType + " has two handlers: " + previous + " and " + name);
    }
    builder.handler(taskType, handler);
  }

  private static CallbackHandler methodHandler(Object bean, Method method) {
    if (method.getParameterCount() != 1) {
      throw new IllegalStateException(
          "@DelayedTaskHandler method " + method + " must take exactly one parameter");
    }
    Class<?> parameter = method.getParameterTypes()[0];
    ReflectionUtils.makeAccessible(method);
    return callback -> {
      Object argument;
      if (parameter == Callback.class) {
        argument = callback;
      } else {
        try {
          argument = callback.payloadAs(parameter);
        } catch (IllegalArgumentException e) {
          throw new PermanentException("payload does not bind to " + parameter.getSimpleName(), e);
        }
      }
      try {
        method.invoke(bean, argument);
      } catch (InvocationTargetException e) {
        Throwable cause = e.getCause();
        if (cause instanceof Exception exception) {
          throw exception;
        }
        throw e;
      }
    };
  }
}
