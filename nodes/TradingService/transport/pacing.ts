import { sleep } from 'n8n-workflow';

/**
 * Client-side pacing by request weight (spec §8: history 5, batch orders 1). The service counts
 * weight per API key over a window; when the user tells the credential that budget, requests wait
 * here for room instead of being refused with 429. Kept per process, keyed by service and key,
 * so every node of every execution in this n8n process shares one budget per key.
 */
export class WeightLimiter {
	private readonly events: Array<{ at: number; weight: number }> = [];

	private used = 0;

	constructor(
		readonly budget: number,
		readonly windowMs: number,
		private readonly now: () => number = Date.now,
		private readonly wait: (ms: number) => Promise<void> = sleep,
	) {}

	/**
	 * The service stamps a request when it arrives, a little after it is counted here; the margin
	 * keeps this side from reusing weight the service has not freed yet.
	 */
	static readonly marginMs = 250;

	private prune(now: number) {
		while (
			this.events.length > 0 &&
			this.events[0].at + this.windowMs + WeightLimiter.marginMs <= now
		) {
			this.used -= this.events.shift()!.weight;
		}
	}

	/** How long a request of `weight` must wait now (0 = go). */
	delayFor(weight: number): number {
		const now = this.now();
		this.prune(now);
		if (this.used + weight <= this.budget || this.events.length === 0) return 0;
		let freed = 0;
		for (const event of this.events) {
			freed += event.weight;
			if (this.used - freed + weight <= this.budget) {
				return event.at + this.windowMs + WeightLimiter.marginMs - now;
			}
		}
		return this.events[this.events.length - 1].at + this.windowMs + WeightLimiter.marginMs - now;
	}

	/** Whether nothing it counted is inside its window any more: dropping it loses nothing. */
	isIdle(): boolean {
		this.prune(this.now());
		return this.events.length === 0;
	}

	/** Waits until `weight` fits the budget, then counts it. Returns how long it waited. */
	async acquire(weight: number): Promise<number> {
		let waited = 0;
		for (let delay = this.delayFor(weight); delay > 0; delay = this.delayFor(weight)) {
			await this.wait(delay);
			waited += delay;
		}
		this.events.push({ at: this.now(), weight });
		this.used += weight;
		return waited;
	}
}

/**
 * The limiters of this process, by Base URL and API key. They outlive a node run on purpose (the
 * service counts weight per key across executions), but only while they count something: an idle
 * one is dropped when another key's limiter is looked up.
 */
const limiters = new Map<string, WeightLimiter>();

/** The shared limiter of one API key at one service, or undefined when pacing is off. */
export function limiterFor(
	baseUrl: string,
	apiKey: string,
	budget: number,
	windowSeconds: number,
): WeightLimiter | undefined {
	if (!(budget > 0) || !(windowSeconds > 0)) return undefined;
	const key = `${baseUrl}\u0000${apiKey}`;
	for (const [other, limiter] of limiters) {
		if (other !== key && limiter.isIdle()) limiters.delete(other);
	}
	let limiter = limiters.get(key);
	if (
		limiter === undefined ||
		limiter.budget !== budget ||
		limiter.windowMs !== windowSeconds * 1000
	) {
		limiter = new WeightLimiter(budget, windowSeconds * 1000);
		limiters.set(key, limiter);
	}
	return limiter;
}
