/** Spring Boot auto-configuration. */
package dev.delayedtasks.spring;
