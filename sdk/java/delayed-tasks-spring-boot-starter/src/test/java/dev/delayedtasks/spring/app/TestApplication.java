package dev.delayedtasks.spring.app;

import dev.delayedtasks.client.callback.Callback;
import dev.delayedtasks.client.callback.CallbackHandler;
import dev.delayedtasks.client.callback.PermanentException;
import dev.delayedtasks.client.callback.RetryableException;
import dev.delayedtasks.spring.DelayedTaskHandler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/** A user's application: handlers written as annotated methods and as an annotated bean. */
@SpringBootApplication
public class TestApplication {

  /** The payload of {@code order.close}, bound by Jackson. */
  public record OrderClose(String orderId, long amountCents) {}

  @Component
  public static class OrderHandlers {
    public final List<OrderClose> closed = new CopyOnWriteArrayList<>();

    @DelayedTaskHandler("order.close")
    public void close(OrderClose payload) {
      closed.add(payload);
    }

    @DelayedTaskHandler("order.busy")
    public void busy(Callback callback) {
      throw new RetryableException("warehouse busy", Duration.ofSeconds(5));
    }

    @DelayedTaskHandler("order.reject")
    public void reject(Callback callback) {
      throw new PermanentException("no such order");
    }

    @DelayedTaskHandler("order.crash")
    public void crash(Callback callback) {
      throw new IllegalStateException("secret internals");
    }
  }

  @Component
  @DelayedTaskHandler("coupon.expire")
  public static class CouponExpiry implements CallbackHandler {
    public final List<Callback> expired = new CopyOnWriteArrayList<>();

    @Override
    public void handle(Callback callback) {
      expired.add(callback);
    }
  }
}
