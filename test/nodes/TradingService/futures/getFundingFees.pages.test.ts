import type { IDataObject, INode } from 'n8n-workflow';

import { FeesWalk } from '../../../../nodes/TradingService/futures/getFundingFees.operation';

const node = { name: 'Trading Service' } as INode;
const SYMBOL = 'BTCUSDT-PERPETUAL';
const fee = (time: number, positionSide = 'LONG'): IDataObject => ({
	symbol: SYMBOL,
	fundingTime: String(time),
	positionSide,
	fee: '-0.1',
});
/** A page of `count` fees, one a settlement, newest at `newest`, `step` ms apart. */
const page = (newest: number, count: number, step = 10) =>
	Array.from({ length: count }, (_, index) => fee(newest - index * step));

function walk(walker: FeesWalk, pages: IDataObject[][]): IDataObject[] {
	const sent: IDataObject[] = [];
	for (let request = walker.next(); request !== undefined; request = walker.next()) {
		sent.push(request.qs);
		walker.take(pages.shift() ?? []);
	}
	return sent;
}

describe('FeesWalk: funding fees paged by time', () => {
	it('moves End down to the oldest settlement read; the fee there, listed again, is kept once', () => {
		const walker = new FeesWalk(
			node,
			{ symbol: SYMBOL, startTime: 0, endTime: 100_000 },
			undefined,
		);
		const first = page(100_000, 1000);
		const oldest = 100_000 - 999 * 10;
		const second = [fee(oldest), ...page(oldest - 10, 20)];
		const sent = walk(walker, [first, second]);
		expect(sent.map((query) => [query.endTime, query.limit])).toEqual([
			[100_000, 1000],
			[oldest, 1000],
		]);
		expect(walker.fees).toHaveLength(1020);
		expect(new Set(walker.fees.map((entry) => entry.fundingTime)).size).toBe(1020);
	});

	it('loses neither fee of a settlement a page cut between them', () => {
		const walker = new FeesWalk(
			node,
			{ symbol: SYMBOL, startTime: 0, endTime: 100_000 },
			undefined,
		);
		const first = [...page(100_000, 999), fee(90_000, 'LONG')];
		const second = [fee(90_000, 'LONG'), fee(90_000, 'SHORT'), fee(89_990)];
		walk(walker, [first, second]);
		expect(walker.fees.filter((entry) => entry.fundingTime === '90000')).toHaveLength(2);
		expect(walker.fees).toHaveLength(1002);
	});

	it('asks Limit’s remainder, plus the fees it may be sent again', () => {
		const walker = new FeesWalk(node, { symbol: SYMBOL, startTime: 0, endTime: 100_000 }, 1003);
		const oldest = 100_000 - 999 * 10;
		const sent = walk(walker, [page(100_000, 1000), [fee(oldest), ...page(oldest - 10, 3)]]);
		expect(sent.map((query) => query.limit)).toEqual([1000, 4]);
		expect(walker.fees).toHaveLength(1003);
	});

	it.each([
		['a fee after the range asked for', [page(100_010, 2)], /a fee at 100010, outside the range/],
		['a page not newest first', [[fee(50), fee(60)]], /not newest first: fundingTime 60 after 50/],
		['a fee without a time', [[{ fee: '-1' }]], /without a numeric fundingTime/],
	])('stops the node on %s', (_case, pages, message) => {
		const walker = new FeesWalk(
			node,
			{ symbol: SYMBOL, startTime: 0, endTime: 100_000 },
			undefined,
		);
		expect(() => walk(walker, pages as IDataObject[][])).toThrow(message);
	});

	it('stops the node on a full page of one settlement, which it cannot page past', () => {
		const walker = new FeesWalk(
			node,
			{ symbol: SYMBOL, startTime: 0, endTime: 100_000 },
			undefined,
		);
		const full = page(100_000, 1000, 0).map((entry, index) => ({
			...entry,
			positionSide: `S${index}`,
		}));
		expect(() => walk(walker, [full, full])).toThrow(/a full page of fees all settled at 100000/);
	});
});
