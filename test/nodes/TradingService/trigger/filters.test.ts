import {
	EVENTS_WITH_DIRECTION,
	exactFilterValue,
	type RecordFilter,
} from '../../../../nodes/TradingService/trigger/pollParameters';
import {
	describeFilter,
	matchesFilter,
} from '../../../../nodes/TradingService/trigger/eventSources';
import type { HistoryRecord } from '../../../../nodes/TradingService/helpers/historyPage';
import { node } from './support';

const record = (fields: Partial<HistoryRecord>): HistoryRecord =>
	({ id: '1', created: '1700000000000', change: '1', coin: 'USDT', ...fields }) as HistoryRecord;

describe('exactFilterValue', () => {
	it('takes text exactly as typed, and an empty value as no filter', () => {
		expect(exactFilterValue(node, 'Coin', 'USDT')).toBe('USDT');
		expect(exactFilterValue(node, 'Coin', 'usdt')).toBe('usdt');
		expect(exactFilterValue(node, 'Coin', '')).toBeUndefined();
		expect(exactFilterValue(node, 'Coin', undefined)).toBeUndefined();
		expect(exactFilterValue(node, 'Coin', null)).toBeUndefined();
	});

	it('refuses a value with leading or trailing spaces, naming the field and the fix', () => {
		expect(() => exactFilterValue(node, 'Symbol', ' BTCUSDT')).toThrow(
			'Symbol: " BTCUSDT" starts or ends with spaces',
		);
		try {
			exactFilterValue(node, 'Coin', 'USDT ');
			throw new Error('not refused');
		} catch (error) {
			expect((error as { description?: string }).description).toMatch(/Remove the spaces/);
		}
	});

	it('refuses a value that is not text', () => {
		expect(() => exactFilterValue(node, 'Coin', 5)).toThrow('Coin: 5 is not text');
		expect(() => exactFilterValue(node, 'Coin', ['USDT'])).toThrow('Coin: ["USDT"] is not text');
	});
});

describe('matchesFilter', () => {
	const both: RecordFilter = { direction: 'both' };

	it('Direction: incoming takes credits only, outgoing debits only, both takes all', () => {
		const credit = record({ change: '0.5' });
		const debit = record({ change: '-0.731' });
		const zero = record({ change: '-0.000' });
		expect([credit, debit, zero].map((r) => matchesFilter(r, both))).toEqual([true, true, true]);
		expect([credit, debit, zero].map((r) => matchesFilter(r, { direction: 'incoming' }))).toEqual([
			true,
			false,
			false,
		]);
		expect([credit, debit, zero].map((r) => matchesFilter(r, { direction: 'outgoing' }))).toEqual([
			false,
			true,
			false,
		]);
	});

	it('reads a change given as a number, and treats a missing change as neither direction', () => {
		expect(
			matchesFilter(record({ change: -2 as unknown as string }), { direction: 'outgoing' }),
		).toBe(true);
		expect(
			matchesFilter(record({ change: undefined as unknown as string }), { direction: 'incoming' }),
		).toBe(false);
	});

	it('Coin and Symbol match exactly and case-sensitively; a record without a symbol never matches one', () => {
		expect(matchesFilter(record({ coin: 'USDT' }), { ...both, coin: 'USDT' })).toBe(true);
		expect(matchesFilter(record({ coin: 'USDT' }), { ...both, coin: 'usdt' })).toBe(false);
		expect(
			matchesFilter(record({ symbol: 'ETHUSDT-PERPETUAL' } as Partial<HistoryRecord>), {
				...both,
				symbol: 'ETHUSDT-PERPETUAL',
			}),
		).toBe(true);
		expect(matchesFilter(record({}), { ...both, symbol: 'ETHUSDT-PERPETUAL' })).toBe(false);
	});
});

describe('describeFilter', () => {
	it('names each filter in force, and nothing for Direction both', () => {
		expect(describeFilter({ direction: 'both' })).toBe('');
		expect(describeFilter({ direction: 'incoming', coin: 'USDT', symbol: 'BTCUSDT' })).toBe(
			'Direction incoming, Coin "USDT", Symbol "BTCUSDT"',
		);
	});
});

describe('EVENTS_WITH_DIRECTION', () => {
	it('lists the flow types whose records can be credits or debits, funding fees among them', () => {
		expect(EVENTS_WITH_DIRECTION).toContain(32);
		expect(new Set(EVENTS_WITH_DIRECTION).size).toBe(EVENTS_WITH_DIRECTION.length);
	});
});
