/**
 * Get Many's Return All paging (everyOrder) against a model of the exchange's list with several
 * sub accounts, as the UAE documentation describes a master key's open and past orders: without
 * accountId the main account first, the sub accounts (in the exchange's order) only when the main
 * account has fewer than 500, up to the limit in all; with accountId one account; fromOrderId:
 * only orders with a smaller ID; each account newest first, with its own ID sequence. The sandbox
 * has one sub account: these fixed vectors cover three, with sequences that interleave.
 */
import type { IDataObject } from 'n8n-workflow';

import { everyOrder } from '../../../../nodes/TradingService/orders/getMany.operation';

const PAGE = 1000;
const MAIN_BELOW = 500;
const ACCOUNTS = ['main', 'sub1', 'sub2', 'sub3'];
/** Each account's own ID sequence: first ID and step. They overlap, so IDs of accounts interleave. */
const SEQUENCES: Record<string, [bigint, bigint]> = {
	main: [1_950_000_000_000_000_017n, 3n],
	sub1: [1_950_000_000_000_000_018n, 7n],
	sub2: [1_940_000_000_000_000_000n, 1n],
	sub3: [1_950_000_000_000_001_000n, 2n],
};

interface Model {
	/** Each account's orders, newest first. */
	lists: Record<string, IDataObject[]>;
	requests: Array<{ accountId?: string; fromOrderId?: string }>;
	accountTypeCalls: number;
}

function model(counts: number[]): Model {
	const lists: Record<string, IDataObject[]> = {};
	ACCOUNTS.forEach((account, index) => {
		const [first, step] = SEQUENCES[account];
		lists[account] = Array.from({ length: counts[index] }, (_, k) => ({
			accountId: account,
			orderId: String(first + BigInt(k) * step),
		})).reverse();
	});
	return { lists, requests: [], accountTypeCalls: 0 };
}

function source(m: Model, ignoreFromOrderId = false) {
	const listOf = (account: string, from?: string) =>
		m.lists[account].filter(
			(order) =>
				ignoreFromOrderId || from === undefined || BigInt(String(order.orderId)) < BigInt(from),
		);
	return {
		page: async (qs: { accountId?: string; fromOrderId?: string }) => {
			m.requests.push(qs);
			if (qs.accountId !== undefined) return listOf(qs.accountId, qs.fromOrderId).slice(0, PAGE);
			const out = listOf('main', qs.fromOrderId).slice(0, PAGE);
			if (out.length >= MAIN_BELOW) return out;
			for (const sub of ACCOUNTS.slice(1)) {
				if (out.length >= PAGE) break;
				out.push(...listOf(sub, qs.fromOrderId).slice(0, PAGE - out.length));
			}
			return out;
		},
		tradingAccounts: async () => {
			m.accountTypeCalls++;
			return [...ACCOUNTS];
		},
		fail: (problem: string) => new Error(problem),
	};
}

describe('Get Many: Return All over a master key’s accounts (fixed vectors)', () => {
	it.each([
		[[0, 0, 0, 0]],
		[[3, 4, 0, 5]],
		[[250, 800, 0, 0]],
		[[700, 5, 0, 0]],
		[[499, 1, 600, 2000]],
		[[500, 0, 0, 3]],
		[[1000, 0, 0, 0]],
		[[1001, 1, 1, 1]],
		[[0, 1200, 0, 7]],
		[[0, 0, 0, 1500]],
		[[999, 0, 1, 0]],
		[[0, 499, 500, 1]],
		[[2500, 499, 1001, 30]],
	])(
		'defect 11: main, sub1, sub2, sub3 with %j open orders: every order once, main account first, then the sub accounts in the exchange’s order',
		async (counts) => {
			const m = model(counts);
			const orders = await everyOrder(source(m), PAGE, MAIN_BELOW);
			const expected = ACCOUNTS.flatMap((account) => m.lists[account]);
			expect(orders.map((order) => order.orderId)).toEqual(expected.map((order) => order.orderId));
			// Only the first request goes without accountId; a page below 500 is all there is.
			expect(m.requests.slice(1).every((qs) => qs.accountId !== undefined)).toBe(true);
			const total = counts.reduce((sum, count) => sum + count, 0);
			if (total < MAIN_BELOW) expect(m.requests).toHaveLength(1);
			expect(m.accountTypeCalls).toBeLessThanOrEqual(1);
		},
	);

	it('defect 11: a service that ignores fromOrderId stops the node instead of listing orders twice', async () => {
		const m = model([1000, 0, 0, 0]);
		await expect(everyOrder(source(m, true), PAGE, MAIN_BELOW)).rejects.toThrow(
			/came after asking for orders older than/,
		);
	});
});
