import { monotonicNow } from './clock';
import { RequestPacer } from './requestPacer';
import { IntervalGate, WeightLimiter } from './throttles';

export { RequestPacer, type PacerRequest, type PacerTurn } from './requestPacer';
export { IntervalGate, WeightLimiter } from './throttles';

/**
 * What this n8n process keeps per service, across node runs and executions: the request rate of
 * each API key and class with its suspension after a rate limit, a ban (418), and the throttles
 * (throttles.ts). All keyed by the Base URL normalised: `https://h/` and `https://H:443` are one.
 * Each is one per key whatever the credentials naming the key say: the strictest figure in force
 * wins (claims.ts), and none is replaced or dropped while it holds anything.
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
 * purpose (the service counts weight per key across executions), but only while they hold
 * something: an idle one is dropped when another key's limiter is looked up.
 */
const limiters = new Map<string, WeightLimiter>();

/**
 * The shared limiter of one API key at one service, or undefined when pacing by weight is off.
 * Its window is the one first asked for; each request brings its own budget (the strictest in
 * force applies). Look it up right before each request: a limiter nothing holds may be dropped.
 */
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
	// A longer window is stricter: a limiter idle now may take it.
	if (limiter === undefined || (limiter.windowMs < windowSeconds * 1000 && limiter.isIdle())) {
		limiter = new WeightLimiter(budget, windowSeconds * 1000);
		limiters.set(key, limiter);
	}
	return limiter;
}

const gates = new Map<string, IntervalGate>();

/**
 * The shared gate of one paced endpoint for one API key at one service; each call brings its own
 * interval (the longest in force applies).
 */
export function gateFor(
	baseUrl: string,
	apiKey: string,
	endpointKey: string,
	intervalMs: number,
): IntervalGate {
	const key = `${normaliseBaseUrl(baseUrl)}\u0000${apiKey}\u0000${endpointKey}`;
	for (const [other, gate] of gates) if (other !== key && gate.isIdle()) gates.delete(other);
	let gate = gates.get(key);
	if (gate === undefined) {
		gate = new IntervalGate(intervalMs);
		gates.set(key, gate);
	}
	return gate;
}

/** The two kinds of request the service counts apart (the UAE documentation, "Order Rate Limiting"). */
export type RateClass = 'order' | 'query';

const pacers = new Map<string, RequestPacer>();

/**
 * The shared pacer of one API key's class at one service in this n8n instance. Each request brings the
 * rate its credential allows (already divided by the processes sharing the key); the pacer holds
 * every request to the strictest rate in force, so it is never replaced and a rate change keeps
 * the places already taken and any suspension.
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
	if (pacer === undefined) {
		pacer = new RequestPacer(perSecond, 1000);
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
 * documentation bans the IP address, not the key. After a 418 nothing is sent to the service, by
 * any run, for as long as its Retry-After says, or IP_BAN_DEFAULT_MS without one.
 */
export class ServiceBan {
	private until = 0;

	constructor(private readonly now: () => number = monotonicNow) {}

	/** After a 418: nothing is sent for `retryAfterMs`, or IP_BAN_DEFAULT_MS when the answer gave none. Returns its end. */
	banned(retryAfterMs?: number): number {
		const length = retryAfterMs === undefined ? IP_BAN_DEFAULT_MS : retryAfterMs;
		this.until = Math.max(this.until, this.now() + length);
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
