package dev.delayedtasks.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the handler of one task type's callbacks, served by the auto-configured callback endpoint.
 *
 * <p>On a method of any bean: the method takes one parameter, either the {@link
 * dev.delayedtasks.client.callback.Callback} or a type the payload is bound to with Jackson. On a
 * bean class implementing {@link dev.delayedtasks.client.callback.CallbackHandler}: that bean
 * handles the type.
 *
 * <pre>{@code
 * @Component
 * class OrderCallbacks {
 *   @DelayedTaskHandler("order.close")
 *   void close(OrderClose payload) { orders.close(payload.orderId()); }
 * }
 * }</pre>
 *
 * Returning answers 200; {@link dev.delayedtasks.client.callback.RetryableException} 503; {@link
 * dev.delayedtasks.client.callback.PermanentException} (or a payload that does not bind) 422; any
 * other exception 500.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayedTaskHandler {
  /** The task type, e.g. {@code order.close}. */
  String value();
}
