/**
 * The exchange's request rates per API key and class (the HashKey UAE/MENA documentation, "Order
 * Rate Limiting"): at most `orderPerSecond` order requests and `queryPerSecond` query requests of
 * one key in any 1000 ms. The request over that is refused (0003) and suspends the key's class for
 * `suspensionMs`; during a suspension a request the client signed before it could know of it (before
 * it began, or within IN_FLIGHT_MS after) gets the same refusal, anything signed later a 418, as
 * the exchange bans a client that keeps sending. Judged as a gateway would, before authentication and the weight
 * budget, on the real clock (realClock.ts): the sandbox's offset clock must not stretch a second.
 */
import { DEMO_KEYS, DOCUMENTED_REQUEST_RATES } from './constants';
import { mediaType, splitPairs } from './http';
import type { RateClass } from './routes/route';
import { rateClassOf } from './routes/table';
import type { RequestRates } from './types';
import type * as http from 'node:http';

/** The sliding window of the limit, in real milliseconds. */
export const REQUEST_RATE_WINDOW_MS = 1000;

/**
 * How long after a refusal a client's requests still count as sent before it could know of it.
 * The refusal takes a round trip to reach the client, and requests it had already let go (a burst
 * of parallel ones) are signed meanwhile; the exchange cannot tell them from a client that keeps
 * sending, so the sandbox gives the client a second to hear of it: what it signs later is sent
 * into the suspension.
 */
export const IN_FLIGHT_MS = 1000;

const KNOWN_API_KEYS = new Set(Object.values(DEMO_KEYS).map((k) => k.apiKey));

/**
 * The rates an option means: false stays false; a partial object (or nothing) takes what it
 * leaves out from the documented rates. Throws for a rate that is not a positive integer or a
 * suspension that is not a non-negative number of milliseconds.
 */
export function requestRatesFrom(
	option: Partial<RequestRates> | false | undefined,
): RequestRates | false {
	if (option === false) return false;
	const given = Object.fromEntries(
		Object.entries(option ?? {}).filter(([, v]) => v !== undefined),
	) as Partial<RequestRates>;
	const rates: RequestRates = { ...DOCUMENTED_REQUEST_RATES, ...given };
	for (const name of ['orderPerSecond', 'queryPerSecond'] as const) {
		if (!Number.isSafeInteger(rates[name]) || rates[name] < 1)
			throw new Error(
				`requestRates.${name} must be a positive integer, not ${String(rates[name])}`,
			);
	}
	if (!Number.isFinite(rates.suspensionMs) || rates.suspensionMs < 0)
		throw new Error(
			`requestRates.suspensionMs must be a non-negative number, not ${String(rates.suspensionMs)}`,
		);
	return rates;
}

/**
 * The `timestamp` a client signed into the request (query string, or a form body), or undefined
 * when it sent none that reads as milliseconds. Read raw, before any signature check: the gateway
 * only needs to know when the client says it sent the request.
 */
export function signedTimestampOf(
	req: http.IncomingMessage,
	query: string,
	body: string,
): number | undefined {
	const pairs = splitPairs(query);
	if (mediaType(req) === 'application/x-www-form-urlencoded') pairs.push(...splitPairs(body));
	const found = pairs.find((p) => p.name === 'timestamp');
	if (found === undefined) return undefined;
	let value: string;
	try {
		value = decodeURIComponent(found.value);
	} catch {
		return undefined;
	}
	return /^\d{1,16}$/.test(value) ? Number(value) : undefined;
}

/**
 * What the limiter says of one request: accepted (and counted); 'rateLimited' (the limit met, or
 * signed before the suspension it arrives in began: the 0003 refusal); 'intoSuspension' (sent into
 * a suspension the client could have known of: 418).
 */
export type RateVerdict = 'accepted' | 'rateLimited' | 'intoSuspension';

interface Suspension {
	/** Real clock when it ends. */
	until: number;
	/** Server clock (the clock clients sign with) when it began. */
	fromServerTime: number;
}

export class RequestRateLimiter {
	/** Accepted arrivals (real clock) of each key and class, oldest first. */
	private arrivals = new Map<string, number[]>();
	private suspensions = new Map<string, Suspension>();

	constructor(private current: RequestRates | false) {}

	/** The rates in force (a copy), or false. */
	get rates(): RequestRates | false {
		return this.current && { ...this.current };
	}

	/** New rates; every window and suspension starts afresh. */
	configure(rates: RequestRates | false): void {
		this.current = rates;
		this.clear();
	}

	clear(): void {
		this.arrivals.clear();
		this.suspensions.clear();
	}

	/**
	 * The class a request counts in: undefined when rates are off, the X-APIKEY names no demo key
	 * (the gateway cannot tell whose it is) or no endpoint has that path and method.
	 */
	classOf(apiKey: string | undefined, path: string, method: string): RateClass | undefined {
		if (!this.current || apiKey === undefined || !KNOWN_API_KEYS.has(apiKey)) return undefined;
		return rateClassOf(path, method);
	}

	/**
	 * Judge one request of `apiKey` in `rateClass` arriving at `now` (real clock) and
	 * `serverTime` (server clock). `timestamp` is read only during a suspension.
	 */
	judge(
		apiKey: string,
		rateClass: RateClass,
		timestamp: () => number | undefined,
		now: number,
		serverTime: number,
	): RateVerdict {
		const rates = this.current;
		if (!rates) return 'accepted';
		const id = `${apiKey} ${rateClass}`;
		const suspension = this.suspensions.get(id);
		if (suspension && now < suspension.until) {
			// A client cannot know of a refusal before it arrives: what it signed before the
			// suspension began was already on its way. Anything signed later was sent into it.
			const ts = timestamp();
			return ts !== undefined && ts < suspension.fromServerTime + IN_FLIGHT_MS
				? 'rateLimited'
				: 'intoSuspension';
		}
		if (suspension) this.suspensions.delete(id);
		const limit = rateClass === 'order' ? rates.orderPerSecond : rates.queryPerSecond;
		const list = this.window(id, now);
		if (list.length >= limit) {
			this.suspend(id, now, serverTime);
			return 'rateLimited';
		}
		list.push(now);
		return 'accepted';
	}

	/**
	 * The rateLimitSuspension fault: the request `judge` just accepted is refused after all, as if
	 * its class had met the limit: it leaves the window and the suspension begins.
	 */
	refuseAccepted(apiKey: string, rateClass: RateClass, now: number, serverTime: number): void {
		if (!this.current) return;
		const id = `${apiKey} ${rateClass}`;
		// judge() and the fault's pick run in one go, no request between them: the newest
		// arrival of this key and class is this request's.
		this.arrivals.get(id)?.pop();
		this.suspend(id, now, serverTime);
	}

	private suspend(id: string, now: number, serverTime: number): void {
		const ms = this.current ? this.current.suspensionMs : 0;
		this.suspensions.set(id, { until: now + ms, fromServerTime: serverTime });
	}

	/** The arrivals of `id` within the window that ends at `now`, older ones dropped. */
	private window(id: string, now: number): number[] {
		let list = this.arrivals.get(id);
		if (!list) {
			list = [];
			this.arrivals.set(id, list);
		}
		let drop = 0;
		while (drop < list.length && list[drop] <= now - REQUEST_RATE_WINDOW_MS) drop++;
		if (drop > 0) list.splice(0, drop);
		return list;
	}
}
