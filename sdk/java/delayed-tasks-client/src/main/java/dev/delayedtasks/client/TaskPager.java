package dev.delayedtasks.client;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Every task of a list, page after page. Each iteration starts again from the first page; pages are
 * fetched only as they are reached.
 */
public final class TaskPager implements Iterable<TaskSummary> {
  private final Function<ListTasksRequest, TaskPage> fetch;
  private final ListTasksRequest first;

  TaskPager(Function<ListTasksRequest, TaskPage> fetch, ListTasksRequest first) {
    this.fetch = fetch;
    this.first = first;
  }

  @Override
  public Iterator<TaskSummary> iterator() {
    return new Iterator<>() {
      private Iterator<TaskSummary> current = null;
      private String nextToken = null;
      private boolean lastPage = false;

      @Override
      public boolean hasNext() {
        while (current == null || !current.hasNext()) {
          if (lastPage) {
            return false;
          }
          TaskPage page = fetch.apply(current == null ? first : first.withPageToken(nextToken));
          current = page.tasks().iterator();
          nextToken = page.nextPageToken();
          lastPage = nextToken == null;
        }
        return true;
      }

      @Override
      public TaskSummary next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return current.next();
      }
    };
  }

  /** The tasks as a sequential, lazy stream. */
  public Stream<TaskSummary> stream() {
    return StreamSupport.stream(
        Spliterators.spliteratorUnknownSize(iterator(), Spliterator.ORDERED | Spliterator.NONNULL),
        false);
  }
}
