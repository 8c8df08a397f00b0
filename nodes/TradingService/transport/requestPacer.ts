import { sleep } from 'n8n-workflow';

import { Claims } from './claims';
import { monotonicNow } from './clock';

/** What a request does once its turn comes: go (and say when it ended), or not go at all. */
export type PacerTurn =
	| { kind: 'go'; done: () => void }
	/** The key and class are suspended after a rate limit for longer than this request may wait (monotonic time). */
	| { kind: 'suspended'; until: number };

/** How a request asks for its turn. */
export interface PacerRequest {
	/** The rate its credential allows this process (already divided by the processes sharing the key). */
	perSecond?: number;
	/**
	 * Whether it goes before every waiting request that is not urgent: the stream's listen key and
	 * the settling of writes whose outcome is unknown, which must not wait behind bulk reads.
	 */
	urgent?: boolean;
}

interface Waiter {
	urgent: boolean;
	maxSuspensionWaitMs: number;
	release: () => void;
	resolve: (turn: PacerTurn) => void;
}

/**
 * The service's per-key rate of one class, kept by this process: at most `limit` requests in any
 * `windowMs`, and nothing at all while the key and class are suspended after a rate limit.
 *
 * A request takes its place in the window when it leaves and keeps it until `windowMs` after its
 * answer arrived. The service stamps a request somewhere between the two, so however long it
 * travels, no window of the service's can hold more than `limit` of this process's requests:
 * counted from departures alone, a slow request and a fast one sent a window apart could land in
 * one.
 *
 * The limit is the strictest rate that any credential of the key in force asks for (claims.ts):
 * one pacer per key and class, never replaced, so a credential with another rate neither empties
 * the window nor lifts a suspension. Requests leave in the order they asked, urgent ones first.
 */
export class RequestPacer {
	/** When each answered request still inside the window was answered, earliest first. */
	private readonly answered: number[] = [];

	private inFlight = 0;

	private suspendedUntil = 0;

	private readonly queue: Waiter[] = [];

	/** Whether the loop handing out turns runs (one per pacer). */
	private handing = false;

	private readonly rates: Claims;

	/** Resolved when a request in flight is answered: the only thing that frees a full window early. */
	private answeredSignal?: { promise: Promise<void>; resolve: () => void };

	/** `defaultRate`: the rate of a request that names none. */
	constructor(
		readonly defaultRate: number,
		readonly windowMs: number,
		private readonly now: () => number = monotonicNow,
		private readonly wait: (ms: number) => Promise<void> = sleep,
	) {
		this.rates = new Claims(now);
	}

	/**
	 * Added to the window: timers fire late rather than early, but both clocks count whole
	 * milliseconds.
	 */
	static readonly marginMs = 10;

	/** Requests in any window now: the strictest rate in force. */
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

	/** Hands out turns while requests wait: one loop per pacer, so the queue's order holds. */
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

	/** Whether it holds nothing: no request waits, flies or counts, no rate and no suspension is in force. */
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
