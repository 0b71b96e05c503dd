/** Redis connections for the fleet: commands fail fast when Redis is away; workers wait for it to come back. */
import { Redis, type RedisOptions } from "ioredis";

export const DEFAULT_QUEUE = "toolgate";

export function parseRedisUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`--redis ${url} is not a URL (e.g. redis://127.0.0.1:6379)`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") throw new Error(`--redis ${url}: the URL must start with redis:// or rediss://`);
  return parsed;
}

/** For submit, status, results, cancel: a few quick retries, then the command's error. */
export function commandConnection(url: string): Redis {
  parseRedisUrl(url);
  const options: RedisOptions = { maxRetriesPerRequest: 1, retryStrategy: (times) => (times > 3 ? null : 200), lazyConnect: false };
  return new Redis(url, options);
}

/** For workers: BullMQ's blocking commands need maxRetriesPerRequest null; reconnect forever with a capped backoff. */
export function workerConnection(url: string): Redis {
  parseRedisUrl(url);
  return new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(times * 200, 2_000) });
}
