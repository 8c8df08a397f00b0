import { sleep } from 'n8n-workflow';

import { Claims, keptFor, monotonicNow, normaliseBaseUrl, perServiceMap } from './pacing';

/** The throttles a request meets only when asked for, kept per service and key like the pacers. */

/** The credential's Weight Budget: requests wait for room instead of being refused with 429. */
export class WeightLimiter {
	private readonly events: Array<{ at: number; weight: number }> = [];
	private used = 0;
	/** Requests waiting for room: a limiter they wait on is not idle. */
	private waiting = 0;
	private readonly budgets: Claims;

	constructor(
		readonly defaultBudget: number,
		readonly windowMs: number,
		private readonly now: () => number = monotonicNow,
		private readonly wait: (ms: number) => Promise<void> = sleep,
	) {
		this.budgets = new Claims(now);
	}

	get budget(): number {
		return this.budgets.lowest(this.defaultBudget);
	}

	/** The service stamps a request a little after it is counted here. */
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

	usedWeight(): number {
		this.prune(this.now());
		return this.used;
	}

	isIdle(): boolean {
		this.prune(this.now());
		return this.waiting === 0 && this.events.length === 0 && this.budgets.isIdle();
	}

	/** Waits until `weight` fits the strictest budget in force, then counts it. Returns the wait. */
	async acquire(weight: number, budget = this.defaultBudget): Promise<number> {
		const release = this.budgets.hold(budget);
		this.waiting++;
		let waited = 0;
		try {
			for (let delay = this.delayFor(weight); delay > 0; delay = this.delayFor(weight)) {
				await this.wait(delay);
				waited += delay;
			}
			this.events.push({ at: this.now(), weight });
			this.used += weight;
			return waited;
		} finally {
			this.waiting--;
			release();
		}
	}
}

/**
 * Least interval between two calls of one endpoint by one key (transfers), each after the previous
 * one was answered: the service stamps a call before it answers, so they are apart on its clock too.
 */
export class IntervalGate {
	private lastEnd = -Infinity;
	private busy = 0;
	private queue: Promise<void> = Promise.resolve();
	private readonly intervals: Claims;

	constructor(
		readonly defaultIntervalMs: number,
		private readonly now: () => number = monotonicNow,
		private readonly wait: (ms: number) => Promise<void> = sleep,
	) {
		this.intervals = new Claims(now);
	}

	get intervalMs(): number {
		return this.intervals.highest(this.defaultIntervalMs);
	}

	/** Waits for this call's turn; the returned function ends it (once answered, failed or not sent). */
	async pass(intervalMs = this.defaultIntervalMs): Promise<() => void> {
		const release = this.intervals.hold(intervalMs);
		const previous = this.queue;
		let done!: () => void;
		this.queue = new Promise<void>((resolve) => (done = resolve));
		this.busy++;
		await previous;
		const delay = this.lastEnd + this.intervalMs - this.now();
		if (delay > 0) await this.wait(delay);
		let ended = false;
		return () => {
			if (ended) return;
			ended = true;
			this.lastEnd = this.now();
			this.busy--;
			release();
			done();
		};
	}

	isIdle(): boolean {
		return (
			this.busy === 0 && this.lastEnd + this.intervalMs <= this.now() && this.intervals.isIdle()
		);
	}
}

const limiters = perServiceMap<WeightLimiter>();
const gates = perServiceMap<IntervalGate>();

/** Undefined when pacing by weight is off. */
export function limiterFor(
	baseUrl: string,
	apiKey: string,
	budget: number,
	windowSeconds: number,
): WeightLimiter | undefined {
	if (!(budget > 0) || !(windowSeconds > 0)) return undefined;
	const key = `${normaliseBaseUrl(baseUrl)}\u0000${apiKey}`;
	const make = () => new WeightLimiter(budget, windowSeconds * 1000);
	let limiter = keptFor(limiters, key, make);
	// A longer window is stricter: a limiter idle now may take it.
	if (limiter.windowMs < windowSeconds * 1000 && limiter.isIdle()) {
		limiter = make();
		limiters.set(key, limiter);
	}
	return limiter;
}

export function gateFor(
	baseUrl: string,
	apiKey: string,
	endpointKey: string,
	intervalMs: number,
): IntervalGate {
	const key = `${normaliseBaseUrl(baseUrl)}\u0000${apiKey}\u0000${endpointKey}`;
	return keptFor(gates, key, () => new IntervalGate(intervalMs));
}
