import pino, { Logger } from 'pino';
import { config } from './config';

export type { Logger };

export function createLogger(service: string): Logger {
  return pino({ name: service, level: config().LOG_LEVEL, base: { service } });
}
