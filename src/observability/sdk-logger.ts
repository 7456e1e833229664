import type { LogLevel, LogMetadata, Logger as SdkLogger } from '@temporalio/common';
import type { Logger } from 'pino';

/**
 * The Temporal SDK's own log lines (worker state, core warnings) as helmflow's JSON lines: the SDK's default
 * logger writes multi-line text to the console, which a log pipeline reading JSON cannot parse.
 */
export function sdkLogger(log: Logger): SdkLogger {
  const sdk = log.child({ component: 'temporal-sdk' });
  const write = (level: LogLevel, message: string, meta: LogMetadata = {}) => {
    const fields = { ...meta };
    if (level === 'TRACE') sdk.trace(fields, message);
    else if (level === 'DEBUG') sdk.debug(fields, message);
    else if (level === 'INFO') sdk.info(fields, message);
    else if (level === 'WARN') sdk.warn(fields, message);
    else sdk.error(fields, message);
  };
  const at = (level: LogLevel) => (message: string, meta?: LogMetadata) => {
    write(level, message, meta);
  };
  return { log: write, trace: at('TRACE'), debug: at('DEBUG'), info: at('INFO'), warn: at('WARN'), error: at('ERROR') };
}
