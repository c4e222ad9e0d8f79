package dev.delayedtasks.client.stores;

import dev.delayedtasks.client.callback.IdempotencyStore;

/** Opens a store from a server URL; named by class in a fleet receiver's command line. */
public interface StoreFactory {
  IdempotencyStore open(String url) throws Exception;
}
