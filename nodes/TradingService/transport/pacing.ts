import { sleep } from 'n8n-workflow';

/**
 * What this n8n process keeps per service, across node runs and executions: the weight budget of
 * each API key, the least interval between calls of a paced endpoint (transfers), and the minute
 * of silence after a 429 without Retry-After. All keyed by the Base URL normalised, so that
 * `https://h`, `https://h/` and `https://H:443` are one service.
 */

/**
 * One spelling of a Base URL per service: scheme and host in lower case, no default port (80 for
 * http, 443 for https), no trailing slashes; a path prefix is kept as written. Text that is not a
 * URL is only trimmed of spaces and trailing slashes (the credential check refuses it anyway).
 */
export function normaliseBaseUrl(baseUrl: string): string {
	const trimmed = baseUrl.trim();
	try {
		const url = new URL(trimmed);
		// URL lower-cases scheme and host and drops the scheme's default port.
		return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
	} catch {
		return trimmed.replace(/\/+$/, '');
	}
}

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

	/** The weight counted inside the window now. */
	usedWeight(): number {
		this.prune(this.now());
		return this.used;
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
 * The limiters of this process, by Base URL (normalised) and API key. They outlive a node run on
 * purpose (the service counts weight per key across executions), but only while they count
 * something: an idle one is dropped when another key's limiter is looked up.
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
	const key = `${normaliseBaseUrl(baseUrl)}\u0000${apiKey}`;
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

	constructor(
		readonly intervalMs: number,
		private readonly now: () => number = Date.now,
		private readonly wait: (ms: number) => Promise<void> = sleep,
	) {}

	/**
	 * Waits for this call's turn; the returned function ends the call (call it once the call is
	 * answered, failed, or not sent after all).
	 */
	async pass(): Promise<() => void> {
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
			done();
		};
	}

	/** Whether no call waits or runs and the next may go at once: dropping the gate loses nothing. */
	isIdle(): boolean {
		return this.busy === 0 && this.lastEnd + this.intervalMs <= this.now();
	}
}

const gates = new Map<string, IntervalGate>();

/** The shared gate of one paced endpoint for one API key at one service. */
export function gateFor(
	baseUrl: string,
	apiKey: string,
	endpointKey: string,
	intervalMs: number,
): IntervalGate {
	const key = `${normaliseBaseUrl(baseUrl)}\u0000${apiKey}\u0000${endpointKey}`;
	for (const [other, gate] of gates) if (other !== key && gate.isIdle()) gates.delete(other);
	let gate = gates.get(key);
	if (gate === undefined || gate.intervalMs !== intervalMs) {
		gate = new IntervalGate(intervalMs);
		gates.set(key, gate);
	}
	return gate;
}

/**
 * The UAE documentation: after a 429, wait 1 minute; an IP address that keeps sending after a 429
 * is banned (HTTP 418). The service states no Retry-After, so the node keeps that minute itself.
 */
export const RATE_LIMIT_SILENCE_MS = 60_000;

/**
 * How long the node keeps away from a service after a 418 that gives no Retry-After (the UAE
 * documentation gives the ban no length).
 */
export const IP_BAN_DEFAULT_MS = 5 * 60_000;

/**
 * The longest a read waits for a silence to end before it is sent (a silence that began later is
 * not waited for again): one silence, plus the margin of the clocks.
 */
export const MAX_SILENCE_WAIT_MS = RATE_LIMIT_SILENCE_MS + 1000;

/** What a request does about the silence of its service, before it is sent. */
export type SilenceStep =
	| { kind: 'go' }
	| { kind: 'wait'; ms: number }
	| { kind: 'refuse'; until: number; banned: boolean };

/**
 * The silence of one service (normalised Base URL) in this process, whatever the API key: the UAE
 * documentation bans the IP address, not the key. A 429 without Retry-After starts a minute of
 * silence, a 418 without Retry-After a ban of IP_BAN_DEFAULT_MS; no request leaves before it ends.
 */
export class ServiceSilence {
	private until = 0;

	private bannedUntil = 0;

	constructor(private readonly now: () => number = Date.now) {}

	/** After a 429 without Retry-After: nothing is sent for RATE_LIMIT_SILENCE_MS. */
	rateLimited(): number {
		this.until = Math.max(this.until, this.now() + RATE_LIMIT_SILENCE_MS);
		return this.until;
	}

	/** After a 418 without Retry-After: nothing is sent for IP_BAN_DEFAULT_MS. */
	banned(): number {
		this.bannedUntil = Math.max(this.bannedUntil, this.now() + IP_BAN_DEFAULT_MS);
		return this.bannedUntil;
	}

	/**
	 * What a request does now. A write never waits (an order sent a minute late is not the order
	 * the workflow meant): it is refused unsent. A read waits, as long as it has waited less than
	 * MAX_SILENCE_WAIT_MS in all. During a ban nothing is sent.
	 */
	step(isWrite: boolean, waitedMs: number): SilenceStep {
		const now = this.now();
		if (this.bannedUntil > now) return { kind: 'refuse', until: this.bannedUntil, banned: true };
		if (this.until <= now) return { kind: 'go' };
		const ms = this.until - now;
		if (isWrite || waitedMs + ms > MAX_SILENCE_WAIT_MS)
			return { kind: 'refuse', until: this.until, banned: false };
		return { kind: 'wait', ms };
	}

	/** Whether it holds nothing back now: dropping it loses nothing. */
	isIdle(): boolean {
		const now = this.now();
		return this.until <= now && this.bannedUntil <= now;
	}
}

const silences = new Map<string, ServiceSilence>();

/** The silence of one service, shared by every node run of this n8n instance. */
export function silenceFor(baseUrl: string): ServiceSilence {
	const key = normaliseBaseUrl(baseUrl);
	for (const [other, silence] of silences)
		if (other !== key && silence.isIdle()) silences.delete(other);
	let silence = silences.get(key);
	if (silence === undefined) {
		silence = new ServiceSilence();
		silences.set(key, silence);
	}
	return silence;
}
