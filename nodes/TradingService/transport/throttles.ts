import { sleep } from 'n8n-workflow';

import { Claims } from './claims';
import { monotonicNow } from './clock';

/**
 * The two throttles a request meets only when asked for, each kept by pacing.ts per service and
 * key: the credential's weight budget and an endpoint's least interval between calls (transfers).
 */

/**
 * Client-side pacing by request weight (spec §8: history 5, batch orders 1). The service counts
 * weight per API key over a window; when the user tells the credential that budget, requests wait
 * here for room instead of being refused with 429. Credentials of one key that give other budgets
 * share one limiter, held to the smallest budget in force (claims.ts).
 */
export class WeightLimiter {
	private readonly events: Array<{ at: number; weight: number }> = [];

	private used = 0;

	/** Requests waiting for room: a limiter they wait on is not idle. */
	private waiting = 0;

	private readonly budgets: Claims;

	/** `defaultBudget`: the budget of a request that names none. */
	constructor(
		readonly defaultBudget: number,
		readonly windowMs: number,
		private readonly now: () => number = monotonicNow,
		private readonly wait: (ms: number) => Promise<void> = sleep,
	) {
		this.budgets = new Claims(now);
	}

	/** The weight allowed in any window now: the smallest budget in force. */
	get budget(): number {
		return this.budgets.lowest(this.defaultBudget);
	}

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

	/** The weight counted inside the window now. */
	usedWeight(): number {
		this.prune(this.now());
		return this.used;
	}

	/** Whether nothing waits, nothing it counted is inside its window and no budget is in force. */
	isIdle(): boolean {
		this.prune(this.now());
		return this.waiting === 0 && this.events.length === 0 && this.budgets.isIdle();
	}

	/**
	 * Waits until `weight` fits the budget (the strictest of `budget`, this request's credential's,
	 * and those in force), then counts it. Returns how long it waited.
	 */
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
 * The least interval between two calls of one endpoint by one API key at one service (the UAE
 * documentation: transfers no more than once per second). Calls go one at a time, in the order
 * they arrive, each at least the interval after the previous one was answered: the service stamps
 * a call before it answers, so two calls are then at least the interval apart on its clock too.
 */
export class IntervalGate {
	private lastEnd = -Infinity;

	private busy = 0;

	private queue: Promise<void> = Promise.resolve();

	private readonly intervals: Claims;

	/** `defaultIntervalMs`: the interval of a call that names none. */
	constructor(
		readonly defaultIntervalMs: number,
		private readonly now: () => number = monotonicNow,
		private readonly wait: (ms: number) => Promise<void> = sleep,
	) {
		this.intervals = new Claims(now);
	}

	/** The interval now: the longest any credential in force asks for (claims.ts). */
	get intervalMs(): number {
		return this.intervals.highest(this.defaultIntervalMs);
	}

	/**
	 * Waits for this call's turn; the returned function ends the call (call it once the call is
	 * answered, failed, or not sent after all).
	 */
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

	/** Whether no call waits or runs, the next may go at once and no interval is in force. */
	isIdle(): boolean {
		return (
			this.busy === 0 && this.lastEnd + this.intervalMs <= this.now() && this.intervals.isIdle()
		);
	}
}
