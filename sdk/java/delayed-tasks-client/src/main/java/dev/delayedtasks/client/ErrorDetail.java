package dev.delayedtasks.client;

/**
 * One problem with one field of a request, as the API reports it.
 *
 * @param field the field path, e.g. {@code payload.items.2}
 * @param reason why, as the API words it; the reasons of the checks before sending are the same in
 *     every SDK of this service (e.g. {@code is not a finite number})
 */
public record ErrorDetail(String field, String reason) {}
