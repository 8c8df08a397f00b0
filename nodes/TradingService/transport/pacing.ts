import { sleep } from 'n8n-workflow';

/**
 * When a request may leave: what this n8n process keeps per service and key across executions,
 * one per key whatever its credentials say, on the monotonic clock (docs/transport.md "Pacing").
 */

/** The clock of every wait and suspension: a wall clock stepped by NTP or by hand would stall them. */
export function monotonicNow(): number {
	return performance.now();
}

/** The wall-clock time of a monotonic moment, to show the user. */
export function wallTimeOf(monotonic: number): number {
	return Math.round(Date.now() + (monotonic - monotonicNow()));
}

/** So that workflows seconds apart are held to the stricter of their two credentials, too. */
export const CLAIM_LINGER_MS = 10_000;

/**
 * The figures (rates, budgets, intervals) the credentials of one key ask for, each in force while
 * a request made under it waits or flies, and CLAIM_LINGER_MS after: the strictest wins.
 */
export class Claims {
	private readonly held = new Map<number, { holders: number; lastEnded: number }>();

	constructor(private readonly now: () => number = monotonicNow) {}

	/** A request made under `value`: in force until the returned function is called (once). */
	hold(value: number): () => void {
		const claim = this.held.get(value) ?? { holders: 0, lastEnded: 0 };
		claim.holders++;
		this.held.set(value, claim);
		let released = false;
		return () => {
			if (released) return;
			released = true;
			claim.holders--;
			claim.lastEnded = this.now();
		};
	}

	live(): number[] {
		const now = this.now();
		for (const [value, claim] of this.held)
			if (claim.holders === 0 && now - claim.lastEnded >= CLAIM_LINGER_MS) this.held.delete(value);
		return [...this.held.keys()];
	}

	lowest(fallback: number): number {
		const live = this.live();
		return live.length === 0 ? fallback : Math.min(...live);
	}

	highest(fallback: number): number {
		const live = this.live();
		return live.length === 0 ? fallback : Math.max(...live);
	}

	isIdle(): boolean {
		return this.live().length === 0;
	}
}

/** What a request does once its turn comes: go (and say when it ended), or not go at all. */
export type PacerTurn =
	| { kind: 'go'; done: () => void }
	/** Suspended after a rate limit for longer than this request may wait (monotonic time). */
	| { kind: 'suspended'; until: number };

export interface PacerRequest {
	/** The rate its credential allows this process (already divided by the processes sharing the key). */
	perSecond?: number;
	/** Goes before every waiting request that is not: listen keys, settling unknown writes. */
	urgent?: boolean;
}

interface Waiter {
	urgent: boolean;
	maxSuspensionWaitMs: number;
	release: () => void;
	resolve: (turn: PacerTurn) => void;
}

/**
 * The per-key rate of one class: at most `limit` requests in any `windowMs`, none while suspended.
 * A request holds its place from when it leaves until `windowMs` after its answer: the service
 * stamps it somewhere between the two. Requests leave in the order they asked, urgent ones first.
 */
export class RequestPacer {
	/** When each request still inside the window was answered, earliest first. */
	private readonly answered: number[] = [];
	private inFlight = 0;
	private suspendedUntil = 0;
	private readonly queue: Waiter[] = [];
	/** Whether the loop handing out turns runs (one per pacer, so the queue's order holds). */
	private handing = false;
	private readonly rates: Claims;
	/** Resolved when a request in flight is answered: the only thing that frees a full window early. */
	private answeredSignal?: { promise: Promise<void>; resolve: () => void };

	constructor(
		readonly defaultRate: number,
		readonly windowMs: number,
		private readonly now: () => number = monotonicNow,
		private readonly wait: (ms: number) => Promise<void> = sleep,
	) {
		this.rates = new Claims(now);
	}

	/** Added to the window: timers fire late, not early, but both clocks count whole milliseconds. */
	static readonly marginMs = 10;

	get limit(): number {
		return Math.max(1, this.rates.lowest(this.defaultRate));
	}

	private prune(now: number) {
		while (
			this.answered.length > 0 &&
			this.answered[0] + this.windowMs + RequestPacer.marginMs <= now
		)
			this.answered.shift();
	}

	suspension(): number | undefined {
		return this.suspendedUntil > this.now() ? this.suspendedUntil : undefined;
	}

	/** After a rate limit: nothing of this key and class leaves before `until`. */
	suspend(until: number): void {
		this.suspendedUntil = Math.max(this.suspendedUntil, until);
	}

	/**
	 * Waits for room in the window and the end of any suspension whose rest is at most
	 * `maxSuspensionWaitMs`; `done` must be called once the request is answered, failed or not sent.
	 */
	acquire(maxSuspensionWaitMs: number, request: PacerRequest = {}): Promise<PacerTurn> {
		// A request that may not wait out the suspension need not queue behind those that do.
		if (this.suspendedUntil - this.now() > maxSuspensionWaitMs)
			return Promise.resolve({ kind: 'suspended', until: this.suspendedUntil });
		// Its rate is in force from now: a stricter one holds back the requests already waiting.
		const release = this.rates.hold(request.perSecond ?? this.defaultRate);
		return new Promise<PacerTurn>((resolve) => {
			const urgent = request.urgent === true;
			const waiter: Waiter = { urgent, maxSuspensionWaitMs, release, resolve };
			const firstNotUrgent = urgent ? this.queue.findIndex((other) => !other.urgent) : -1;
			if (firstNotUrgent < 0) this.queue.push(waiter);
			else this.queue.splice(firstNotUrgent, 0, waiter);
			void this.handOut();
		});
	}

	private async handOut(): Promise<void> {
		if (this.handing) return;
		this.handing = true;
		try {
			while (this.queue.length > 0) {
				const now = this.now();
				if (this.suspendedUntil > now) {
					this.refuseThoseWhoCannotWait(now);
					if (this.queue.length > 0) await this.wait(this.suspendedUntil - now);
					continue;
				}
				this.prune(now);
				if (this.inFlight + this.answered.length < this.limit) {
					this.go(this.queue.shift()!);
					continue;
				}
				if (this.answered.length > 0) {
					await this.wait(
						Math.max(1, this.answered[0] + this.windowMs + RequestPacer.marginMs - now),
					);
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
		} finally {
			this.handing = false;
		}
	}

	/** A suspension set while they waited: those that may not wait that long are refused now. */
	private refuseThoseWhoCannotWait(now: number): void {
		for (let index = this.queue.length - 1; index >= 0; index--) {
			const waiter = this.queue[index];
			if (this.suspendedUntil - now <= waiter.maxSuspensionWaitMs) continue;
			this.queue.splice(index, 1);
			waiter.release();
			waiter.resolve({ kind: 'suspended', until: this.suspendedUntil });
		}
	}

	private go(waiter: Waiter): void {
		this.inFlight++;
		let ended = false;
		waiter.resolve({
			kind: 'go',
			done: () => {
				if (ended) return;
				ended = true;
				this.inFlight--;
				this.answered.push(this.now());
				waiter.release();
				const signal = this.answeredSignal;
				this.answeredSignal = undefined;
				signal?.resolve();
			},
		});
	}

	isIdle(): boolean {
		const now = this.now();
		this.prune(now);
		return (
			this.queue.length === 0 &&
			this.inFlight === 0 &&
			this.answered.length === 0 &&
			this.suspendedUntil <= now &&
			this.rates.isIdle()
		);
	}
}

/** After a 418 without Retry-After (the UAE documentation gives the ban no length). */
export const IP_BAN_DEFAULT_MS = 5 * 60_000;

/** A 418 bans the IP address (UAE documentation): nothing goes to the service, whatever the key. */
export class ServiceBan {
	private until = 0;

	constructor(private readonly now: () => number = monotonicNow) {}

	/** Returns the ban's end. */
	banned(retryAfterMs?: number): number {
		const length = retryAfterMs === undefined ? IP_BAN_DEFAULT_MS : retryAfterMs;
		this.until = Math.max(this.until, this.now() + length);
		return this.until;
	}

	bannedUntil(): number | undefined {
		return this.until > this.now() ? this.until : undefined;
	}

	isIdle(): boolean {
		return this.until <= this.now();
	}
}

/** One spelling per service (defect 14); text that is not a URL is only trimmed (and refused). */
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

/** Every map of what is kept per service (here and in throttles.ts): forgetServices clears them. */
const keptPerService: Array<Map<string, unknown>> = [];

export function perServiceMap<T>(): Map<string, T> {
	const map = new Map<string, T>();
	keptPerService.push(map);
	return map;
}

/**
 * The one `T` kept under `key`, made when missing; idle others are dropped. Look one up right
 * before each request, so that none is held that the others no longer use.
 */
export function keptFor<T extends { isIdle(): boolean }>(
	kept: Map<string, T>,
	key: string,
	make: () => T,
): T {
	for (const [other, held] of kept) if (other !== key && held.isIdle()) kept.delete(other);
	let held = kept.get(key);
	if (held === undefined) {
		held = make();
		kept.set(key, held);
	}
	return held;
}

const pacers = perServiceMap<RequestPacer>();
const bans = perServiceMap<ServiceBan>();

/** The two kinds of request the service counts apart (the UAE documentation, "Order Rate Limiting"). */
export type RateClass = 'order' | 'query';

/** Never replaced: a change of rate keeps the places taken and any suspension. */
export function pacerFor(
	baseUrl: string,
	apiKey: string,
	rateClass: RateClass,
	perSecond: number,
): RequestPacer {
	const key = `${normaliseBaseUrl(baseUrl)}\u0000${apiKey}\u0000${rateClass}`;
	return keptFor(pacers, key, () => new RequestPacer(perSecond, 1000));
}

export function banFor(baseUrl: string): ServiceBan {
	return keptFor(bans, normaliseBaseUrl(baseUrl), () => new ServiceBan());
}

/** For tests, whose new sandbox may have an earlier one's address. */
export function forgetServices(): void {
	for (const map of keptPerService) map.clear();
}
