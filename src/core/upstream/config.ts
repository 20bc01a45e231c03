import { ValidationError } from '../errors.js';

/** U8: monitor timing. The miss limit (U2) and echo window (U4) are protocol limits, not options. */
export interface MonitorConfig {
  /** Fixed interval between ticks. */
  intervalMs: number;
  /** Delay of the first tick after start (lets a just-started runtime settle). */
  firstDelayMs: number;
  /** A source check slower than this is abandoned as inconclusive (U2), so one source cannot stall the tick. */
  checkTimeoutMs: number;
}

/** U8: the default monitor timing: a check every 60 s, the first after 15 s, a source check abandoned after 45 s. */
export const DEFAULT_MONITOR_CONFIG: MonitorConfig = {
  intervalMs: 60_000,
  firstDelayMs: 15_000,
  checkTimeoutMs: 45_000,
};

/** Fills defaults and rejects non-integer or out-of-range values with a ValidationError naming the field. */
export function resolveMonitorConfig(options: Partial<MonitorConfig> = {}): MonitorConfig {
  const out = { ...DEFAULT_MONITOR_CONFIG };
  for (const field of Object.keys(DEFAULT_MONITOR_CONFIG) as (keyof MonitorConfig)[]) {
    const value = options[field];
    if (value === undefined) continue;
    const min = field === 'firstDelayMs' ? 0 : 1;
    // Number.isSafeInteger is false for anything that is not a number.
    if (!Number.isSafeInteger(value) || value < min) {
      throw new ValidationError(field, 'range', `must be an integer >= ${min}`);
    }
    out[field] = value;
  }
  return out;
}
