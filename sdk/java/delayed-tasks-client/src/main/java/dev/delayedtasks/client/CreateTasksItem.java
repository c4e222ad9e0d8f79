package dev.delayedtasks.client;

/**
 * One entry of {@link DelayedTasksClient#createTasks}, in request order: the task when the item
 * succeeded, else the exception a single {@link DelayedTasksClient#create} of it would have thrown
 * (status 0 when it was refused before sending).
 *
 * @param index the item's position in the list given to {@code createTasks}
 * @param taskId the id sent, generated when the request had none (for an item refused before
 *     sending, the request's own, or null); re-send an item that failed with {@code UNAVAILABLE}
 *     under this id
 * @param task the created or existing task, or null when the item failed
 * @param created true when made now (201), false for an identical existing task (200) or a failure
 * @param error the item's error, or null when it succeeded
 */
public record CreateTasksItem(
    int index, String taskId, Task task, boolean created, DelayedTaskException error) {

  static CreateTasksItem succeeded(int index, String taskId, Task task, boolean created) {
    return new CreateTasksItem(index, taskId, task, created, null);
  }

  static CreateTasksItem failed(int index, String taskId, DelayedTaskException error) {
    return new CreateTasksItem(index, taskId, null, false, error);
  }

  /** True when the task exists now (created or an identical existing one). */
  public boolean isSuccess() {
    return error == null;
  }
}
