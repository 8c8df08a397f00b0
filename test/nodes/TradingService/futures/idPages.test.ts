import type { IDataObject, INode } from 'n8n-workflow';

import { IdWalk, type IdPaging } from '../../../../nodes/TradingService/futures/idPages';

const node = { name: 'Trading Service' } as INode;
const paging = (overrides: Partial<IdPaging> = {}): IdPaging => ({
	what: 'trades',
	idField: 'tradeId',
	cursor: 'toId',
	cursorReading: 'below',
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

	describe('a cursor the documentation does not say how it reads (endId)', () => {
		const rates = (...ids: number[]) => ids.map((id) => ({ id: String(id) }));
		const either = paging({ idField: 'id', cursor: 'endId', cursorReading: 'either' });
		/** A service holding `ids` (newest first) that reads endId one way or the other. */
		const service =
			(ids: number[], reading: 'inclusive' | 'exclusive') =>
			(qs: IDataObject): IDataObject[] => {
				const endId = qs.endId === undefined ? Infinity : Number(qs.endId);
				const listed = ids.filter((id) => (reading === 'inclusive' ? id <= endId : id < endId));
				return rates(...listed.slice(0, Number(qs.limit)));
			};
		/** Runs a walk against a service; the queries it sent. */
		function against(walker: IdWalk, answer: (qs: IDataObject) => IDataObject[]): IDataObject[] {
			const sent: IDataObject[] = [];
			for (let request = walker.next(); request !== undefined; request = walker.next()) {
				sent.push(request.qs);
				walker.take(answer(request.qs));
			}
			return sent;
		}
		const consecutive = (count: number) => Array.from({ length: count }, (_, i) => count - i);

		it('sends the oldest ID read and asks for one more, which an inclusive reading sends again', () => {
			const walker = new IdWalk(node, either, {}, undefined);
			const sent = walk(walker, [rates(40, 36, 30), rates(30, 26, 20), rates(20, 16)]);
			expect(sent).toEqual([{ limit: 3 }, { limit: 3, endId: '30' }, { limit: 3, endId: '20' }]);
			expect(walker.entries.map((rate) => rate.id)).toEqual(['40', '36', '30', '26', '20', '16']);
		});

		it.each(['inclusive', 'exclusive'] as const)(
			'reads every entry once when the service reads endId as %s: Return All and Limit',
			(reading) => {
				const ids = consecutive(25);
				const all = new IdWalk(node, either, {}, undefined);
				against(all, service(ids, reading));
				expect(all.entries.map((rate) => Number(rate.id))).toEqual(ids);
				for (const wanted of [1, 3, 4, 7, 24, 25, 30]) {
					const some = new IdWalk(node, either, {}, wanted);
					against(some, service(ids, reading));
					expect(some.entries.map((rate) => Number(rate.id))).toEqual(
						ids.slice(0, Math.min(wanted, 25)),
					);
				}
			},
		);

		it('never sends a cursor of 0 or 1: nothing is older than ID 1', () => {
			const walker = new IdWalk(node, either, {}, undefined);
			const sent = walk(walker, [rates(3, 2, 1)]);
			expect(sent).toEqual([{ limit: 3 }]);
			expect(walker.entries).toHaveLength(3);
		});
	});

	it('until: ends after the first page holding an entry old enough, keeping that page', () => {
		const walker = new IdWalk(node, paging(), {}, undefined).until(
			(trade) => Number(trade.tradeId) <= 5,
		);
		const sent = walk(walker, [trades(9, 8, 7), trades(6, 5, 4), trades(3, 2, 1)]);
		expect(sent).toHaveLength(2);
		expect(walker.entries.map((trade) => trade.tradeId)).toEqual(['9', '8', '7', '6', '5', '4']);
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
