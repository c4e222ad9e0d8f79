export { delayedTask } from './delayed-task.js';
