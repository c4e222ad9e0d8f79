package dev.delayedtasks.client.callback;

import dev.delayedtasks.client.stores.StoreVectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** conformance/stores/vectors.json against {@link InMemoryIdempotencyStore} (no SQL cases). */
class InMemoryStoreVectorsTest {
  @TestFactory
  Stream<DynamicTest> vectors() throws Exception {
    InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    return StoreVectors.tests(() -> store, null);
  }
}
