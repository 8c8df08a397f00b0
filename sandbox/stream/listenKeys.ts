/**
 * Listen keys of the user data stream: created by an API key (a 64-character alphanumeric key), alive
 * for `ttlMs` on the sandbox clock after their creation or last keep-alive, then gone. A keep-alive or
 * delete names one of its own API key's live keys, or gets -1125. No HTTP and no sockets here.
 */
import { randomBytes } from 'node:crypto';

import { CODES } from '../codes';
import { tradingAccountOf } from '../constants';
import { apiError } from '../errors';
import type { DemoKey } from '../types';

/** Live listen keys one API key may hold at once (the family documents no limit; our choice). */
export const MAX_LISTEN_KEYS_PER_API_KEY = 60;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export interface ListenKey {
	listenKey: string;
	/** The API key that created it: only that key may keep it alive or delete it. */
	apiKey: string;
	/** Whose events it carries: the creating key's trading account. */
	accountId: string;
	/** Sandbox-clock ms from which it is expired. */
	expiresAt: number;
}

function newListenKey(): string {
	// 62 * 4 = 248 < 256: bytes below 248 map evenly onto the 62 characters
	let out = '';
	while (out.length < 64) {
		for (const b of randomBytes(96)) {
			if (b < 248 && out.length < 64) out += ALPHANUMERIC[b % 62];
		}
	}
	return out;
}

export class ListenKeys {
	/** Live (or expired but not yet swept) keys, in creation order. */
	private keys = new Map<string, ListenKey>();
	readonly deleted: string[] = [];
	keepAlives = 0;

	constructor(
		private readonly clock: () => number,
		private readonly ttlMs: number,
	) {}

	clear(): void {
		this.keys.clear();
		this.deleted.length = 0;
		this.keepAlives = 0;
	}

	/** Remove and return every key whose time has passed. */
	sweep(): ListenKey[] {
		const now = this.clock();
		const gone: ListenKey[] = [];
		for (const k of this.keys.values()) {
			if (now >= k.expiresAt) gone.push(k);
		}
		for (const k of gone) this.keys.delete(k.listenKey);
		return gone;
	}

	/** Expire every key now; returns them. */
	expireAll(): ListenKey[] {
		const all = [...this.keys.values()];
		this.keys.clear();
		return all;
	}

	/** A live key, or undefined (call sweep() first). */
	get(listenKey: string): ListenKey | undefined {
		return this.keys.get(listenKey);
	}

	get size(): number {
		return this.keys.size;
	}

	live(): ListenKey[] {
		return [...this.keys.values()];
	}

	/**
	 * A new key for `key`, or null when it already holds MAX_LISTEN_KEYS_PER_API_KEY live ones (the
	 * caller answers that; see retryAfterMs).
	 */
	create(key: DemoKey): ListenKey | null {
		if (this.ownedBy(key.apiKey).length >= MAX_LISTEN_KEYS_PER_API_KEY) return null;
		let listenKey = newListenKey();
		while (this.keys.has(listenKey) || this.deleted.includes(listenKey)) listenKey = newListenKey();
		const k: ListenKey = {
			listenKey,
			apiKey: key.apiKey,
			accountId: tradingAccountOf(key),
			expiresAt: this.clock() + this.ttlMs,
		};
		this.keys.set(listenKey, k);
		return k;
	}

	/** Sandbox-clock ms until the API key's oldest-expiring live key expires. */
	msUntilOneFrees(apiKey: string): number {
		const soonest = Math.min(...this.ownedBy(apiKey).map((k) => k.expiresAt));
		return Math.max(0, soonest - this.clock());
	}

	private ownedBy(apiKey: string): ListenKey[] {
		return [...this.keys.values()].filter((k) => k.apiKey === apiKey);
	}

	/** The API key's own live key, or -1125. */
	private own(apiKey: string, listenKey: string): ListenKey {
		const k = this.keys.get(listenKey);
		if (!k || k.apiKey !== apiKey) throw apiError(CODES.listenKeyNotFound);
		return k;
	}

	/** PUT: valid for ttlMs from now. */
	keepAlive(apiKey: string, listenKey: string): void {
		const k = this.own(apiKey, listenKey);
		k.expiresAt = this.clock() + this.ttlMs;
		this.keepAlives++;
	}

	/** DELETE: gone (the caller closes its sockets). */
	remove(apiKey: string, listenKey: string): ListenKey {
		const k = this.own(apiKey, listenKey);
		this.keys.delete(listenKey);
		this.deleted.push(listenKey);
		return k;
	}
}
