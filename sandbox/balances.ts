/**
 * Balances per account and coin: the total, and the part of it resting orders lock. Free is the
 * total minus the locked part; only free funds can be spent. No HTTP and no history here.
 */
import { ACCOUNT_TYPES } from './constants';
import * as D from './decimal';
import type { BalanceLine } from './types';

type PerAccount = Map<string, Map<string, D.Dec>>;

function put(map: PerAccount, accountId: string, coin: string, d: D.Dec): void {
	let m = map.get(accountId);
	if (!m) {
		m = new Map();
		map.set(accountId, m);
	}
	m.set(coin, d);
}

/** Throws for an account the sandbox does not have. */
export function checkAccount(accountId: string): void {
	if (!(accountId in ACCOUNT_TYPES)) throw new Error(`unknown account ${accountId}`);
}

export class Balances {
	/** Total balance per account and coin (free + locked). */
	private totals: PerAccount = new Map();
	/** Amount locked by resting orders, per account and coin. */
	private locks: PerAccount = new Map();

	clear(): void {
		this.totals.clear();
		this.locks.clear();
	}

	total(accountId: string, coin: string): D.Dec {
		return this.totals.get(accountId)?.get(coin) ?? D.ZERO;
	}

	locked(accountId: string, coin: string): D.Dec {
		return this.locks.get(accountId)?.get(coin) ?? D.ZERO;
	}

	free(accountId: string, coin: string): D.Dec {
		return D.sub(this.total(accountId, coin), this.locked(accountId, coin));
	}

	lock(accountId: string, coin: string, amount: D.Dec): void {
		put(this.locks, accountId, coin, D.add(this.locked(accountId, coin), amount));
	}

	unlock(accountId: string, coin: string, amount: D.Dec): void {
		put(this.locks, accountId, coin, D.sub(this.locked(accountId, coin), amount));
	}

	/** Change the total by `change`; returns the new total. */
	add(accountId: string, coin: string, change: D.Dec): D.Dec {
		const after = D.add(this.total(accountId, coin), change);
		put(this.totals, accountId, coin, after);
		return after;
	}

	/** Set the total balance of a coin; it may not go below what resting orders lock. */
	set(accountId: string, coin: string, amount: string): void {
		checkAccount(accountId);
		const d = D.parseDec(amount);
		if (!d || d.v < 0n) throw new Error(`balance must be a non-negative decimal string: ${amount}`);
		if (D.cmp(d, this.locked(accountId, coin)) < 0) {
			throw new Error(
				`balance ${amount} is below the ${D.fmt(this.locked(accountId, coin))} ${coin} locked by resting orders`,
			);
		}
		put(this.totals, accountId, coin, d);
	}

	detail(accountId: string, coin: string): { free: string; locked: string; total: string } {
		return {
			free: D.fmt(this.free(accountId, coin)),
			locked: D.fmt(this.locked(accountId, coin)),
			total: D.fmt(this.total(accountId, coin)),
		};
	}

	/** Every coin the account has held, sorted by name, zero balances included. */
	lines(accountId: string): BalanceLine[] {
		const coins = new Set([
			...(this.totals.get(accountId)?.keys() ?? []),
			...(this.locks.get(accountId)?.keys() ?? []),
		]);
		return [...coins].sort().map((coin) => {
			const b = this.detail(accountId, coin);
			return {
				asset: coin,
				assetId: coin,
				assetName: coin,
				total: b.total,
				free: b.free,
				locked: b.locked,
			};
		});
	}
}
