export { createActivities, createCallbackDispatcher, type CallbackActivities } from './callback.js';
