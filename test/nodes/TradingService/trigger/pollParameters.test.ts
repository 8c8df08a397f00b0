import type { IDataObject } from 'n8n-workflow';

import { DAY_MS } from '../../../../nodes/TradingService/constants';
import {
	DEFAULT_LATE_WINDOW_MINUTES,
	END_MARGIN_MS,
	RETENTION_MARGIN_MS,
	historyQuery,
	pollBounds,
	readSettings,
	type TriggerSettings,
} from '../../../../nodes/TradingService/trigger/pollParameters';
import { pollFunctions } from './support';

// The trigger's parameters, checked, and the bounds of a poll: pure, from fixed parameters.

function refusal(parameters: IDataObject): string | undefined {
	try {
		readSettings(pollFunctions(parameters));
		return undefined;
	} catch (error) {
		return (error as Error).message;
	}
}

describe('readSettings', () => {
	it('an event alone: any account type, both directions, no filter, the default late window', () => {
		const settings = readSettings(pollFunctions({ event: 32 }));
		expect(settings.flowType.value).toBe(32);
		expect(settings).toMatchObject({
			accountType: undefined,
			filter: { direction: 'both', coin: undefined, symbol: undefined },
			lateWindowMs: DEFAULT_LATE_WINDOW_MINUTES * 60_000,
		});
	});

	it('reads the account type, direction, filters and late window', () => {
		const settings = readSettings(
			pollFunctions({
				event: 32,
				accountType: 3,
				direction: 'outgoing',
				filters: { coin: 'USDT', symbol: 'BTCUSDT-PERPETUAL' },
				options: { lateWindowMinutes: 0 },
			}),
		);
		expect(settings).toMatchObject({
			accountType: 3,
			filter: { direction: 'outgoing', coin: 'USDT', symbol: 'BTCUSDT-PERPETUAL' },
			lateWindowMs: 0,
		});
	});

	it('ignores Direction for an event without one (a deposit is always incoming)', () => {
		const settings = readSettings(pollFunctions({ event: 900, direction: 'outgoing' }));
		expect(settings.filter.direction).toBe('both');
	});

	it.each([
		[{ event: 77 }, 'Event: 77 is not an event this trigger knows'],
		[{ event: 32, accountType: 2 }, 'Account Type: "2" is not an account type'],
		[{ event: 32, direction: 'in' }, /^Direction: /],
		[{ event: 32, filters: { coin: ' USDT' } }, 'Coin: " USDT" starts or ends with spaces'],
		[{ event: 32, filters: { symbol: 5 } }, 'Symbol: 5 is not text'],
		[{ event: 32, options: { lateWindowMinutes: 61 } }, /^Late Records Window \(Minutes\): /],
	])('refuses %j', (parameters, message) => {
		if (typeof message === 'string') expect(refusal(parameters)).toBe(message);
		else expect(refusal(parameters)).toMatch(message);
	});
});

describe('pollBounds and historyQuery', () => {
	const settings = (event: number, accountType?: number): TriggerSettings => ({
		...readSettings(pollFunctions({ event })),
		accountType,
	});
	const now = 1_800_000_000_000;

	it('a poll reads from the retention window, with a margin, up to the clock plus a margin', () => {
		expect(pollBounds(settings(32), now)).toEqual({
			start: now - 30 * DAY_MS + RETENTION_MARGIN_MS,
			end: now + END_MARGIN_MS,
		});
		// Trades are kept 7 days.
		expect(pollBounds(settings(1), now).start).toBe(now - 7 * DAY_MS + RETENTION_MARGIN_MS);
	});

	it('a history query asks for the event and the account type over the range', () => {
		expect(historyQuery(settings(32, 3), 10, 20)).toEqual({
			flowType: 32,
			accountType: 3,
			startTime: 10,
			endTime: 20,
		});
		expect(historyQuery(settings(51), 10, 20).accountType).toBeUndefined();
	});
});
