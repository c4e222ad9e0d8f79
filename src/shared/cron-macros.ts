/**
 * The macros a schedule's cron expression may be instead of five fields, and the fields each stands
 * for: one list for the parser (src/schedules/cron.ts), the contract's description and the console.
 * Pure data: workflow-safe.
 */
export const CRON_MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
