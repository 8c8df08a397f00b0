import type { IDataObject } from 'n8n-workflow';

/** Numeric comparison of two order IDs given as digit strings (64-bit: never as JS numbers). */
function olderThan(id: string, than: string): boolean {
	return BigInt(id) < BigInt(than);
}

/** Where Return All reads its pages: one page of a list (optionally of one account), and the key's trading accounts. */
export interface OrderPages {
	page(qs: { accountId?: string; fromOrderId?: string }): Promise<IDataObject[]>;
	/** The key's trading accounts (type 1: the main one and the sub accounts'), in the service's order. */
	tradingAccounts(): Promise<string[]>;
	/** The error when the service answers a page that would list an order twice. */
	fail(problem: string, detail: IDataObject): Error;
}

/**
 * Every order of a list (open or past orders), as the UAE documentation describes a master key's
 * list: without `accountId` the main trading account's orders come first and the sub accounts'
 * follow only when the main account has fewer than 500 (`mainBelow`), each account's newest first,
 * each account with its own order IDs. A page that mixes accounts cannot be continued from its last
 * ID: that ID is one account's and says nothing about another's (paging by it listed the main
 * account's orders again, or skipped a sub account's). So only the first page is read without
 * `accountId`; a page shorter than 500 holds everything. Otherwise each account is read to its end
 * on its own, by `accountId` and `fromOrderId` (its oldest order so far): the last account the first
 * page reached when that page was full, then the trading accounts the first page may have hidden
 * (it showed one account only, or was full), learned from GET /api/v1/account/type. Orders come
 * out in the service's order, each once; a page that would repeat one stops the node instead.
 */
export async function everyOrder(
	source: OrderPages,
	pageSize: number,
	mainBelow: number,
): Promise<IDataObject[]> {
	const orders: IDataObject[] = [];
	const listed = new Set<string>();
	const accounts: string[] = [];
	const oldest = new Map<string, string>();
	const take = (order: IDataObject) => {
		const id = String(order.orderId);
		const account = order.accountId === undefined ? '' : String(order.accountId);
		// An order is known by its account and its ID: each account numbers its own orders.
		const key = `${account}/${id}`;
		if (listed.has(key))
			throw source.fail(`Order ${id} was listed twice`, { orderId: id, accountId: account });
		listed.add(key);
		orders.push(order);
		if (!accounts.includes(account)) accounts.push(account);
		const before = oldest.get(account);
		if (before === undefined || olderThan(id, before)) oldest.set(account, id);
	};

	const first = await source.page({});
	first.forEach(take);
	if (first.length < mainBelow) return orders;

	// Every account the first page moved past was listed to its end; the last one only when the
	// page was not full.
	const toRead: string[] = first.length >= pageSize ? [accounts[accounts.length - 1]] : [];
	if (accounts.length === 1 || first.length >= pageSize) {
		for (const account of await source.tradingAccounts()) {
			if (!accounts.includes(account)) {
				accounts.push(account);
				toRead.push(account);
			}
		}
	}
	for (const account of toRead) {
		for (;;) {
			const from = oldest.get(account);
			const qs = {
				...(account === '' ? {} : { accountId: account }),
				...(from === undefined ? {} : { fromOrderId: from }),
			};
			const received = await source.page(qs);
			for (const order of received) {
				const id = String(order.orderId);
				if (order.accountId !== undefined && account !== '' && String(order.accountId) !== account)
					throw source.fail(
						`Order ${id} of account ${String(order.accountId)} came in a page of account ${account}`,
						{
							orderId: id,
							accountId: account,
						},
					);
				if (from !== undefined && !olderThan(id, from))
					throw source.fail(`Order ${id} came after asking for orders older than ${from}`, {
						orderId: id,
						fromOrderId: from,
					});
				take(order);
			}
			if (received.length < pageSize) break;
		}
	}
	return orders;
}
