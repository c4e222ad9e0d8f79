/** Kept equal to package.json's version (a unit test checks). */
export const SDK_VERSION = '0.4.0';
export const USER_AGENT = `delayed-tasks-typescript/${SDK_VERSION}`;
