import { sleep } from 'n8n-workflow';

import { IntervalGate, WeightLimiter } from './throttles';

export { IntervalGate, WeightLimiter } from './throttles';

/**
 * What this n8n process keeps per service, across node runs and executions: the request rate of
 * each API key and class with its suspension after a rate limit, a ban (418), and the throttles
 * (throttles.ts). All keyed by the Base URL normalised: `https://h/` and `https://H:443` are one.
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

/** The two kinds of request the service counts apart (the UAE documentation, "Order Rate Limiting"). */
export type RateClass = 'order' | 'query';

/** What a request does once its turn comes: go (and say when it ended), or not go at all. */
export type PacerTurn =
	| { kind: 'go'; done: () => void }
	/** The key and class are suspended after a rate limit for longer than this request may wait. */
	| { kind: 'suspended'; until: number };

/**
 * The service's per-key rate of one class, kept by this process: at most `limit` requests in any
 * `windowMs`, and nothing at all while the key and class are suspended after a rate limit.
 *
 * A request takes its place in the window when it leaves and keeps it until `windowMs` after its
 * answer arrived. The service stamps a request somewhere between the two, so however long it
 * travels, no window of the service's can hold more than `limit` of this process's requests:
 * counted from departures alone, a slow request and a fast one sent a window apart could land in
 * one. Requests wait their turn in the order they asked, so no lane overtakes another.
 */
export class RequestPacer {
	/** When each answered request still inside the window was answered, earliest first. */
	private readonly answered: number[] = [];

	private inFlight = 0;

	private suspendedUntil = 0;

	/** The request whose turn it is holds this; the next one waits for it. */
	private turn: Promise<void> = Promise.resolve();

	private waiting = 0;

	/** Resolved when a request in flight is answered: the only thing that frees a full window early. */
	private answeredSignal?: { promise: Promise<void>; resolve: () => void };

	constructor(
		readonly limit: number,
		readonly windowMs: number,
		private readonly now: () => number = Date.now,
		private readonly wait: (ms: number) => Promise<void> = sleep,
	) {}

	/**
	 * Added to the window: timers fire late rather than early, but both clocks count whole
	 * milliseconds.
	 */
	static readonly marginMs = 10;

	private prune(now: number) {
		while (
			this.answered.length > 0 &&
			this.answered[0] + this.windowMs + RequestPacer.marginMs <= now
		)
			this.answered.shift();
	}

	/** The suspension's end, when one is on. */
	suspension(): number | undefined {
		return this.suspendedUntil > this.now() ? this.suspendedUntil : undefined;
	}

	/** After a rate limit: nothing of this key and class leaves before `until`. */
	suspend(until: number): void {
		this.suspendedUntil = Math.max(this.suspendedUntil, until);
	}

	/**
	 * Waits for this request's turn, for room in the window and for the end of any suspension, as
	 * long as the suspension's rest is at most `maxSuspensionWaitMs`; then the request may leave,
	 * and `done` must be called once it is answered, failed or not sent after all.
	 */
	async acquire(maxSuspensionWaitMs: number): Promise<PacerTurn> {
		// A request that may not wait out the suspension need not queue behind those that do.
		if (this.suspendedUntil - this.now() > maxSuspensionWaitMs)
			return { kind: 'suspended', until: this.suspendedUntil };
		const previous = this.turn;
		let next!: () => void;
		this.turn = new Promise<void>((resolve) => (next = resolve));
		this.waiting++;
		try {
			await previous;
			for (;;) {
				const now = this.now();
				if (this.suspendedUntil > now) {
					if (this.suspendedUntil - now > maxSuspensionWaitMs)
						return { kind: 'suspended', until: this.suspendedUntil };
					await this.wait(this.suspendedUntil - now);
					continue;
				}
				this.prune(now);
				if (this.inFlight + this.answered.length < this.limit) break;
				if (this.answered.length > 0) {
					await this.wait(this.answered[0] + this.windowMs + RequestPacer.marginMs - now);
				} else {
					// Every place is held by a request in flight: its answer starts its window.
					if (this.answeredSignal === undefined) {
						let resolve!: () => void;
						const promise = new Promise<void>((r) => (resolve = r));
						this.answeredSignal = { promise, resolve };
					}
					await this.answeredSignal.promise;
				}
			}
			this.inFlight++;
			let ended = false;
			return {
				kind: 'go',
				done: () => {
					if (ended) return;
					ended = true;
					this.inFlight--;
					this.answered.push(this.now());
					const signal = this.answeredSignal;
					this.answeredSignal = undefined;
					signal?.resolve();
				},
			};
		} finally {
			this.waiting--;
			next();
		}
	}

	/** Whether it holds nothing: no request waits, flies or counts, and no suspension is on. */
	isIdle(): boolean {
		const now = this.now();
		this.prune(now);
		return (
			this.waiting === 0 &&
			this.inFlight === 0 &&
			this.answered.length === 0 &&
			this.suspendedUntil <= now
		);
	}
}

const pacers = new Map<string, RequestPacer>();

/**
 * The shared pacer of one API key's class at one service in this process: `perSecond` requests a
 * second (the credential's rate, already divided by the processes sharing the key). A pacer whose
 * rate changed is replaced, keeping its suspension.
 */
export function pacerFor(
	baseUrl: string,
	apiKey: string,
	rateClass: RateClass,
	perSecond: number,
): RequestPacer {
	const key = `${normaliseBaseUrl(baseUrl)}\u0000${apiKey}\u0000${rateClass}`;
	for (const [other, pacer] of pacers) if (other !== key && pacer.isIdle()) pacers.delete(other);
	let pacer = pacers.get(key);
	if (pacer === undefined || pacer.limit !== perSecond) {
		const replaced = pacer;
		pacer = new RequestPacer(perSecond, 1000);
		const until = replaced?.suspension();
		if (until !== undefined) pacer.suspend(until);
		pacers.set(key, pacer);
	}
	return pacer;
}

/**
 * How long the node keeps away from a service after a 418 that gives no Retry-After (the UAE
 * documentation gives the ban no length).
 */
export const IP_BAN_DEFAULT_MS = 5 * 60_000;

/**
 * A ban of one service (normalised Base URL) in this process, whatever the API key: the UAE
 * documentation bans the IP address, not the key. After a 418 without Retry-After nothing is sent
 * to the service for IP_BAN_DEFAULT_MS.
 */
export class ServiceBan {
	private until = 0;

	constructor(private readonly now: () => number = Date.now) {}

	/** After a 418 without Retry-After: nothing is sent for IP_BAN_DEFAULT_MS. */
	banned(): number {
		this.until = Math.max(this.until, this.now() + IP_BAN_DEFAULT_MS);
		return this.until;
	}

	/** When the ban ends, while one is on. */
	bannedUntil(): number | undefined {
		return this.until > this.now() ? this.until : undefined;
	}

	/** Whether it holds nothing back now: dropping it loses nothing. */
	isIdle(): boolean {
		return this.until <= this.now();
	}
}

const bans = new Map<string, ServiceBan>();

/** The ban of one service, shared by every node run of this n8n instance. */
export function banFor(baseUrl: string): ServiceBan {
	const key = normaliseBaseUrl(baseUrl);
	for (const [other, ban] of bans) if (other !== key && ban.isIdle()) bans.delete(other);
	let ban = bans.get(key);
	if (ban === undefined) {
		ban = new ServiceBan();
		bans.set(key, ban);
	}
	return ban;
}

/**
 * Forgets everything this process keeps per service: weight, gates, pacers, suspensions and bans.
 * For tests, which start a new sandbox at an address an earlier one may have had.
 */
export function forgetServices(): void {
	limiters.clear();
	gates.clear();
	pacers.clear();
	bans.clear();
}
