package dev.delayedtasks.client;

/**
 * One problem with one field of a request, as the API reports it.
 *
 * @param field the field path, e.g. {@code payload.items.2}
 * @param reason human-readable text; not stable
 */
public record ErrorDetail(String field, String reason) {}
