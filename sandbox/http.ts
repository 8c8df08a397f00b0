/**
 * HTTP helpers of the sandbox: form/query parameter parsing (kept raw for the signature check),
 * the per-key weight budget and least intervals, and the addresses silenced by a 429 (UAE rule).
 */
import type * as http from 'node:http';

import { fieldError } from './errors';
import type { RateLimitConfig } from './types';

export interface Pair {
	name: string;
	value: string;
	raw: string;
}

export function decodeComponent(s: string, name: string): string {
	try {
		return decodeURIComponent(s.replace(/\+/g, ' '));
	} catch {
		throw fieldError(name, 'bad percent-encoding');
	}
}

/** Split a raw x-www-form-urlencoded string into pairs, keeping each raw segment (empty segments too). */
export function splitPairs(raw: string): Pair[] {
	if (raw === '') return [];
	return raw.split('&').map((seg) => {
		const eq = seg.indexOf('=');
		const rawName = eq < 0 ? seg : seg.slice(0, eq);
		const rawValue = eq < 0 ? '' : seg.slice(eq + 1);
		let name: string;
		try {
			name = decodeURIComponent(rawName.replace(/\+/g, ' '));
		} catch {
			name = rawName;
		}
		return { name, value: rawValue, raw: seg };
	});
}

export function toParamMap(
	pairs: Pair[],
	into: Map<string, string> = new Map(),
): Map<string, string> {
	for (const p of pairs) {
		if (p.raw === '') continue;
		if (into.has(p.name)) throw fieldError(p.name, 'sent more than once');
		into.set(p.name, decodeComponent(p.value, p.name));
	}
	return into;
}

export function mediaType(req: http.IncomingMessage): string {
	const ct = req.headers['content-type'];
	return (ct ?? '').split(';')[0].trim().toLowerCase();
}

export class RateLimiter {
	private state = new Map<
		string,
		{ events: Array<{ at: number; w: number }>; head: number; sum: number }
	>();

	/** When each key last made an accepted call of a route with a least interval, by key and path. */
	private lastCalls = new Map<string, number>();

	/** When each client address was last answered 429. */
	private rateLimitedAt = new Map<string, number>();

	constructor(public config: RateLimitConfig | false) {}

	clear(): void {
		this.state.clear();
		this.lastCalls.clear();
		this.rateLimitedAt.clear();
	}

	/** A 429 was answered to `address` at `now` (real clock). */
	noteRateLimited(address: string, now: number): void {
		this.rateLimitedAt.set(address, now);
	}

	/** Whether `address` was answered 429 less than `silenceMs` before `now`. */
	isSilenced(address: string, now: number, silenceMs: number): boolean {
		const at = this.rateLimitedAt.get(address);
		return at !== undefined && now - at < silenceMs;
	}

	/**
	 * Charge a call of `route` (at `path`) to `apiKey`: its least interval since the key's last
	 * accepted call of it, then its weight. Returns null when allowed, else seconds until it would be.
	 */
	charge(
		apiKey: string,
		route: { weight: number; minIntervalMs?: number },
		path: string,
		now: number,
	): number | null {
		const cfg = this.config;
		if (!cfg) return null;
		if (route.minIntervalMs !== undefined && cfg.intervals !== false) {
			const callKey = `${apiKey} ${path}`;
			const last = this.lastCalls.get(callKey);
			if (last !== undefined && now - last < route.minIntervalMs)
				return Math.max(1, Math.ceil((last + route.minIntervalMs - now) / 1000));
			const refused = this.chargeWeight(apiKey, route.weight, now);
			if (refused === null) this.lastCalls.set(callKey, now);
			return refused;
		}
		return this.chargeWeight(apiKey, route.weight, now);
	}

	/** Charge `weight` to `apiKey`; returns null when allowed, else seconds until enough weight frees up. */
	private chargeWeight(apiKey: string, weight: number, now: number): number | null {
		const cfg = this.config;
		if (!cfg) return null;
		let st = this.state.get(apiKey);
		if (!st) {
			st = { events: [], head: 0, sum: 0 };
			this.state.set(apiKey, st);
		}
		while (st.head < st.events.length && st.events[st.head].at <= now - cfg.windowMs) {
			st.sum -= st.events[st.head].w;
			st.head++;
		}
		if (st.head > 1024 && st.head * 2 > st.events.length) {
			st.events = st.events.slice(st.head);
			st.head = 0;
		}
		if (st.sum + weight > cfg.maxWeight) {
			if (weight > cfg.maxWeight) return Math.max(1, Math.ceil(cfg.windowMs / 1000));
			const need = st.sum + weight - cfg.maxWeight;
			let freed = 0;
			let i = st.head;
			while (freed < need && i < st.events.length) freed += st.events[i++].w;
			const freeAt = st.events[i - 1].at + cfg.windowMs;
			return Math.max(1, Math.ceil((freeAt - now) / 1000));
		}
		st.events.push({ at: now, w: weight });
		st.sum += weight;
		return null;
	}
}
