package dev.delayedtasks.spring;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code delayed-tasks.*} settings.
 *
 * @param baseUrl the service's base URL; the client bean exists only when it is set
 * @param apiKey sent as {@code Authorization: Bearer}; optional
 * @param timeout limit of one HTTP attempt
 * @param maxRetries retries of 503/429/network failures
 * @param callback the callback endpoint
 * @param webhook signature checking of callbacks
 */
@ConfigurationProperties("delayed-tasks")
public record DelayedTasksProperties(
    String baseUrl,
    String apiKey,
    @DefaultValue("10s") Duration timeout,
    @DefaultValue("3") int maxRetries,
    @DefaultValue Callback callback,
    @DefaultValue Webhook webhook) {

  /**
   * The callback endpoint.
   *
   * @param enabled whether to register it (servlet web applications only)
   * @param path where it listens
   */
  public record Callback(
      @DefaultValue("true") boolean enabled,
      @DefaultValue("/delayed-tasks/callback") String path) {}

  /**
   * Standard Webhooks signature checks.
   *
   * @param secrets {@code whsec_<base64>} secrets (several while rotating); without any, the
   *     application does not start while it has handlers, unless {@code allowUnsigned}
   * @param tolerance how far a timestamp may be from now, both ways
   * @param allowUnsigned accept unsigned callbacks when no secret is set (never when one is)
   */
  public record Webhook(
      List<String> secrets,
      @DefaultValue("5m") Duration tolerance,
      @DefaultValue("false") boolean allowUnsigned) {
    public Webhook {
      secrets = secrets == null ? List.of() : List.copyOf(secrets);
    }
  }
}
