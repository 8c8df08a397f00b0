import type { IDataObject, INode } from 'n8n-workflow';

import { IdWalk, type IdPaging } from '../../../../nodes/TradingService/futures/idPages';

const node = { name: 'Trading Service' } as INode;
const paging = (overrides: Partial<IdPaging> = {}): IdPaging => ({
	what: 'trades',
	idField: 'tradeId',
	cursor: 'toId',
	inclusive: false,
	pageSize: 3,
	...overrides,
});
const trades = (...ids: number[]): IDataObject[] => ids.map((id) => ({ tradeId: String(id) }));

/** Runs a walk over scripted pages; the queries it sent. */
function walk(walker: IdWalk, pages: IDataObject[][]): IDataObject[] {
	const sent: IDataObject[] = [];
	for (let request = walker.next(); request !== undefined; request = walker.next()) {
		sent.push(request.qs);
		walker.take(pages.shift() ?? []);
	}
	return sent;
}

describe('IdWalk: a futures list paged by ID, newest first', () => {
	it('asks below the oldest ID read until a page is short', () => {
		const walker = new IdWalk(node, paging(), { symbol: 'X-PERPETUAL' }, undefined);
		const sent = walk(walker, [trades(9, 8, 7), trades(6, 5, 4), trades(3)]);
		expect(sent).toEqual([
			{ symbol: 'X-PERPETUAL', limit: 3 },
			{ symbol: 'X-PERPETUAL', limit: 3, toId: '7' },
			{ symbol: 'X-PERPETUAL', limit: 3, toId: '4' },
		]);
		expect(walker.entries.map((trade) => trade.tradeId)).toEqual([
			'9',
			'8',
			'7',
			'6',
			'5',
			'4',
			'3',
		]);
	});

	it('asks up to one below the oldest when the cursor is inclusive (endId)', () => {
		const rates = (...ids: number[]) => ids.map((id) => ({ id: String(id) }));
		const walker = new IdWalk(
			node,
			paging({ idField: 'id', cursor: 'endId', inclusive: true }),
			{},
			undefined,
		);
		const sent = walk(walker, [rates(40, 36, 30), rates(20)]);
		expect(sent[1]).toEqual({ limit: 3, endId: '29' });
		expect(walker.entries).toHaveLength(4);
	});

	it('never sends a cursor of 0, which the exchange may read as no bound', () => {
		const rates = (...ids: number[]) => ids.map((id) => ({ id: String(id) }));
		const walker = new IdWalk(
			node,
			paging({ idField: 'id', cursor: 'endId', inclusive: true }),
			{},
			undefined,
		);
		const sent = walk(walker, [rates(3, 2, 1)]);
		expect(sent).toEqual([{ limit: 3 }]);
		expect(walker.entries).toHaveLength(3);
	});

	it('asks only for what Limit still wants', () => {
		const walker = new IdWalk(node, paging(), {}, 5);
		const sent = walk(walker, [trades(9, 8, 7), trades(6, 5)]);
		expect(sent.map((query) => query.limit)).toEqual([3, 2]);
		expect(walker.entries).toHaveLength(5);
	});

	it('drops the entry at the cursor a service sends again, and ends on a page with nothing new', () => {
		const walker = new IdWalk(node, paging(), {}, undefined);
		walk(walker, [trades(9, 8, 7), trades(7)]);
		expect(walker.entries.map((trade) => trade.tradeId)).toEqual(['9', '8', '7']);
	});

	it.each([
		['an overlap', [trades(9, 8, 7), trades(8, 6, 5)], /tradeId 8 again, or above the 7/],
		['a page not newest first', [trades(7, 9)], /not newest first: tradeId 9 after 7/],
		['more than asked for', [trades(9, 8, 7, 6)], /4 trades for a request of at most 3/],
		['an entry without an ID', [[{ tradeId: 12 }]], /without a numeric tradeId/],
	])('stops the node on %s, keeping nothing of that page', (_case, pages, message) => {
		const walker = new IdWalk(node, paging(), {}, undefined);
		expect(() => walk(walker, pages as IDataObject[][])).toThrow(message);
	});

	it('compares IDs of 19 digits without rounding', () => {
		const big = ['2132264544794839413', '2132264544794839412', '2132264544794839411'];
		const walker = new IdWalk(node, paging(), {}, undefined);
		const sent = walk(walker, [big.map((tradeId) => ({ tradeId })), []]);
		expect(sent[1].toId).toBe('2132264544794839411');
	});
});
