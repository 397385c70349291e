/**
 * Per-provider call limits shared by every `tau worker` of a run, kept in
 * Redis. One process keeps an AIMD limit per provider (halve on a 429, about
 * one more slot per window of successes, capped by `--max-concurrency`); a
 * fleet keeps one such limit per (run, provider) in Redis, and every model
 * call of every worker holds a lease on it. So a 429 anywhere halves what the
 * whole fleet sends to that provider, not what each worker may send.
 *
 * Two differences from the in-process limiter, both for a fleet's sake: only
 * calls begun since the last decrease count as successes towards growing
 * again (the calls in flight when the 429 came say nothing about the new
 * limit), and a lease expires `leaseMs` after its last renewal, so a killed
 * worker's slots come back.
 */
import type { Redis } from "ioredis";
import { LlmError } from "../llm/errors.ts";
import type { LlmClient, LlmRequest, LlmResponse } from "../llm/types.ts";
import { isRateLimitError, ProviderScheduler, type Waiter, waitInLine } from "../runner/concurrency.ts";

/** Lua: `now` in ms from Redis's own clock (the workers' clocks may disagree). */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * KEYS: state hash, leases zset; ARGV: max, lease ms, then lease ids wanted. Grants as many of them
 * (in order) as the limit leaves free; returns the epoch and how many.
 */
const ACQUIRE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local limit = tonumber(redis.call('HGET', KEYS[1], 'limit'))
if not limit then
  limit = tonumber(ARGV[1])
  redis.call('HSET', KEYS[1], 'limit', limit, 'epoch', 0, 'decreased', 0, 'decreases', 0)
end
redis.call('PEXPIRE', KEYS[1], 86400000)
local free = math.floor(limit) - redis.call('ZCARD', KEYS[2])
local granted = 0
for i = 3, #ARGV do
  if granted >= free then break end
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[i])
  granted = granted + 1
end
redis.call('PEXPIRE', KEYS[2], 86400000)
return { tonumber(redis.call('HGET', KEYS[1], 'epoch')), granted }`;

/**
 * KEYS: state hash, leases zset; ARGV: lease id, its epoch, 1 on success, max, channel, message.
 * Frees the lease, grows the limit by 1/limit for a success of the current epoch, wakes the waiters.
 */
const RELEASE = `redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[3] == '1' and tonumber(redis.call('HGET', KEYS[1], 'epoch') or '-1') == tonumber(ARGV[2]) then
  local limit = tonumber(redis.call('HGET', KEYS[1], 'limit'))
  local max = tonumber(ARGV[4])
  if limit and limit < max then
    redis.call('HSET', KEYS[1], 'limit', tostring(math.min(max, limit + 1 / math.max(1, limit))))
  end
end
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1`;

/** KEYS: state hash; ARGV: max, cooldown ms. Halves the limit (once per cooldown); returns it, or -1 if unchanged. */
const DECREASE = `${NOW}
local limit = tonumber(redis.call('HGET', KEYS[1], 'limit') or ARGV[1])
if now - tonumber(redis.call('HGET', KEYS[1], 'decreased') or '0') < tonumber(ARGV[2]) then return -1 end
redis.call('HSET', KEYS[1], 'decreased', now)
local nextLimit = math.max(1, math.floor(limit / 2))
if nextLimit >= limit then return -1 end
redis.call('HSET', KEYS[1], 'limit', nextLimit)
redis.call('HINCRBY', KEYS[1], 'epoch', 1)
redis.call('HINCRBY', KEYS[1], 'decreases', 1)
return nextLimit`;

/** KEYS: leases zset; ARGV: lease ms, then the lease ids this worker holds. */
const RENEW = `${NOW}
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i]) end
return #ARGV - 1`;

/** The scripts as ioredis commands. */
interface FleetCommands {
  tauFleetAcquire(
    state: string,
    leases: string,
    max: number,
    leaseMs: number,
    ...ids: string[]
  ): Promise<[epoch: number, granted: number]>;
  tauFleetRelease(
    state: string,
    leases: string,
    lease: string,
    epoch: number,
    success: 0 | 1,
    max: number,
    channel: string,
    message: string,
  ): Promise<number>;
  tauFleetDecrease(state: string, max: number, cooldownMs: number): Promise<number>;
  tauFleetRenew(leases: string, leaseMs: number, ...ids: string[]): Promise<number>;
}

/** The pub/sub channel on which a freed slot wakes the workers waiting for one (the message is the state key). */
export const FLEET_RELEASED_CHANNEL = "taubench:fleet-released";

/** Settings of {@link FleetLimits}. */
export interface FleetLimitsOptions {
  /** Runs the scripts (a connection of its own is best: calls wait on it). */
  redis: Redis;
  /** Names this worker's leases. */
  workerId: string;
  /** A lease not renewed for this long is freed (a killed worker's). */
  leaseMs: number;
  /** Further 429s within this window after a decrease do not halve again (one burst = one signal). */
  cooldownMs?: number;
  /** A waiting call re-checks this often even without a wake-up (a dead worker's lease expiring). */
  pollMs?: number;
  /** A decrease this worker made: the provider key and the new limit. */
  onDecrease?(runId: string, key: string, limit: number): void;
}

interface Lease {
  id: string;
  epoch: number;
}

/** One (run, provider) limit as this worker sees it: a FIFO line of its own calls waiting for a lease. */
class FleetLimit {
  readonly held = new Set<string>();
  private readonly waiters: Waiter<Lease>[] = [];
  private pumping = false;
  private wake: (() => void) | null = null;
  /** A slot was freed while a request for leases was on its way. */
  private wokenMeanwhile = false;

  constructor(
    private readonly limits: FleetLimits,
    readonly stateKey: string,
    readonly leasesKey: string,
    readonly max: number,
  ) {}

  acquire(signal: AbortSignal | undefined): Promise<Lease> {
    signal?.throwIfAborted();
    const leased = waitInLine(this.waiters, signal);
    void this.pump();
    return leased;
  }

  /** A slot was freed somewhere in the fleet: try again now. */
  woken(): void {
    this.wokenMeanwhile = true;
    this.wake?.();
  }

  waiting(): number {
    return this.waiters.length;
  }

  /** Nothing held, nothing waiting, no request on its way: it can be forgotten (Redis keeps the limit). */
  idle(): boolean {
    return this.held.size === 0 && this.waiters.length === 0 && !this.pumping;
  }

  /** Takes leases for the waiters, in order, while Redis grants them; otherwise waits for a wake-up. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiters.length > 0) {
        // One round trip asks for a lease per waiter; Redis grants what the limit leaves free.
        const ids = this.waiters.map(() => this.limits.nextLeaseId());
        this.wokenMeanwhile = false;
        let epoch: number;
        let granted: number;
        try {
          [epoch, granted] = await this.limits.commands.tauFleetAcquire(
            this.stateKey,
            this.leasesKey,
            this.max,
            this.limits.leaseMs,
            ...ids,
          );
        } catch (error) {
          for (const waiter of this.waiters.splice(0)) waiter.reject(error);
          continue;
        }
        for (const id of ids.slice(0, granted)) {
          // Renewed from now on (a renewal before the grant could resurrect a refused lease).
          this.held.add(id);
          const waiter = this.waiters.shift();
          if (waiter) waiter.resolve({ id, epoch });
          // Its caller gave up (aborted) meanwhile.
          else void this.release({ id, epoch }, false);
        }
        if (granted > 0 || this.wokenMeanwhile) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.limits.pollMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    } finally {
      this.pumping = false;
    }
  }

  async release(lease: Lease, success: boolean): Promise<void> {
    this.held.delete(lease.id);
    await this.limits.commands
      .tauFleetRelease(
        this.stateKey,
        this.leasesKey,
        lease.id,
        lease.epoch,
        success ? 1 : 0,
        this.max,
        FLEET_RELEASED_CHANNEL,
        this.stateKey,
      )
      .catch(() => 0);
  }
}

/** Every fleet limit a worker uses, on one Redis connection, with their leases renewed while held. */
export class FleetLimits {
  readonly commands: FleetCommands;
  readonly leaseMs: number;
  readonly pollMs: number;
  private readonly cooldownMs: number;
  private readonly limits = new Map<string, FleetLimit>();
  private readonly timer: NodeJS.Timeout;
  private sequence = 0;

  constructor(private readonly options: FleetLimitsOptions) {
    this.leaseMs = options.leaseMs;
    this.pollMs = options.pollMs ?? 250;
    this.cooldownMs = options.cooldownMs ?? 1000;
    const redis = options.redis;
    redis.defineCommand("tauFleetAcquire", { numberOfKeys: 2, lua: ACQUIRE });
    redis.defineCommand("tauFleetRelease", { numberOfKeys: 2, lua: RELEASE });
    redis.defineCommand("tauFleetDecrease", { numberOfKeys: 1, lua: DECREASE });
    redis.defineCommand("tauFleetRenew", { numberOfKeys: 1, lua: RENEW });
    this.commands = redis as unknown as FleetCommands;
    this.timer = setInterval(() => this.renew(), Math.max(100, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  nextLeaseId(): string {
    return `${this.options.workerId}#${++this.sequence}`;
  }

  /** A message on {@link FLEET_RELEASED_CHANNEL}. */
  released(stateKey: string): void {
    this.limits.get(stateKey)?.woken();
  }

  private limit(runId: string, key: string, max: number): FleetLimit {
    const stateKey = `taubench:fleet:${runId}:${key}`;
    let limit = this.limits.get(stateKey);
    if (!limit) {
      limit = new FleetLimit(this, stateKey, `${stateKey}:leases`, max);
      this.limits.set(stateKey, limit);
    }
    return limit;
  }

  /** Renews the leases held; forgets the limits of runs this worker no longer calls for (finished, idle). */
  private renew(): void {
    for (const [stateKey, limit] of this.limits) {
      if (limit.held.size > 0)
        void this.commands.tauFleetRenew(limit.leasesKey, this.leaseMs, ...limit.held).catch(() => 0);
      else if (limit.idle()) this.limits.delete(stateKey);
    }
  }

  /** How many (run, provider) limits this worker keeps now. */
  get size(): number {
    return this.limits.size;
  }

  /** A {@link ProviderScheduler} for one run whose limits are the fleet's. */
  scheduler(runId: string, maxConcurrency: number, keyOf: (model: string) => string): ProviderScheduler {
    return new FleetScheduler(this, runId, maxConcurrency, keyOf);
  }

  /** Halves the fleet's limit of a (run, provider); tells `onDecrease` when it changed. */
  async decrease(runId: string, key: string, max: number): Promise<void> {
    const limit = this.limit(runId, key, max);
    const next = await this.commands.tauFleetDecrease(limit.stateKey, max, this.cooldownMs).catch(() => -1);
    if (next >= 0) this.options.onDecrease?.(runId, key, next);
  }

  /** A client whose calls hold a lease of the fleet's limit for the model's provider. */
  wrap(runId: string, key: string, max: number, client: LlmClient): LlmClient {
    // Looked up per call: an idle limit is forgotten, and the next call makes it again.
    const limitNow = () => this.limit(runId, key, max);
    const decrease = () => this.decrease(runId, key, max);
    return {
      model: client.model,
      ...(client.endpoint ? { endpoint: client.endpoint.bind(client) } : {}),
      async generate(request: LlmRequest): Promise<LlmResponse> {
        const limit = limitNow();
        const lease = await limit.acquire(request.signal);
        let success = false;
        try {
          const response = await client.generate(request);
          success = true;
          return response;
        } catch (error) {
          // As in process: the LLM layer's 429s arrive as `rate_limited` events; only others' errors count here.
          if (isRateLimitError(error) && !(error instanceof LlmError)) void decrease();
          throw error;
        } finally {
          void limit.release(lease, success);
        }
      },
    };
  }

  /** This worker's side of a run's limits, per provider key: its calls holding a lease, and waiting for one. */
  stats(runId: string): Map<string, { inFlight: number; waiting: number }> {
    const prefix = `taubench:fleet:${runId}:`;
    return new Map(
      [...this.limits]
        .filter(([stateKey]) => stateKey.startsWith(prefix))
        .map(([stateKey, limit]) => [
          stateKey.slice(prefix.length),
          { inFlight: limit.held.size, waiting: limit.waiting() },
        ]),
    );
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** The in-process scheduler's seam, with the fleet's limits behind it. */
class FleetScheduler extends ProviderScheduler {
  constructor(
    private readonly fleet: FleetLimits,
    private readonly runId: string,
    private readonly maxConcurrency: number,
    private readonly keyOfModel: (model: string) => string,
  ) {
    super({ maxConcurrency }, keyOfModel);
  }

  override rateLimited(model: string): void {
    void this.fleet.decrease(this.runId, this.keyOfModel(model), this.maxConcurrency);
  }

  override wrap(client: LlmClient): LlmClient {
    return this.fleet.wrap(this.runId, this.keyOfModel(client.model), this.maxConcurrency, client);
  }
}
