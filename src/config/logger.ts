import { pino, type Logger } from 'pino';

/** Structured JSON logs on stderr; HELMFLOW_LOG_LEVEL sets the level. */
export function createLogger(name: string): Logger {
  return pino({ name, level: process.env.HELMFLOW_LOG_LEVEL ?? 'info' }, pino.destination(2));
}
