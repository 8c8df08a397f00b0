import type { IDataObject } from 'n8n-workflow';

import { LIMITS } from '../constants';

/**
 * Each key's accounts (GET /api/v1/account/type), per process, service and key
 * (ServiceClient.keyAccounts): kept LIMITS.accountScopeTtlMs, shared by callers at once, a failed
 * read never kept.
 */

interface CachedAccounts {
	accounts: Promise<IDataObject[]>;
	readAt: number;
	settled: boolean;
}

const keyAccountsCache = new Map<string, CachedAccounts>();

/** Forgets every key's accounts: tests start each case with none. */
export function clearAccountScopeCache(): void {
	keyAccountsCache.clear();
}

/** The accounts kept under `key`, or those `read` returns, kept from now on. */
export async function sharedKeyAccounts(
	key: string,
	read: () => Promise<IDataObject[]>,
): Promise<IDataObject[]> {
	const now = Date.now();
	for (const [other, entry] of keyAccountsCache) {
		if (entry.settled && now - entry.readAt >= LIMITS.accountScopeTtlMs)
			keyAccountsCache.delete(other);
	}
	const cached = keyAccountsCache.get(key);
	if (cached !== undefined) return await cached.accounts;
	const entry: CachedAccounts = { readAt: now, settled: false, accounts: read() };
	keyAccountsCache.set(key, entry);
	entry.accounts.then(
		() => {
			entry.settled = true;
		},
		() => {
			if (keyAccountsCache.get(key) === entry) keyAccountsCache.delete(key);
		},
	);
	return await entry.accounts;
}
