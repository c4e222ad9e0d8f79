/** Client of the delayed-task service. */
package dev.delayedtasks.client;
